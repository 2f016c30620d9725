-- Row counts of the Summing/Aggregating targets depend on merges; their sums do not.
SELECT day, kind, sum(events), sum(amount) FROM vw.daily GROUP BY day, kind ORDER BY day, kind LIMIT 10;
SELECT sum(events), sum(amount), uniqExact(day) FROM vw.daily;
SELECT day, kind, sum(events) FROM vw.daily_mv GROUP BY day, kind ORDER BY day DESC, kind LIMIT 5;
SELECT kind, uniqMerge(users), sumMerge(total) FROM vw.users_mv GROUP BY kind ORDER BY kind;
SELECT user_id, label, amount, note FROM vw.big_buys ORDER BY user_id, amount LIMIT 15;
SELECT count(), sum(amount) FROM vw.big_buys;
SELECT label, sum(n) FROM vw.big_buys_count GROUP BY label ORDER BY label;
SELECT * FROM vw.before_mv ORDER BY id;
SELECT count() FROM vw.buys;
SELECT * FROM vw.top_buyers ORDER BY spent DESC, user_id LIMIT 5;
SELECT b.user_id, b.spent FROM vw.top_buyers AS b WHERE b.user_id < 5 ORDER BY b.user_id;
SELECT count(), sum(amount) FROM vw.by_kind(k = 'buy', min_amount = 50);
SELECT * FROM vw.by_kind(k = 'click', min_amount = 99) ORDER BY user_id, amount;
SELECT t.user_id, d.label FROM vw.buys AS t JOIN vw.big_buys AS d USING (user_id) ORDER BY t.user_id, d.label LIMIT 3;
SELECT name, engine, arraySort(dependencies_table) FROM system.tables WHERE database = 'vw' AND name NOT LIKE '.inner%' ORDER BY name;
-- ClickHouse prints as_select with its own formatter; simple queries read the same.
SELECT name, as_select FROM system.tables WHERE database = 'vw' AND name IN ('buys', 'top_buyers') ORDER BY name;
DESCRIBE vw.top_buyers;
DESCRIBE vw.daily_mv;
