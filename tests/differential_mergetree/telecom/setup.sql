-- The telecom workload of seed 003: raw IPDR sessions, two AggregatingMergeTree rollups
-- filled with INSERT ... SELECT ...State(...) GROUP BY, and the dictionaries the reports
-- read through nested dictGetString. Times are fixed: "now" is 2024-05-20 12:00:00 UTC.
CREATE DATABASE IF NOT EXISTS dae;
CREATE TABLE dae.probe_src (probe_id UInt64, operator_code String, name String) ENGINE = MergeTree ORDER BY probe_id;
INSERT INTO dae.probe_src SELECT number, concat('op', toString(number % 4)), concat('probe-', toString(number)) FROM numbers(40);
CREATE TABLE dae.operator_src (code String, name String) ENGINE = MergeTree ORDER BY code;
INSERT INTO dae.operator_src VALUES ('op0', 'China Mobile'), ('op1', 'China Unicom'), ('op2', 'China Telecom');
CREATE TABLE dae.app_src (app_id UInt64, name String) ENGINE = MergeTree ORDER BY app_id;
INSERT INTO dae.app_src SELECT number, concat('app_', toString(number)) FROM numbers(250);
CREATE DICTIONARY dae.dict_probe (probe_id UInt64, operator_code String, name String) PRIMARY KEY probe_id SOURCE(CLICKHOUSE(TABLE 'probe_src' DB 'dae')) LAYOUT(HASHED()) LIFETIME(0);
CREATE DICTIONARY dae.dict_operator (code String, name String DEFAULT 'unknown') PRIMARY KEY code SOURCE(CLICKHOUSE(TABLE 'operator_src' DB 'dae')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0);
CREATE DICTIONARY dae.dict_app (app_id UInt64, name String) PRIMARY KEY app_id SOURCE(CLICKHOUSE(TABLE 'app_src' DB 'dae')) LAYOUT(HASHED()) LIFETIME(0);
CREATE TABLE dae.all_seg_ods_ipdr_mobile (
    session_start_time UInt64,
    session_end_time UInt64,
    msisdn UInt64,
    imsi UInt64,
    imei UInt64,
    cgi_ecgi UInt64,
    app_feature_id UInt32,
    app_id UInt32,
    app_category_id UInt16,
    operator_service_code String,
    ul_probe_id UInt32,
    rat UInt8,
    url String,
    ul_bytes UInt64,
    dl_bytes UInt64,
    ul_packets UInt32,
    dl_packets UInt32,
    ul_packet_loss UInt16,
    dl_packet_loss UInt16,
    internal_rtt_ms UInt32,
    external_rtt_ms UInt32
) ENGINE = MergeTree PARTITION BY intDiv(session_start_time, 86400000000) ORDER BY (ul_probe_id, session_start_time) SETTINGS index_granularity = 1024;
SYSTEM STOP MERGES dae.all_seg_ods_ipdr_mobile;
INSERT INTO dae.all_seg_ods_ipdr_mobile SELECT
    1716033600000000 + number * 864000 + cityHash64(number) % 1000000,
    1716033600000000 + number * 864000 + cityHash64(number) % 1000000 + cityHash64(number, 1) % 60000000,
    if(cityHash64(number, 2) % 10 = 0, 0, 13800000000 + cityHash64(number, 3) % 5000),
    if(cityHash64(number, 4) % 7 = 0, 0, 460000000000000 + cityHash64(number, 3) % 5000),
    if(cityHash64(number, 5) % 5 = 0, 0, 860000000000000 + cityHash64(number, 6) % 100000),
    if(cityHash64(number, 7) % 3 = 0, 0, 4600012345 + cityHash64(number, 8) % 300),
    toUInt32(if(cityHash64(number, 9) % 4 = 0, 0, cityHash64(number, 10) % 1000)),
    toUInt32(cityHash64(number, 11) % 250),
    toUInt16(cityHash64(number, 11) % 250 % 12),
    toString(cityHash64(number, 12) % 3 + 1),
    toUInt32(cityHash64(number, 13) % 45),
    toUInt8(cityHash64(number, 14) % 3 + 6),
    concat('http://host', toString(cityHash64(number, 15) % 50), '.example.com/item/', toString(if(cityHash64(number, 16) % 2 = 0, 550900, 653300) + cityHash64(number, 16) % 60), '?s=', toString(number)),
    cityHash64(number, 17) % 100000,
    cityHash64(number, 18) % 5000000,
    toUInt32(cityHash64(number, 19) % 200),
    toUInt32(cityHash64(number, 20) % 4000),
    toUInt16(cityHash64(number, 21) % 5),
    toUInt16(cityHash64(number, 22) % 9),
    toUInt32(cityHash64(number, 23) % 80),
    toUInt32(cityHash64(number, 24) % 300)
FROM numbers(200000) WHERE number < 100000;
INSERT INTO dae.all_seg_ods_ipdr_mobile SELECT
    1716033600000000 + number * 864000 + cityHash64(number) % 1000000,
    1716033600000000 + number * 864000 + cityHash64(number) % 1000000 + cityHash64(number, 1) % 60000000,
    if(cityHash64(number, 2) % 10 = 0, 0, 13800000000 + cityHash64(number, 3) % 5000),
    if(cityHash64(number, 4) % 7 = 0, 0, 460000000000000 + cityHash64(number, 3) % 5000),
    if(cityHash64(number, 5) % 5 = 0, 0, 860000000000000 + cityHash64(number, 6) % 100000),
    if(cityHash64(number, 7) % 3 = 0, 0, 4600012345 + cityHash64(number, 8) % 300),
    toUInt32(if(cityHash64(number, 9) % 4 = 0, 0, cityHash64(number, 10) % 1000)),
    toUInt32(cityHash64(number, 11) % 250),
    toUInt16(cityHash64(number, 11) % 250 % 12),
    toString(cityHash64(number, 12) % 3 + 1),
    toUInt32(cityHash64(number, 13) % 45),
    toUInt8(cityHash64(number, 14) % 3 + 6),
    concat('http://host', toString(cityHash64(number, 15) % 50), '.example.com/item/', toString(if(cityHash64(number, 16) % 2 = 0, 550900, 653300) + cityHash64(number, 16) % 60), '?s=', toString(number)),
    cityHash64(number, 17) % 100000,
    cityHash64(number, 18) % 5000000,
    toUInt32(cityHash64(number, 19) % 200),
    toUInt32(cityHash64(number, 20) % 4000),
    toUInt16(cityHash64(number, 21) % 5),
    toUInt16(cityHash64(number, 22) % 9),
    toUInt32(cityHash64(number, 23) % 80),
    toUInt32(cityHash64(number, 24) % 300)
FROM numbers(200000) WHERE number >= 100000;
CREATE TABLE dae.st_ipdr_app_user_day (
    report_time Date,
    app_id UInt32,
    operator_service_code String,
    app_category_id UInt16,
    user_count AggregateFunction(uniq, UInt64),
    session_count AggregateFunction(sum, UInt64)
) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(report_time) ORDER BY (report_time, app_id, operator_service_code, app_category_id);
SYSTEM STOP MERGES dae.st_ipdr_app_user_day;
INSERT INTO dae.st_ipdr_app_user_day SELECT toDate(toDateTime(intDiv(session_start_time, 1000000))) AS d, app_id, operator_service_code, app_category_id, uniqState(msisdn), sumState(toUInt64(1)) FROM dae.all_seg_ods_ipdr_mobile WHERE intDiv(session_start_time, 1000000) < 1716206400 - 7200 GROUP BY d, app_id, operator_service_code, app_category_id;
INSERT INTO dae.st_ipdr_app_user_day SELECT toDate(toDateTime(intDiv(session_start_time, 1000000))) AS d, app_id, operator_service_code, app_category_id, uniqState(msisdn), sumState(toUInt64(1)) FROM dae.all_seg_ods_ipdr_mobile WHERE intDiv(session_start_time, 1000000) >= 1716206400 - 7200 GROUP BY d, app_id, operator_service_code, app_category_id;
CREATE TABLE dae.st_ipdr_probe_hour (
    report_time DateTime,
    operator_service_code String,
    operator_code String,
    province String,
    city String,
    rat UInt8,
    pgw_ggsn String,
    site_id UInt32,
    probe_id UInt32,
    total_ul_bytes AggregateFunction(sum, UInt64),
    total_dl_bytes AggregateFunction(sum, UInt64),
    total_ul_packets AggregateFunction(sum, UInt32),
    total_dl_packets AggregateFunction(sum, UInt32),
    total_ul_packet_loss AggregateFunction(sum, UInt16),
    total_dl_packet_loss AggregateFunction(sum, UInt16),
    total_internal_rtt_ms AggregateFunction(sum, UInt32),
    total_external_rtt_ms AggregateFunction(sum, UInt32),
    session_count AggregateFunction(sum, UInt64),
    total_session_count AggregateFunction(sum, UInt64),
    xdr_count AggregateFunction(sum, UInt64)
) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMMDD(report_time) ORDER BY (report_time, operator_service_code, operator_code, province, city, rat, pgw_ggsn, site_id, probe_id);
SYSTEM STOP MERGES dae.st_ipdr_probe_hour;
INSERT INTO dae.st_ipdr_probe_hour SELECT
    toStartOfHour(toDateTime(intDiv(session_start_time, 1000000))) AS h,
    operator_service_code,
    dictGetString('dae.dict_probe', 'operator_code', toUInt64(ul_probe_id)) AS operator_code,
    concat('province', toString(ul_probe_id % 3)) AS province,
    concat('city', toString(ul_probe_id % 7)) AS city,
    rat,
    concat('pgw', toString(ul_probe_id % 2)) AS pgw_ggsn,
    ul_probe_id % 11 AS site_id,
    ul_probe_id,
    sumState(ul_bytes), sumState(dl_bytes), sumState(ul_packets), sumState(dl_packets),
    sumState(ul_packet_loss), sumState(dl_packet_loss), sumState(internal_rtt_ms), sumState(external_rtt_ms),
    sumState(toUInt64(session_end_time > session_start_time)), sumState(toUInt64(1)), sumState(toUInt64(1))
FROM dae.all_seg_ods_ipdr_mobile
GROUP BY h, operator_service_code, operator_code, province, city, rat, pgw_ggsn, site_id, ul_probe_id;
INSERT INTO dae.st_ipdr_probe_hour SELECT
    toStartOfHour(toDateTime(intDiv(session_start_time, 1000000))) AS h,
    operator_service_code,
    dictGetString('dae.dict_probe', 'operator_code', toUInt64(ul_probe_id)) AS operator_code,
    concat('province', toString(ul_probe_id % 3)) AS province,
    concat('city', toString(ul_probe_id % 7)) AS city,
    rat,
    concat('pgw', toString(ul_probe_id % 2)) AS pgw_ggsn,
    ul_probe_id % 11 AS site_id,
    ul_probe_id,
    sumState(ul_bytes), sumState(dl_bytes), sumState(ul_packets), sumState(dl_packets),
    sumState(ul_packet_loss), sumState(dl_packet_loss), sumState(internal_rtt_ms), sumState(external_rtt_ms),
    sumState(toUInt64(0)), sumState(toUInt64(1)), sumState(toUInt64(2))
FROM dae.all_seg_ods_ipdr_mobile
WHERE intDiv(session_start_time, 1000000) >= 1716206400 - 3 * 3600
GROUP BY h, operator_service_code, operator_code, province, city, rat, pgw_ggsn, site_id, ul_probe_id;
