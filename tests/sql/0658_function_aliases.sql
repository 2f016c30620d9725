-- ClickHouse's other names of functions Granary has.
SELECT ceiling(1.2), truncate(-1.5), truncate(1.2345, 2), CEILING(2.1);
SELECT extractAllGroups('abc=111, def=222', '(\\w+)=(\\w+)');
SELECT mismatches('abc', 'abd'), modOrNull(5, 0), pmodOrNull(-5, 3), positive_modulo_or_null(-5, 0);
SELECT session_user() = currentUser();
SELECT splitByAlpha('abc1def'), sqid(1, 2, 3);
SELECT vectorDifference((3, 2), (1, 1)), vectorSum((1, 2), (3, 4));
SELECT week(toDate('2024-03-14')), week(toDate('2024-03-14'), 1), yearweek(toDate('2024-03-14'));
SELECT width_bucket(10.15, -8.6, 23, 18);
SELECT yandexConsistentHash(16045690984833335023, 2);
SELECT name, alias_to FROM system.functions WHERE name IN ('ceiling', 'truncate') ORDER BY name;
