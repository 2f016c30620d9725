SELECT count(), sum(d), min(d), max(d), sum(g), sum(length(s)), count(ns), sum(length(ns)), sum(ni), count(ni), uniq(fs), countIf(b) FROM rd.t;
SELECT uniq(s), uniq(ns), uniq(ni), uniq(ns, ni), uniq((s, d)), uniqCombined(ns, ni), uniqExact(ns) FROM rd.t;
SELECT id % 4 AS k, uniq(ns), uniq(ni), uniq(s, ni), sum(g), sum(toFloat64(ni)) FROM rd.t GROUP BY k ORDER BY k;
SELECT * FROM rd.t WHERE id BETWEEN 1234 AND 1240 OR id BETWEEN 100550 AND 100560 ORDER BY id;
SELECT sum(ni), max(ns), min(fs), max(s) FROM rd.t WHERE id >= 50000;
SELECT sum(toFloat64(ni)), sum(g), avg(g), max(id) FROM rd.t;
SELECT ns, count() FROM rd.t GROUP BY ns ORDER BY ns LIMIT 5;
SELECT uniq((s, ni)), uniq((ns, ni)), uniqCombined((ns, ni)), uniqHLL12((s, ni)) FROM rd.t;
