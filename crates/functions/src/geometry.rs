//! Geometry: `pointInEllipses`, `pointInPolygon` on the plane; `greatCircleDistance`,
//! `greatCircleAngle`, `geoDistance` on the Earth.
//!
//! The Earth distances are ClickHouse's (from Sphinx): a flat-ellipsoid metric with
//! tabulated coefficients for points less than 13 degrees of longitude apart, else
//! haversine with tabulated sine, cosine and arcsine; computed in Float32 unless an
//! argument is Float64, as ClickHouse does, so that the values match it bit for bit.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_numeric, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        point_in_ellipses(),
        point_in_polygon(),
        earth_distance("greatCircleAngle", Method::SphereDegrees),
        earth_distance("greatCircleDistance", Method::SphereMeters),
        earth_distance("geoDistance", Method::Wgs84Meters),
    ]
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    SphereDegrees,
    SphereMeters,
    Wgs84Meters,
}

const ASIN_SQRT_LUT_SIZE: usize = 512;
const COS_LUT_SIZE: usize = 1024;
const METRIC_LUT_SIZE: usize = 1024;
/// The WGS84 authalic radius, as H3 and ClickHouse use it.
const EARTH_RADIUS: f64 = 6371007.180918475;
const EARTH_DIAMETER: f64 = 2.0 * EARTH_RADIUS;
const PI: f64 = std::f64::consts::PI;

/// ClickHouse's `greatCircleDistance.cpp` for one float type: its tables, filled in
/// double precision and rounded to the type, and its interpolations in the type.
macro_rules! earth_metric {
    ($module:ident, $t:ty) => {
        mod $module {
            use super::*;

            pub(super) struct Tables {
                cos: Vec<$t>,
                asin_sqrt: Vec<$t>,
                sphere: Vec<$t>,
                sphere_meters: Vec<$t>,
                wgs84_meters: Vec<$t>,
            }

            fn sqr(v: $t) -> $t {
                v * v
            }

            pub(super) fn tables() -> &'static Tables {
                static TABLES: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
                TABLES.get_or_init(|| {
                    let cos = (0..=COS_LUT_SIZE).map(|i| (2.0 * PI * i as f64 / COS_LUT_SIZE as f64).cos() as $t).collect();
                    let asin_sqrt = (0..=ASIN_SQRT_LUT_SIZE).map(|i| (i as f64 / ASIN_SQRT_LUT_SIZE as f64).sqrt().asin() as $t).collect();
                    let mut sphere = Vec::with_capacity(METRIC_LUT_SIZE + 1);
                    let mut sphere_meters = Vec::with_capacity(METRIC_LUT_SIZE + 1);
                    let mut wgs84_meters = Vec::with_capacity(2 * (METRIC_LUT_SIZE + 1));
                    for i in 0..=METRIC_LUT_SIZE {
                        let latitude = i as f64 * (PI / METRIC_LUT_SIZE as f64) - PI * 0.5;
                        let square = |v: f64| v * v;
                        wgs84_meters.push(square(111132.09 - 566.05 * (2.0 * latitude).cos() + 1.20 * (4.0 * latitude).cos()) as $t);
                        wgs84_meters.push(square(111415.13 * latitude.cos() - 94.55 * (3.0 * latitude).cos() + 0.12 * (5.0 * latitude).cos()) as $t);
                        sphere_meters.push(square((EARTH_DIAMETER * PI / 360.0) * latitude.cos()) as $t);
                        sphere.push(square(latitude.cos()) as $t);
                    }
                    Tables { cos, asin_sqrt, sphere, sphere_meters, wgs84_meters }
                })
            }

            fn deg_diff(f: $t) -> $t {
                let f = f.abs();
                if f > 180.0 {
                    360.0 - f
                } else {
                    f
                }
            }

            impl Tables {
                fn fast_cos(&self, x: $t) -> $t {
                    let mut y = x.abs() * (COS_LUT_SIZE as $t / PI as $t / 2.0);
                    let i = y as usize;
                    y -= i as $t;
                    let i = i & (COS_LUT_SIZE - 1);
                    self.cos[i] + (self.cos[i + 1] - self.cos[i]) * y
                }

                fn fast_sin(&self, x: $t) -> $t {
                    let mut y = x.abs() * (COS_LUT_SIZE as $t / PI as $t / 2.0);
                    let i = y as usize;
                    y -= i as $t;
                    let i = i.wrapping_sub(COS_LUT_SIZE / 4) & (COS_LUT_SIZE - 1);
                    self.cos[i] + (self.cos[i + 1] - self.cos[i]) * y
                }

                fn fast_asin_sqrt(&self, x: $t) -> $t {
                    if x < 0.122 {
                        let y = x.sqrt();
                        return y + x * y * 0.166666666666666 + x * x * y * 0.075 + x * x * x * y * 0.044642857142857;
                    }
                    if x < 0.948 {
                        let x = x * ASIN_SQRT_LUT_SIZE as $t;
                        let i = x as usize;
                        return self.asin_sqrt[i] + (self.asin_sqrt[i + 1] - self.asin_sqrt[i]) * (x - i as $t);
                    }
                    x.sqrt().asin()
                }

                pub(super) fn distance(&self, method: Method, lon1: $t, lat1: $t, lon2: $t, lat2: $t) -> $t {
                    let lat_diff = deg_diff(lat1 - lat2);
                    let lon_diff = deg_diff(lon1 - lon2);
                    if lon_diff < 13.0 {
                        let midpoint = (lat1 + lat2 + 180.0) * METRIC_LUT_SIZE as $t / 360.0;
                        let index = (midpoint as usize) & (METRIC_LUT_SIZE - 1);
                        let fraction = midpoint - index as $t;
                        let lerp = |table: &[$t], stride: usize, offset: usize| {
                            table[index * stride + offset] + (table[(index + 1) * stride + offset] - table[index * stride + offset]) * fraction
                        };
                        let (k_lat, k_lon) = match method {
                            Method::SphereDegrees => (1.0, lerp(&self.sphere, 1, 0)),
                            Method::SphereMeters => (sqr(EARTH_DIAMETER as $t * PI as $t / 360.0), lerp(&self.sphere_meters, 1, 0)),
                            Method::Wgs84Meters => (lerp(&self.wgs84_meters, 2, 0), lerp(&self.wgs84_meters, 2, 1)),
                        };
                        return (k_lat * lat_diff * lat_diff + k_lon * lon_diff * lon_diff).sqrt();
                    }
                    let rad_in_deg = (PI / 180.0) as $t;
                    let rad_in_deg_half = (PI / 360.0) as $t;
                    let a = sqr(self.fast_sin(lat_diff * rad_in_deg_half))
                        + self.fast_cos(lat1 * rad_in_deg) * self.fast_cos(lat2 * rad_in_deg) * sqr(self.fast_sin(lon_diff * rad_in_deg_half));
                    match method {
                        Method::SphereDegrees => (360.0 / PI as $t) * self.fast_asin_sqrt(a),
                        _ => EARTH_DIAMETER as $t * self.fast_asin_sqrt(a),
                    }
                }
            }
        }
    };
}

earth_metric!(metric32, f32);
earth_metric!(metric64, f64);

fn earth_distance(name: &'static str, method: Method) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(4),
        |ctx| {
            let mut float64 = false;
            for i in 0..4 {
                if !is_numeric(ctx.dt(i)) || ctx.dt(i) == &DataType::Boolean {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Illegal type {} of argument {} of function {}. Must be numeric", ctx.ch(i), i + 1, ctx.name),
                    ));
                }
                float64 |= ctx.dt(i) == &DataType::Float64;
            }
            Ok(if float64 { ChType::Float64 } else { ChType::Float32 })
        },
        move |ctx| {
            let columns: Vec<Vec<f64>> = (0..4).map(|i| floats(ctx, i)).collect::<DfResult<_>>()?;
            let (lon1, lat1, lon2, lat2) = (&columns[0], &columns[1], &columns[2], &columns[3]);
            if ctx.ret_type() == &DataType::Float64 {
                let tables = metric64::tables();
                let out = (0..ctx.len).map(|r| tables.distance(method, lon1[r], lat1[r], lon2[r], lat2[r]));
                return Ok(Arc::new(datafusion::arrow::array::Float64Array::from_iter_values(out)) as ArrayRef);
            }
            let tables = metric32::tables();
            let out = (0..ctx.len).map(|r| tables.distance(method, lon1[r] as f32, lat1[r] as f32, lon2[r] as f32, lat2[r] as f32));
            Ok(Arc::new(datafusion::arrow::array::Float32Array::from_iter_values(out)) as ArrayRef)
        },
    )
    .build()
}

fn floats(ctx: &ExecCtx, i: usize) -> DfResult<Vec<f64>> {
    let column = datafusion::arrow::compute::cast(&ctx.array(i)?, &DataType::Float64)?;
    Ok(column.as_primitive::<Float64Type>().values().to_vec())
}

/// `pointInEllipses(x, y, x0, y0, a0, b0, ...)`: 1 when the point is inside (or on)
/// one of the axis-aligned ellipses.
fn point_in_ellipses() -> ScalarUDF {
    ScalarDef::new(
        "pointInEllipses",
        Arity::at_least(0),
        |ctx| {
            let n = ctx.arg_count();
            if n < 6 || (n - 2) % 4 != 0 {
                return Err(ch_error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Incorrect number of arguments of function pointInEllipses. Must be 2 for your point plus 4 * N for ellipses (x_i, y_i, a_i, b_i)",
                ));
            }
            for i in 0..n {
                if ctx.dt(i) != &DataType::Float64 {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Illegal type {} of argument {} of function pointInEllipses. Must be Float64", ctx.ch(i), i + 1),
                    ));
                }
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let columns: Vec<Vec<f64>> = (0..ctx.args.len()).map(|i| floats(ctx, i)).collect::<DfResult<_>>()?;
            let inside = (0..ctx.len).map(|row| {
                let (x, y) = (columns[0][row], columns[1][row]);
                let any = columns[2..].chunks_exact(4).any(|e| {
                    let (dx, dy) = ((x - e[0][row]) / e[2][row], (y - e[1][row]) / e[3][row]);
                    dx * dx + dy * dy <= 1.0
                });
                u8::from(any)
            });
            Ok(Arc::new(UInt8Array::from_iter_values(inside)) as ArrayRef)
        },
    )
    .build()
}

/// The vertices of the ring in row `row` of an `Array(Tuple(x, y))` column.
fn ring(column: &ArrayRef, row: usize) -> DfResult<Vec<(f64, f64)>> {
    let list = column.as_list::<i32>();
    let points = list.value(row);
    let points = points.as_struct();
    let xs = datafusion::arrow::compute::cast(points.column(0), &DataType::Float64)?;
    let ys = datafusion::arrow::compute::cast(points.column(1), &DataType::Float64)?;
    let (xs, ys) = (xs.as_primitive::<Float64Type>(), ys.as_primitive::<Float64Type>());
    Ok((0..points.len()).map(|i| (xs.value(i), ys.value(i))).collect())
}

/// Even-odd rule: whether a horizontal ray from the point crosses the ring an odd number of times.
fn inside_ring(x: f64, y: f64, vertices: &[(f64, f64)]) -> bool {
    let mut inside = false;
    let n = vertices.len();
    for i in 0..n {
        let (xi, yi) = vertices[i];
        let (xj, yj) = vertices[(i + n - 1) % n];
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            inside = !inside;
        }
    }
    inside
}

fn is_point_tuple(t: &ChType) -> bool {
    matches!(t.strip_nullable(), ChType::Tuple(e) if e.len() == 2 && e.iter().all(|(_, t)| is_numeric(&t.to_arrow())))
}

/// `pointInPolygon((x, y), [(x1, y1), ...] [, hole, ...])`: 1 when the point is inside
/// the polygon and outside its holes.
fn point_in_polygon() -> ScalarUDF {
    ScalarDef::new(
        "pointInPolygon",
        Arity::at_least(2),
        |ctx| {
            if !is_point_tuple(&ctx.ch(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The first argument of function pointInPolygon must be a tuple of two numbers, got {}", ctx.ch(0))));
            }
            for i in 1..ctx.arg_count() {
                let ok = matches!(ctx.ch(i), ChType::Array(inner) if is_point_tuple(&inner));
                if !ok {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Argument {} of function pointInPolygon must be an array of tuples of two numbers, got {}", i + 1, ctx.ch(i)),
                    ));
                }
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let point = ctx.array(0)?;
            let point = point.as_struct();
            let xs = datafusion::arrow::compute::cast(point.column(0), &DataType::Float64)?;
            let ys = datafusion::arrow::compute::cast(point.column(1), &DataType::Float64)?;
            let (xs, ys) = (xs.as_primitive::<Float64Type>(), ys.as_primitive::<Float64Type>());
            let rings: Vec<ArrayRef> = (1..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<_>>()?;
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let (x, y) = (xs.value(row), ys.value(row));
                let mut inside = inside_ring(x, y, &ring(&rings[0], row)?);
                for hole in &rings[1..] {
                    if inside && inside_ring(x, y, &ring(hole, row)?) {
                        inside = false;
                    }
                }
                out.push(u8::from(inside));
            }
            Ok(Arc::new(UInt8Array::from(out)) as ArrayRef)
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_odd_rule() {
        let polygon = [(6.0, 0.0), (8.0, 4.0), (5.0, 8.0), (0.0, 2.0)];
        assert!(inside_ring(3.0, 3.0, &polygon));
        assert!(!inside_ring(0.0, 0.0, &[(1.0, 1.0), (2.0, 1.0), (2.0, 2.0)]));
    }
}
