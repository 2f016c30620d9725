#![allow(clippy::unwrap_used)]
//! Conditionals, arithmetic, strings, arrays, system functions and the catalog
//! (chdb 26.9 values).
mod common;
use common::*;

#[tokio::test]
async fn conditionals() {
    let c = ctx();
    check(&c, "toTypeName(if(1, toUInt8(1), toInt8(-1))), toTypeName(if(1, toUInt8(1), 1.5)), toTypeName(if(1, toFloat32(1), toInt32(1))), toTypeName(if(1, 'a', toFixedString('b',1))), toTypeName(if(1, toDate('2024-01-01'), now())), toTypeName(if(1, NULL, 1)), if(NULL, 1, 2)",
        "String\tString\tString\tString\tString\tString\tInt64", "Int16\tFloat64\tFloat64\tString\tDateTime\tNullable(Int64)\t2").await;
    check(&c, "toTypeName(ifNull(toNullable(1), 2)), toTypeName(ifNull(1, 2)), toTypeName(ifNull(NULL, 2)), toTypeName(ifNull(toNullable(1), toNullable(2))), nullIf(1, 1), nullIf(1, 2), toTypeName(assumeNotNull(toNullable(1))), toTypeName(toNullable(toNullable(1)))",
        "String\tString\tString\tString\tNullable(Int64)\tNullable(Int64)\tString\tString", "Int64\tInt64\tInt64\tNullable(Int64)\t\\N\t1\tInt64\tNullable(Int64)").await;
    check(&c, "multiIf(1, 'a', 0, 'b', 'c'), multiIf(0, 1, 0, 2, 3), toTypeName(if(1, toDateTime64(now(), 3), now())), isNull(NULL), isNotNull(1), toTypeName(isNull(1))",
        "String\tInt64\tString\tUInt8\tUInt8\tString", "a\t3\tDateTime64(3)\t1\t1\tUInt8").await;
    check_query(&c, "SELECT if(x > 2, 'big', 'small'), ifNull(x, -1), isNull(x), multiIf(n = 0, 'zero', n = 1, 'one', 'many'), assumeNotNull(x) FROM t ORDER BY n",
        "String\tInt64\tUInt8\tString\tInt32",
        "small\t1\t0\tzero\t1\nsmall\t-1\t1\tone\t0\nbig\t3\t0\tmany\t3\nsmall\t-1\t1\tmany\t0\nbig\t5\t0\tmany\t5").await;
    check_error(&c, "SELECT if(1, 1, 'a')", 386).await;
    check_error(&c, "SELECT multiIf(1, 2)", 42).await;
}

#[tokio::test]
async fn arithmetic() {
    let c = ctx();
    check(&c, "toTypeName(plus(toUInt8(1), toUInt8(1))), toTypeName(plus(toInt32(1), toInt32(1))), toTypeName(plus(toUInt8(1), toInt8(1))), toTypeName(plus(toUInt64(1), toInt64(1))), toTypeName(plus(toFloat32(1), toInt8(1))), toTypeName(minus(toUInt8(1), toUInt8(2))), minus(toUInt8(1), toUInt8(2)), toTypeName(multiply(toUInt8(1), toUInt16(1)))",
        "String\tString\tString\tString\tString\tString\tInt16\tString", "UInt16\tInt64\tInt16\tInt64\tFloat64\tInt16\t-1\tUInt32").await;
    check(&c, "divide(toUInt8(1), toUInt8(2)), divide(1, 0), divide(-1, 0), divide(0, 0), toTypeName(intDiv(toUInt8(7), toUInt8(2))), toTypeName(intDiv(toInt32(7), toUInt8(2))), toTypeName(intDiv(toUInt8(7), toInt32(2))), toTypeName(intDiv(7.5, 2)), intDiv(toInt8(-7), toUInt8(2))",
        "Float64\tFloat64\tFloat64\tFloat64\tString\tString\tString\tString\tInt8", "0.5\tinf\t-inf\tnan\tUInt8\tInt32\tInt8\tInt64\t-3").await;
    check(&c, "toTypeName(modulo(toUInt8(7), toUInt8(2))), toTypeName(modulo(toInt32(7), toUInt8(2))), toTypeName(modulo(toUInt32(7), toInt8(2))), modulo(toInt8(-7), toUInt8(2)), modulo(toUInt8(7), toInt8(-2)), modulo(7.5, 2), modulo(-7.5, 2)",
        "String\tString\tString\tInt16\tUInt8\tFloat64\tFloat64", "UInt8\tInt16\tUInt8\t-1\t1\t1.5\t-1.5").await;
    check(&c, "plus(toUInt64(18446744073709551615), toUInt8(1)), plus(toInt64(9223372036854775807), toInt8(1)), plus(toDate('2024-01-01'), 1), minus(toDate('2024-01-02'), toDate('2024-01-01')), toTypeName(plus(now(), 1))",
        "UInt64\tInt64\tDate\tInt32\tString", "0\t-9223372036854775808\t2024-01-02\t1\tDateTime").await;
    check_error(&c, "SELECT intDiv(1, 0)", 153).await;
    check_error(&c, "SELECT modulo(1, 0)", 153).await;
    check(&c, "equals(1, 1), notEquals(1, 1), less(toUInt64(18446744073709551615), toInt64(-1)), greater('b', 'a'), lessOrEquals(1, 1.5), greaterOrEquals(toDate('2024-01-01'), '2024-01-01'), toTypeName(equals(1, 2)), equals(NULL, 1)",
        "UInt8\tUInt8\tUInt8\tUInt8\tUInt8\tUInt8\tString\tNullable(Nothing)", "1\t0\t0\t1\t1\t1\tUInt8\t\\N").await;
}

#[tokio::test]
async fn strings() {
    let c = ctx();
    check(&c, "substring('abcdef', 2), substring('abcdef', 2, 3), substring('abcdef', 0), substring('abcdef', -2), substring('abcdef', -5, 3), substring('abc', -5, 3), substring('abcdef', 2, -1), substring('abcdef', 10), substr('abcdef', -2, -1), SUBSTRING('abcdef', 5, 10)",
        "String\tString\tString\tString\tString\tString\tString\tString\tString\tString", "bcdef\tbcd\t\tef\tbcd\ta\tbcde\t\te\tef").await;
    check(&c, "position('hello', 'l'), position('hello', ''), position('hello', 'z'), position('hello', 'l', 4), position('', ''), lower('ÀBC'), upper('àbc'), length('абв'), length(range(toUInt8(3))), length(''), empty(''), notEmpty('a'), empty(range(toUInt8(0)))",
        "UInt64\tUInt64\tUInt64\tUInt64\tUInt64\tString\tString\tUInt64\tUInt64\tUInt64\tUInt8\tUInt8\tUInt8", "3\t1\t0\t4\t1\tÀbc\tàBC\t6\t3\t0\t1\t1\t1").await;
    check(&c, "concat('a', 1, 2.5), concat('a', NULL), toTypeName(concat('a', toNullable('b'))), startsWith('abc', ''), endsWith('abc', 'bc'), concat()",
        "String\tNullable(Nothing)\tString\tUInt8\tUInt8\tString", "a12.5\t\\N\tNullable(String)\t1\t1\t").await;
    check(&c, "replaceAll('aaa', 'a', 'bb'), replaceAll('abc', '', 'x'), trimBoth('  a b  '), trimLeft(' \ta'), trimRight('a \n'), splitByChar(',', 'a,b,,c'), splitByChar(',', ''), splitByChar(',', 'a,b,c', 2), toTypeName(splitByChar(',', 'a'))",
        "String\tString\tString\tString\tString\tArray(String)\tArray(String)\tArray(String)\tString", "bbbbbb\tabc\ta b\t\ta\ta \n\t['a','b','','c']\t['']\t['a','b']\tArray(String)").await;
    check(&c, "hex('abc'), hex(255), hex(256), hex(0), hex(toInt8(-1)), hex(toInt16(-1)), hex(1.5), hex(toDate('2024-01-01')), hex(toFloat32(1.5)), hex(toUInt64(18446744073709551615)), hex(toDateTime('2024-01-01 00:00:00', 'UTC')), hex(toFixedString('ab', 3)), hex(NULL), hex('')",
        "String\tString\tString\tString\tString\tString\tString\tString\tString\tString\tString\tString\tNullable(Nothing)\tString",
        "616263\tFF\t0100\t00\tFF\tFFFF\t000000000000F83F\t4D0B\t0000C03F\tFFFFFFFFFFFFFFFF\t65920080\t616200\t\\N\t").await;
    check(&c, "lower(toFixedString('AB', 2)), toTypeName(lower(toFixedString('AB', 2))), LOWER('X'), lcase('Y'), REPLACE('ab', 'b', 'c'), length(toFixedString('ab', 4))",
        "FixedString(2)\tString\tString\tString\tString\tUInt64", "ab\tFixedString(2)\tx\ty\tac\t4").await;
    check_query(&c, "SELECT length(s), upper(s), concat(s, '!'), empty(s) FROM t ORDER BY n", "UInt64\tString\tString\tUInt8",
        "1\tA\ta!\t0\n0\t\t!\t1\n3\tABC\tabc!\t0\n1\tB\tb!\t0\n1\tA\ta!\t0").await;
    check_error(&c, "SELECT splitByChar(',,', 'a')", 36).await;
    check_error(&c, "SELECT length(1)", 43).await;
}

#[tokio::test]
async fn arrays() {
    let c = ctx();
    check(&c, "range(toUInt8(5)), toTypeName(range(toUInt8(5))), range(toUInt8(1), toUInt8(5)), range(toUInt8(1), toUInt8(10), toUInt8(3)), toTypeName(range(toInt64(3))), range(toUInt8(0)), range(toUInt8(5), toUInt8(1)), range(toInt8(-3), toUInt8(0)), toTypeName(range(toInt8(-3), toUInt8(0)))",
        "Array(UInt8)\tString\tArray(UInt8)\tArray(UInt8)\tString\tArray(UInt8)\tArray(UInt8)\tArray(Int16)\tString",
        "[0,1,2,3,4]\tArray(UInt8)\t[1,2,3,4]\t[1,4,7]\tArray(Int64)\t[]\t[]\t[-3,-2,-1]\tArray(Int16)").await;
    check_error(&c, "SELECT range(-1)", 69).await;
    check_error(&c, "SELECT range(1, 5, 0)", 69).await;
    check(&c, "has([1,2,3], 2), has([1,2,NULL], NULL), has(['a'], 'b'), has([1,2], 2.0), has([1,2], NULL), toTypeName(has([1],1))",
        "UInt8\tUInt8\tUInt8\tUInt8\tUInt8\tString", "1\t1\t0\t1\t0\tUInt8").await;
    check_query(&c, "SELECT has(groupArray(s), 'abc'), length(groupArray(n)) FROM t", "UInt8\tUInt64", "1\t5").await;
}

#[tokio::test]
async fn system_functions() {
    let c = ctx();
    check(&c, "version(), VERSION() AS v2, currentDatabase(), DATABASE() AS db2, toTypeName(hostName()), toTypeName(uptime()), toTypeName(rand()), toTypeName(rand64()), toTypeName(generateUUIDv4())",
        "String\tString\tString\tString\tString\tString\tString\tString\tString", "24.8.1.1\t24.8.1.1\tdefault\tdefault\tString\tUInt32\tUInt32\tUInt64\tUUID").await;
    check_query(&c, "SELECT greater(uniqExact(rand()), 1), uniqExact(generateUUIDv4()) FROM t", "UInt8\tUInt64", "1\t5").await;
    let (_, rows) = run(&c, "SELECT toString(generateUUIDv4())").await.unwrap();
    let text = &rows[0][0];
    assert_eq!(text.len(), 36);
    assert_eq!(&text[14..15], "4", "version nibble of {text}");
}

#[tokio::test]
async fn catalog_and_case() {
    assert!(granary_functions::is_case_insensitive("SUM"));
    assert!(granary_functions::is_case_insensitive("count"));
    assert!(granary_functions::is_case_insensitive("dateDiff"));
    assert!(!granary_functions::is_case_insensitive("toUInt64"));
    assert!(!granary_functions::is_case_insensitive("any"));
    let c = ctx();
    let catalog = granary_functions::function_catalog(&c.state());
    let find = |n: &str| catalog.iter().find(|f| f.name == n).cloned();
    let count = find("count").expect("count");
    assert!(count.is_aggregate && count.case_insensitive && count.alias_to.is_empty());
    let substr = find("substr").expect("substr");
    assert_eq!(substr.alias_to, "substring");
    assert!(find("toUInt64OrZero").is_some());
    // DataFusion built-ins that stay reachable are listed too.
    assert!(find("sqrt").is_some());
    // Lowercase spellings added for case-insensitive lookup are not listed.
    assert!(find("datediff").is_none());
    assert!(find("dateDiff").is_some());
    // Case-insensitive names work in any case.
    check(&c, "SUM(1), Max(2), DATEDIFF('day', today(), today()), IsNull(1), IFNULL(NULL, 1), COALESCE(NULL, 1)", "Int64\tInt64\tInt64\tUInt8\tInt64\tInt64", "1\t2\t0\t0\t1\t1").await;
    check_error(&c, "SELECT touint64(1)", 46).await;
}
