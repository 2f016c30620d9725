-- bar: ClickHouse's Unicode blocks, in eighths
SELECT number, bar(number, 0, 10, 20) FROM numbers(11) ORDER BY number;
SELECT bar(-5, 0, 10, 5), bar(15, 0, 10, 5), bar(2.5, 0, 10, 7), bar(3, 0, 10), toTypeName(bar(1, 0, 10));
SELECT bar(1, 10, 0, 5), bar(nan, 0, 10), bar(toNullable(3), 0, 10, 3), toTypeName(bar(toNullable(3), 0, 10, 3));
SELECT bar(5, 0, 10, 2.5), bar(0.3, 0, 10, 10), bar(1, 0, 1, 1), bar(0.125, 0, 1, 1), bar(0.0625, 0, 1, 1), bar(0.99, 0, 1, 1), bar(1, 0, 1, 1.5);
SELECT number, bar(5, 0, number + 10) FROM numbers(2) ORDER BY number;
SELECT bar(1, 0, 10, 0); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT bar(1, 0, 10, 1001); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT bar('a', 0, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bar(1, 0); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- constants and the server
SELECT e(), toTypeName(e());
SELECT currentUser(), user(), toTypeName(currentUser());
SELECT tcpPort(), toTypeName(tcpPort()), toTypeName(FQDN()), fqdn() = FQDN(), fullHostName() = FQDN(), FQDN() = hostName();
SELECT toTypeName(serverUUID()), serverUUID() = serverUUID(), shardNum(), shardCount(), toTypeName(shardNum()), toTypeName(shardCount());
SELECT queryID() = currentQueryID(), initialQueryID() = queryID(), query_id() = queryID(), length(queryID()) > 0, toTypeName(queryID());
-- settings
SELECT getSetting('max_threads') > 0, toTypeName(getSetting('max_block_size')), getSetting('max_block_size');
SELECT getSettingOrDefault('max_block_size', 5), getSettingOrDefault('no_such_setting', 5), toTypeName(getSettingOrDefault('no_such', 'x')), getSettingOrDefault('nope', NULL);
SELECT getSetting('no_such'); -- { serverError UNKNOWN_SETTING }
SELECT getSetting(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT getSettingOrDefault('x'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT getServerSetting('max_concurrent_queries'), toTypeName(getServerSetting('max_concurrent_queries'));
SELECT getServerSetting('no_such'); -- { serverError UNKNOWN_SETTING }
-- tables and blocks
CREATE TABLE t (a UInt8, s String) ENGINE = Memory;
SELECT hasColumnInTable(currentDatabase(), 't', 'a'), hasColumnInTable(currentDatabase(), 't', 'b'), hasColumnInTable('system', 'one', 'dummy'), hasColumnInTable('system', 'one', 'x'), toTypeName(hasColumnInTable('system', 'one', 'dummy'));
SELECT hasColumnInTable('system', 'nope', 'x'); -- { serverError UNKNOWN_TABLE }
SELECT hasColumnInTable(currentDatabase(), 'nope', 'x'); -- { serverError UNKNOWN_TABLE }
SELECT blockSize(), rowNumberInBlock() FROM numbers(3) ORDER BY 2;
SELECT toTypeName(blockSize()), toTypeName(rowNumberInBlock());
-- values as columns
SELECT byteSize(1), byteSize('abc'), byteSize([1, 2, 3]), byteSize(toUInt64(1), 'a'), toTypeName(byteSize(1)), byteSize(NULL), byteSize(toNullable(1)), byteSize(tuple(1, 'ab')), byteSize(map('a', 1));
SELECT byteSize(toDecimal32(1, 2)), byteSize(toFixedString('ab', 5)), byteSize(toDate('2020-01-01')), byteSize(toUUID('00000000-0000-0000-0000-000000000000')), byteSize(''), byteSize(toInt128(1)), byteSize(true), byteSize(1.5);
SELECT byteSize(CAST('a' AS Enum8('a' = 1))), byteSize([[1], [2, 3]]), byteSize(['a', 'bc']), byteSize(toDateTime64('2020-01-01 00:00:00', 3)), byteSize(toIPv4('1.2.3.4')), byteSize(toIPv6('::1')), byteSize(tuple()), byteSize();
SELECT number, byteSize(number), byteSize(toString(number)) FROM numbers(2) ORDER BY number;
SELECT errorCodeToName(0), errorCodeToName(60), errorCodeToName(-1), errorCodeToName(1000000), toTypeName(errorCodeToName(60));
SELECT errorCodeToName(toUInt8(60)), errorCodeToName(toNullable(60)), toTypeName(errorCodeToName(toNullable(60)));
SELECT number, errorCodeToName(number) FROM numbers(3) ORDER BY number;
SELECT errorCodeToName('a'); -- { serverError BAD_ARGUMENTS }
SELECT isConstant(1), isConstant(number), isConstant(materialize(1)), isConstant(NULL), isConstant([1]), isConstant(number + 1), isConstant(1 + 2), toTypeName(isConstant(1)) FROM numbers(1);
SELECT dumpColumnStructure(1), dumpColumnStructure(number), dumpColumnStructure('a'), dumpColumnStructure(toNullable(1)), dumpColumnStructure([1, 2]) FROM numbers(1);
SELECT dumpColumnStructure(toDate('2020-01-01')), dumpColumnStructure(materialize(toDate('2020-01-01'))), dumpColumnStructure(materialize('ab')), dumpColumnStructure(materialize(toNullable(1))), dumpColumnStructure(materialize([1, 2]));
SELECT dumpColumnStructure(materialize((1, 'a'))), dumpColumnStructure(materialize(toFixedString('a', 2))), dumpColumnStructure(materialize(toDecimal32(1, 2))), dumpColumnStructure(materialize(1.5)), dumpColumnStructure(NULL);
SELECT dumpColumnStructure(materialize(CAST('a' AS Enum8('a' = 1)))), dumpColumnStructure(materialize(toDateTime('2020-01-01 00:00:00', 'UTC'))), dumpColumnStructure(materialize(toUUID('00000000-0000-0000-0000-000000000000'))), dumpColumnStructure(materialize(map('a', 1))), dumpColumnStructure(materialize(true)), dumpColumnStructure(materialize(toIPv4('1.1.1.1')));
SELECT dumpColumnStructure(materialize(toDateTime64('2020-01-01 00:00:00', 3, 'UTC'))), dumpColumnStructure(materialize(toInt128(1))), dumpColumnStructure(materialize(toDate32('2020-01-01'))), dumpColumnStructure(materialize(toIPv6('::1'))), dumpColumnStructure(materialize(toDecimal64(1, 2)));
-- defaults
SELECT defaultValueOfArgumentType(1), defaultValueOfArgumentType('a'), defaultValueOfArgumentType(toNullable(1)), toTypeName(defaultValueOfArgumentType(toDate('2020-01-01'))), defaultValueOfArgumentType([1]), defaultValueOfArgumentType(toDateTime('2020-01-01 00:00:00', 'UTC'));
SELECT defaultValueOfTypeName('UInt8'), defaultValueOfTypeName('Nullable(Int8)'), toTypeName(defaultValueOfTypeName('Array(String)')), defaultValueOfTypeName('String'), defaultValueOfTypeName('Date');
SELECT defaultValueOfTypeName('Enum8(\'a\' = 2, \'b\' = 3)'), defaultValueOfTypeName('Tuple(UInt8, String)'), defaultValueOfTypeName('Decimal(9,2)'), defaultValueOfTypeName('UUID'), defaultValueOfTypeName('Map(String, UInt8)'), defaultValueOfTypeName('FixedString(3)'), toTypeName(defaultValueOfTypeName('FixedString(3)'));
SELECT defaultValueOfTypeName('Nope'); -- { serverError UNKNOWN_TYPE }
SELECT defaultValueOfTypeName(materialize('UInt8')); -- { serverError ILLEGAL_COLUMN }
SELECT getSizeOfEnumType(CAST('a' AS Enum8('a' = 1, 'b' = 2))), toTypeName(getSizeOfEnumType(CAST('a' AS Enum8('a' = 1, 'b' = 2))));
SELECT getSizeOfEnumType(CAST('a' AS Enum16('a' = 1, 'b' = 2, 'c' = 300))), toTypeName(getSizeOfEnumType(CAST('a' AS Enum16('a' = 1, 'b' = 2, 'c' = 300))));
SELECT getSizeOfEnumType(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- text
SELECT toStringCutToZero('ab\0cd'), toStringCutToZero(toFixedString('ab', 5)), toTypeName(toStringCutToZero('a'));
SELECT toStringCutToZero(materialize('abc\0')), toStringCutToZero(toNullable('x\0y')), toTypeName(toStringCutToZero(toNullable('x')));
SELECT toStringCutToZero(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT visibleWidth(1), visibleWidth('абв'), visibleWidth(NULL), visibleWidth([1, 2]), visibleWidth(toDate('2020-01-01')), visibleWidth('a\tb'), toTypeName(visibleWidth(1)), visibleWidth(1.5);
SELECT visibleWidth('中文'), visibleWidth('a\nb'), visibleWidth(toDateTime('2020-01-01 00:00:00', 'UTC')), visibleWidth(tuple(1, 'a')), visibleWidth('\x01'), visibleWidth('é'), visibleWidth(toNullable(12)), visibleWidth(-1.25e-10), visibleWidth(map('a', 1));
SELECT visibleWidth('abcdefgh\tb'), visibleWidth('\t'), visibleWidth('ab\\c');
-- system.functions
SELECT name, alias_to FROM system.functions WHERE name IN ('bar', 'e', 'currentUser', 'user', 'queryID', 'currentQueryID', 'initialQueryID', 'query_id', 'getSetting', 'getSettingOrDefault', 'getServerSetting', 'blockSize', 'rowNumberInBlock', 'byteSize', 'errorCodeToName', 'isConstant', 'hasColumnInTable', 'tcpPort', 'FQDN', 'fullHostName', 'serverUUID', 'shardNum', 'shardCount', 'dumpColumnStructure', 'defaultValueOfArgumentType', 'defaultValueOfTypeName', 'getSizeOfEnumType', 'toStringCutToZero', 'visibleWidth') ORDER BY name;
