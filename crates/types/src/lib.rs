//! ClickHouse data types and their Arrow representation.
//!
//! Granary computes on Arrow arrays (DataFusion's vectorized executor), but users see
//! ClickHouse types: type names in `DESCRIBE`, in `JSON` `meta` and in
//! `TabSeparatedWithNamesAndTypes`, and ClickHouse's text rules for values. [`ChType`]
//! is the ClickHouse view; [`ChType::to_arrow`] chooses the physical Arrow type, and
//! the exact ClickHouse type is kept on the Arrow field under [`CH_TYPE_METADATA_KEY`]
//! when Arrow alone cannot tell (e.g. `DateTime` vs `DateTime64(0)`, `LowCardinality`,
//! `Date` vs `Date32`).
//!
//! Mapping (ClickHouse -> Arrow):
//!
//! | ClickHouse | Arrow |
//! |---|---|
//! | `UInt8..UInt64`, `Int8..Int64` | same-width integers |
//! | `Int128` | `Decimal128(38, 0)` (see [`wide`]) |
//! | `UInt128` | `Decimal256(39, 0)` |
//! | `Int256`, `UInt256` | `Decimal256(76, 0)` (`UInt256`: the raw bits, values from 2^255 up sort as negative) |
//! | `Float32`, `Float64` | `Float32`, `Float64` |
//! | `Bool` | `Boolean` |
//! | `String` | `Utf8` |
//! | `FixedString(N)` | `FixedSizeBinary(N)` |
//! | `Date`, `Date32` | `Date32` (days since 1970-01-01) |
//! | `DateTime([tz])` | `Timestamp(Second, tz)` |
//! | `DateTime64(p[, tz])` | `Timestamp(unit, tz)`, unit = smallest of s/ms/us/ns holding `p` digits |
//! | `Decimal(P, S)` | `Decimal128(P, S)` (P <= 38) or `Decimal256(P, S)` |
//! | `Nullable(T)` | `T`'s Arrow type, field nullable |
//! | `LowCardinality(T)` | `T`'s Arrow type (the dictionary encoding is a storage concern) |
//! | `Array(T)` | `List(T)` |
//! | `Tuple(T1, ...)` | `Struct` |
//! | `Map(K, V)` | `Map` |
//! | `UUID` | `FixedSizeBinary(16)` |
//! | `Enum8(...)`, `Enum16(...)` | `Int8`, `Int16` (the element values; names in the type) |
//! | `IPv4` | `UInt32` |
//! | `IPv6` | `FixedSizeBinary(16)` (network order) |
//! | `Time` | `Time32(Second)` (signed seconds, up to ±999:59:59) |
//! | `Time64(p)` | `Time64(Microsecond)` for p <= 6, else `Time64(Nanosecond)` |
//! | `Variant(T1, ...)` | `Struct` of one nullable child per type, named by it |
//! | `Nothing` | `Null` |
//! | `IntervalDay`, `IntervalMonth`, ... | `Int64` (the count of units) |
//!
//! Enums and addresses are "domain" types: Arrow computes on their integers and bytes
//! (sorting, grouping, comparing), and the type in the field metadata decides how values
//! read and print (names, `a.b.c.d`). String literals compared with them are converted
//! at planning (`granary_functions::fixed_string_literals`), and INSERT converts into
//! them with CAST's rules. [`ip`] parses and prints addresses as ClickHouse does.
//!
//! [`text`] holds ClickHouse's text rules for values (output in every escaping style,
//! and parsing text back into typed columns), shared by the formats and by `toString`.

pub mod aggregate_state;
mod chtype;
pub mod ip;
mod parse;
pub mod text;
mod views;
pub mod wide;

pub use chtype::{ChType, IntervalKind, CH_TYPE_METADATA_KEY, NULLABLE_METADATA_KEY};
pub use views::{plain_arguments, without_views};
