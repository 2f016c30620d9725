-- ClickHouse's tabulated Earth distances: Float64 for a Float64 argument, else Float32
SELECT greatCircleDistance(55.755831, 37.617673, -55.755831, -37.617673), geoDistance(38.8976, -77.0366, 39.9496, -75.1503), greatCircleAngle(0, 0, 45, 0), toTypeName(greatCircleDistance(0, 0, 0, 0)), toTypeName(geoDistance(0., 0, 0, 0));
SELECT greatCircleDistance(37.617673, 55.755831, 30.315868, 59.939095), geoDistance(37.617673, 55.755831, 30.315868, 59.939095), greatCircleAngle(37.617673, 55.755831, 30.315868, 59.939095);
SELECT greatCircleDistance(toFloat32(37.617673), toFloat32(55.755831), toFloat32(30.315868), toFloat32(59.939095)), geoDistance(toFloat32(37.6), toFloat32(55.7), toFloat32(37.7), toFloat32(55.8)), toTypeName(greatCircleAngle(toFloat32(1), 2, 3, 4));
SELECT greatCircleDistance(0., 0., 179., 0.), greatCircleDistance(-170., 10., 170., -10.), greatCircleAngle(0., 90., 0., -90.), geoDistance(10., 80., 20., 85.), greatCircleAngle(0, 0, 0, 0);
SELECT number, greatCircleDistance(number * 10., number * 5., 0., 0.), geoDistance(number * 1., 0., 0., number * 2.), greatCircleAngle(number, number, number + 20, 0) FROM numbers(5) ORDER BY number;
SELECT greatCircleDistance('a', 0, 0, 0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT greatCircleDistance(0, 0, 0); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT name FROM system.functions WHERE name IN ('greatCircleDistance', 'geoDistance', 'greatCircleAngle') ORDER BY name;
