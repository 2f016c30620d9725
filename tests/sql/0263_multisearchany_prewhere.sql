-- multiSearchAny with constant needles over whole columns (matches must not cross from one value into the next), and PREWHERE filtering granule by granule.
SELECT multiSearchAny('abcab', ['ca']), multiSearchAny('', ['a']), multiSearchAny('', ['']), multiSearchAny('xyz', ['a', '']), multiSearchAny(toNullable('ab'), ['b']), multiSearchAny(CAST(NULL, 'Nullable(String)'), ['b']);
SELECT s, multiSearchAny(s, ['bb', 'cc']), multiSearchAny(s, ['ab']), multiSearchAny(s, ['abc', 'zz']), multiSearchAny(s, [s]) FROM (SELECT arrayJoin(['', 'ab', 'b', 'abcab', '', 'ca', 'bc', 'c', 'xyzab', 'a']) AS s);
CREATE TABLE ms (id UInt32, s String, f FixedString(3), n Nullable(String), lc LowCardinality(String), pad String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 4;
INSERT INTO ms SELECT number, concat('v', toString(number % 13)), toFixedString(toString(number % 7 * 100 + 7), 3), if(number % 5 = 0, NULL, toString(number)), toString(number % 3), repeat('x', number % 9) FROM numbers(60);
SELECT id, s, f FROM ms WHERE multiSearchAny(s, ['v1', 'v7']) ORDER BY id;
SELECT id, n FROM ms WHERE multiSearchAny(n, ['3', '44']) ORDER BY id;
SELECT count() FROM ms WHERE multiSearchAny(lc, ['2']);
SELECT id, multiSearchAny(s, [concat('v', toString(id % 13)), 'none']) FROM ms WHERE id < 5 ORDER BY id;
SELECT * FROM ms WHERE id % 11 = 3 AND multiSearchAny(pad, ['xxx']) ORDER BY id;
SELECT *, length(pad) FROM ms PREWHERE id IN (1, 2, 17, 40, 41, 42, 43, 59) ORDER BY id DESC LIMIT 5;
SELECT id, s FROM ms WHERE id >= 20 AND id % 4 != 1 AND multiSearchAny(s, ['v']) ORDER BY s, id LIMIT 7;
SELECT count(), sum(length(pad)) FROM ms WHERE multiSearchAny(s, ['zz']);
