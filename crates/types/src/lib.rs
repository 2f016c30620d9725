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
//! | `Nothing` | `Null` |
//! | `IntervalDay`, `IntervalMonth`, ... | `Int64` (the count of units) |
//!
//! [`ip`] parses and prints IPv4/IPv6 addresses as ClickHouse does (held as `UInt32` and
//! `FixedString(16)` values: Granary has no IP column types yet).
//!
//! [`text`] holds ClickHouse's text rules for values (output in every escaping style,
//! and parsing text back into typed columns), shared by the formats and by `toString`.

pub mod aggregate_state;
mod chtype;
pub mod ip;
mod parse;
pub mod text;

pub use chtype::{ChType, IntervalKind, CH_TYPE_METADATA_KEY, NULLABLE_METADATA_KEY};
