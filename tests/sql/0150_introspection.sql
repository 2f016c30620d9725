-- Introspection functions (for system.trace_log): ClickHouse allows them only with
-- allow_introspection_functions = 1. chdb's default is 1, ClickHouse's 0, so each statement says.
SELECT demangle('abc') SETTINGS allow_introspection_functions = 0; -- { serverError FUNCTION_NOT_ALLOWED }
SELECT addressToSymbol(toUInt64(1)) SETTINGS allow_introspection_functions = 0; -- { serverError FUNCTION_NOT_ALLOWED }
SELECT length(addressToLineWithInlines(toUInt64(1))) SETTINGS allow_introspection_functions = 0; -- { serverError FUNCTION_NOT_ALLOWED }
SELECT demangle('_ZN4core3ptr13drop_in_place17h1234567890abcdefE') SETTINGS allow_introspection_functions = 1;
SELECT demangle('_ZNSt6vectorIiSaIiEE9push_backERKi') SETTINGS allow_introspection_functions = 1;
SELECT demangle('abc'), demangle('') SETTINGS allow_introspection_functions = 1;
SELECT demangle(toFixedString('x', 1)) SETTINGS allow_introspection_functions = 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTypeName(demangle('abc')), toTypeName(addressToSymbol(toUInt64(1))), toTypeName(addressToLine(toUInt64(1))), toTypeName(addressToLineWithInlines(toUInt64(1))) SETTINGS allow_introspection_functions = 1;
SELECT addressToSymbol(toUInt64(1)) SETTINGS allow_introspection_functions = 1;
SELECT addressToSymbol(1) SETTINGS allow_introspection_functions = 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addressToLine(toInt64(1)) SETTINGS allow_introspection_functions = 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addressToLineWithInlines('a') SETTINGS allow_introspection_functions = 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT demangle(1) SETTINGS allow_introspection_functions = 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT name FROM system.functions WHERE name IN ('addressToSymbol', 'addressToLine', 'addressToLineWithInlines', 'demangle') ORDER BY name;
SELECT name, default FROM system.settings WHERE name LIKE 'query_profiler_%' ORDER BY name;
