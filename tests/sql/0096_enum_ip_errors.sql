-- Enum8/Enum16, IPv4 and IPv6: bad values and bad type definitions fail with ClickHouse's codes; a failed INSERT leaves nothing
CREATE TABLE t (id UInt8, e Enum8('a' = 1, 'b' = 2), ip IPv4, ip6 IPv6) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, 'a', '1.2.3.4', '::1');
INSERT INTO t VALUES (2, 'zz', '1.2.3.4', '::1'); -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
INSERT INTO t VALUES (2, 5, '1.2.3.4', '::1'); -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
INSERT INTO t VALUES (2, 'b', '1.2.3.400', '::1'); -- { serverError CANNOT_PARSE_IPV4 }
INSERT INTO t VALUES (2, 'b', '1.2.3.4', 'zz'); -- { serverError CANNOT_PARSE_IPV6 }
INSERT INTO t FORMAT CSV 2,c,1.2.3.4,::1
; -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
SELECT * FROM t ORDER BY id;
SELECT id FROM t WHERE ip = 'not an address'; -- { serverError CANNOT_PARSE_IPV4 }
SELECT id FROM t WHERE ip6 = 'not an address'; -- { serverError CANNOT_PARSE_IPV6 }
SELECT toIPv4('300.1.1.1'); -- { serverError CANNOT_PARSE_IPV4 }
SELECT toIPv6('no'); -- { serverError CANNOT_PARSE_IPV6 }
SELECT CAST('c' AS Enum8('a' = 1, 'b' = 2)); -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
SELECT CAST(7 AS Enum8('a' = 1, 'b' = 2)); -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
SELECT CAST('x', 'Enum8(\'a\' = 1, \'a\' = 2)'); -- { serverError SYNTAX_ERROR }
SELECT CAST('x', 'Enum8(\'a\' = 1, \'b\' = 1)'); -- { serverError SYNTAX_ERROR }
SELECT CAST('x', 'Enum8(\'a\' = 1000)'); -- { serverError ARGUMENT_OUT_OF_BOUND }
CREATE TABLE bad (e Enum8('a' = 1, 'b' = 1)) ENGINE = MergeTree ORDER BY tuple(); -- { serverError SYNTAX_ERROR }
SELECT CAST('b' AS Enum8('a' = 1, 'b' = 2)), toIPv4OrNull('x'), toIPv6OrZero('x');
