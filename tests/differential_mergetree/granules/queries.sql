SELECT table, partition, marks, rows FROM system.parts WHERE database = 'granules' AND table LIKE 'inserts_%' AND active ORDER BY table, rows;
SELECT table, part_type, marks, rows FROM system.parts WHERE database = 'granules' AND table LIKE 'merged_%' AND active ORDER BY table;
-- Granules longer than index_granularity read back whole, by range and by key.
SELECT size, count(), sum(k), max(k) FROM granules.inserts_8192 GROUP BY size ORDER BY size;
SELECT count(), sum(k) FROM granules.inserts_8192 WHERE size = 100000 AND k BETWEEN 97000 AND 99990;
SELECT k, s FROM granules.inserts_8192 WHERE size = 9720 AND k IN (0, 8191, 8192, 9000, 9719) ORDER BY k;
SELECT k, s FROM granules.inserts_64 WHERE size = 95 AND k = 94;
SELECT count(), sum(k) FROM granules.merged_1 WHERE k >= 9000;
SELECT k, s FROM granules.merged_3 WHERE k = 99;
-- Lookups and scans over merged parts whose granules were cut per merge block.
SELECT k, s FROM granules.merged_8 WHERE k IN (0, 5997, 5998, 7497, 8997) ORDER BY k;
SELECT count(), sum(k), sum(length(s)) FROM granules.merged_8 WHERE k BETWEEN 6000 AND 7000;
SELECT k, s FROM granules.merged_9 WHERE k IN (9999, 10000, 16999, 20993) ORDER BY k;
SELECT count(), sum(k) FROM granules.merged_9 WHERE k >= 15000;
SELECT k, s FROM granules.merged_wide WHERE k IN (1998, 1999, 2196) ORDER BY k;
SELECT count(), sum(length(s)) FROM granules.merged_adaptive_1 WHERE k BETWEEN 11000 AND 12500;
SELECT k, length(s) FROM granules.merged_adaptive_1 WHERE k IN (0, 11990, 17997) ORDER BY k;
SELECT count(), sum(length(s)), max(k) FROM granules.merged_adaptive_2;
SELECT k, length(s) FROM granules.merged_adaptive_2 WHERE k = intHash32(4321);
SELECT k, n, length(a) FROM granules.merged_nested WHERE k IN (intHash32(77), intHash32(5007)) ORDER BY k, n;
SELECT count(), sum(n), sum(length(a)) FROM granules.merged_nested WHERE k < 1000000000;
SELECT k, s FROM granules.merged_fixed WHERE k IN (6199, 6200, 9999, 20598) ORDER BY k;
