-- The seed's queries with now() = 2024-05-20 12:00:00 and today() = 2024-05-20 (UTC), its
-- database `default` as `dae`; ORDER BY added where a LIMIT would otherwise pick any rows.
SELECT count(), sum(ul_bytes), min(session_start_time), max(session_start_time) FROM dae.all_seg_ods_ipdr_mobile;
select toDateTime(session_start_time / 1000000) as start_date,url,*
from dae.all_seg_ods_ipdr_mobile
where toStartOfDay(toDateTime(session_start_time / 1000000)) > toDateTime('2024-05-20 12:00:00') - interval 1 day
and multiSearchAny(url,['550926','653313'])
order by session_start_time
limit 100
format CSVWithNames;
select toStartOfFiveMinutes(start_date) t,count (*) c1,max(start_date) c2
from (
select toDateTime(session_start_time / 1000000) start_date
from dae.all_seg_ods_ipdr_mobile
where start_date > toDateTime('2024-05-20 12:00:00') - interval 1 hour
) group by t order by t asc;
select
'ipdr' xdrName,
operator_name,
round(msisdn_num*100.0/n,2) as "msisdn回填率",
round(imsi_num*100.0/n,2) as "imsi回填率",
round(imei_num*100.0/n,2) as "imei回填率",
round(cgi_ecgi_num*100.0/n,2) as "cgi_ecgi回填率",
round(app_feature_id_num*100.0/n,2) as "app_feature_id回填率"
from (
select
dictGetString('dae.dict_operator', 'name', dictGetString('dae.dict_probe', 'operator_code', ul_probe_id)) operator_name,
count(*) n,
sum(case when msisdn>0 then 1 else 0 end) msisdn_num,
sum(case when imsi>0 then 1 else 0 end) imsi_num,
sum(case when imei>0 then 1 else 0 end) imei_num,
sum(case when cgi_ecgi>0 then 1 else 0 end) cgi_ecgi_num,
sum(case when app_feature_id>0 then 1 else 0 end) app_feature_id_num
from dae.all_seg_ods_ipdr_mobile
where toDateTime(toDateTime(session_start_time / 1000000)) > toDateTime('2024-05-20 12:00:00') - interval 1 hour
group by operator_name
) order by operator_name asc
format CSVWithNames;
SELECT
uniqMerge(user_count) AS user_count,
app_id,
dictGetString('dae.dict_app', 'name', app_id) AS app_name,
operator_service_code,
app_category_id
FROM dae.st_ipdr_app_user_day
WHERE report_time >= toDate('2024-05-20')
--AND (operator_service_code = '2') AND (app_category_id = '4')
GROUP BY app_id,operator_service_code,app_category_id
ORDER BY user_count DESC, app_id, operator_service_code
LIMIT 100;
select
report_time, operator_service_code, operator_code, province, city, rat, pgw_ggsn, site_id, probe_id,
sumMerge(total_ul_bytes) as total_ul_bytes,
sumMerge(total_dl_bytes) as total_dl_bytes,
sumMerge(total_ul_packets) as total_ul_packets,
sumMerge(total_dl_packets) as total_dl_packets,
sumMerge(total_ul_packet_loss) as total_ul_packet_loss,
sumMerge(total_dl_packet_loss) as total_dl_packet_loss,
sumMerge(total_internal_rtt_ms) as total_internal_rtt_ms,
sumMerge(total_external_rtt_ms) as total_external_rtt_ms,
sumMerge(session_count) as session_count,
sumMerge(total_session_count) as total_session_count,
sumMerge(xdr_count) as xdr_count
from dae.st_ipdr_probe_hour
WHERE report_time >= toDate('2024-05-20')
group by
report_time, operator_service_code, operator_code, province, city, rat, pgw_ggsn, site_id, probe_id
order by report_time desc, operator_service_code, operator_code, probe_id, rat
limit 100;
SELECT report_time, uniqMerge(user_count), sumMerge(session_count) FROM dae.st_ipdr_app_user_day GROUP BY report_time ORDER BY report_time;
SELECT uniqMerge(user_count), sumMerge(session_count), count() FROM dae.st_ipdr_app_user_day;
SELECT uniq(msisdn), uniq(msisdn, app_id), uniq(url), uniq(toString(ul_probe_id)), uniq(session_start_time) FROM dae.all_seg_ods_ipdr_mobile;
SELECT app_category_id, uniq(msisdn), uniqExact(msisdn) FROM dae.all_seg_ods_ipdr_mobile GROUP BY app_category_id ORDER BY app_category_id;
SELECT count(), sumMerge(xdr_count), sumMerge(total_ul_bytes) FROM dae.st_ipdr_probe_hour;
SELECT operator_code, sumMerge(total_dl_bytes) AS dl FROM dae.st_ipdr_probe_hour GROUP BY operator_code ORDER BY operator_code;
SELECT dictGetString('dae.dict_operator', 'name', dictGetString('dae.dict_probe', 'operator_code', toUInt64(number))) AS o FROM numbers(36, 8);
SELECT table, partition, rows, marks, disk_name FROM system.parts WHERE database = 'dae' AND active AND table LIKE 'st_%' ORDER BY table, partition, rows;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'parts' AND name IN ('marks', 'rows', 'bytes_on_disk', 'table', 'disk_name') ORDER BY name;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'tables' AND name IN ('name', 'data_paths') ORDER BY name;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'build_options' ORDER BY name;
SELECT name, length(data_paths) FROM system.tables WHERE database = 'dae' ORDER BY name;
