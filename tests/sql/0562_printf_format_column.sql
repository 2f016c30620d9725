-- printf with a format that is a column: each row's format is its own
SELECT f, printf(f, 3, 'x') FROM (SELECT arrayJoin(['%d-%s', 'a%5d|%s', '%%%d%s', '%-4d|%.3s']) AS f) ORDER BY f;
SELECT printf(f, number) FROM (SELECT if(number % 2 = 0, '%03d', '[%x]') AS f, number FROM numbers(6)) ORDER BY number;
SELECT printf(f, number * 1.5, toString(number)) FROM (SELECT concat('%.', toString(number), 'f %s') AS f, number FROM numbers(4)) ORDER BY number;
SELECT printf(f) FROM (SELECT arrayJoin(['abc', '100%%']) AS f) ORDER BY f;
SELECT printf(f) FROM (SELECT arrayJoin(['abc', '']) AS f); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf(''); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf(materialize('%d'), 1), toTypeName(printf(materialize('%d'), 1));
SELECT printf(f, 7), toTypeName(printf(f, 7)) FROM (SELECT toNullable('<%d>') AS f);
SELECT printf(f, 7) FROM (SELECT arrayJoin([toNullable('<%d>'), NULL]) AS f); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf(f, 1) FROM (SELECT arrayJoin(['%d', '%q']) AS f); -- { serverError BAD_ARGUMENTS }
SELECT printf(f, 1) FROM (SELECT arrayJoin(['%d', '%d %d']) AS f); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT printf(toFixedString('%d', 2), 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT printf(1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
