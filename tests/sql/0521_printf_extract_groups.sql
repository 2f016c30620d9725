-- printf with C format specifiers over constants, columns and NULLs; extractGroups.
CREATE TABLE t (id UInt32, s String, ns Nullable(String), i Int64, u UInt64, f Float64, nf Nullable(Float32)) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, 'ab', 'x', -5, 255, 3.14159, 0.1), (2, '', NULL, 0, 0, -0.0, NULL), (3, 'hello world', 'yy', 9223372036854775807, 18446744073709551615, 1e-10, 1e10), (4, 'k=v; a=b', '', -1, 8, 12345.678, -2.5);
SELECT printf('%d %s %.2f %%', 1, 'a', 3.14159), printf('%5d|%-5d|%05d', 42, 42, 42), printf('%x %X %o %e %g', 255, 255, 8, 12345.678, 0.0001);
SELECT printf('%u|%x|%o|%c|%i', -1, -1, -1, 65, -3), printf('%ld %lld %hd %lu', 1, 2, 3, 4), printf('100%% %d%%', 5), printf('abc'), printf('%%');
SELECT printf('%+d|% d|%#x|%#o|%-6s|%6s|%.2s|%10.3f|%-10.3e|%G|%E|%a', 5, 5, 255, 8, 'ab', 'ab', 'abcdef', 3.14159, 3.14159, 1e-10, 1e10, 1.0);
SELECT printf('%.3g|%g|%g|%g|%g|%#g|%g', 1234567.0, 100000.0, 1000000.0, 0.00001, 0.0, 1.5, 123456789.0);
SELECT printf('%.0f|%.0f|%.0f|%f|%F|%e', 0.5, 1.5, 2.5, inf, -inf, nan), printf('%a|%A|%.2a|%a', 0.1, 255.5, 1.999, 0.0);
SELECT printf('%X %#X %#x %#08x %08.3f %+.1e', toUInt64(18446744073709551615), 0, 0, 255, -3.14159, 12345.0), printf('%5c|%-3c|', 65, 66);
SELECT printf('%d', toUInt64(18446744073709551615)), printf('%i', toInt8(-5)), printf('%u', toInt8(-5)), printf('%x', toInt8(-5)), printf('%f', toFloat32(0.1));
SELECT printf('%05s|%+s|%.1d|%.5d|%-05d|%+05d', 'ab', 'ab', 5, 5, 5, 5), printf('%s|', toFixedString('ab', 2));
SELECT printf('%s %d', NULL, 1), printf('%s', toNullable('a')), toTypeName(printf('%s', toNullable('a')));
SELECT id, printf('[%s] [%-12s] [%d] [%x] [%u]', s, s, i, u, i), printf('%.3f|%g|%e', f, f, f), printf('<%s> %.2f', ns, nf) FROM t ORDER BY id;
SELECT printf('%f', 1); -- { serverError BAD_ARGUMENTS }
SELECT printf('%d', 1.5); -- { serverError BAD_ARGUMENTS }
SELECT printf('%s', 1); -- { serverError BAD_ARGUMENTS }
SELECT printf('%d', 'a'); -- { serverError BAD_ARGUMENTS }
SELECT printf('%p', 1); -- { serverError BAD_ARGUMENTS }
SELECT printf('%d'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf('%d %d', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf('%d', 1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf('%'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf('%d', toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT printf(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT extractGroups('abc=123, 8="hkl"', '("[^"]+"|\\w+)=("[^"]+"|\\w+)'), extractGroups('abc', 'x(y)'), extractGroups('ab', '(x)?(b)'), extractGroups(toFixedString('ab', 2), 'a(b)');
SELECT extractGroups(toNullable('ab'), 'a(b)'), toTypeName(extractGroups(toNullable('ab'), 'a(b)')), extractGroups('2024-01-15', '(\\d+)-(\\d+)-(\\d+)');
SELECT id, extractGroups(s, '(\\w+)\\W+(\\w+)'), extractGroups(ns, '(y)(y)?') FROM t ORDER BY id;
SELECT extractGroups('abc', 'abc'); -- { serverError BAD_ARGUMENTS }
SELECT extractGroups('abc', ''); -- { serverError BAD_ARGUMENTS }
SELECT extractGroups('ab', '('); -- { serverError CANNOT_COMPILE_REGEXP }
SELECT extractGroups(materialize('ab'), materialize('a(b)')); -- { serverError ILLEGAL_COLUMN }
