SELECT table, partition, marks, rows FROM system.parts WHERE database = 'granules' AND table LIKE 'inserts_%' AND active ORDER BY table, rows;
SELECT table, marks, rows FROM system.parts WHERE database = 'granules' AND table LIKE 'merged_%' AND active ORDER BY table;
-- Granules longer than index_granularity read back whole, by range and by key.
SELECT size, count(), sum(k), max(k) FROM granules.inserts_8192 GROUP BY size ORDER BY size;
SELECT count(), sum(k) FROM granules.inserts_8192 WHERE size = 100000 AND k BETWEEN 97000 AND 99990;
SELECT k, s FROM granules.inserts_8192 WHERE size = 9720 AND k IN (0, 8191, 8192, 9000, 9719) ORDER BY k;
SELECT k, s FROM granules.inserts_64 WHERE size = 95 AND k = 94;
SELECT count(), sum(k) FROM granules.merged_1 WHERE k >= 9000;
SELECT k, s FROM granules.merged_3 WHERE k = 99;
