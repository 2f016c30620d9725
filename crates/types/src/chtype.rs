use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef, TimeUnit};
use granary_common::{Error, ErrorCode, Result};

/// Key of the Arrow field metadata entry that holds the exact ClickHouse type name.
pub const CH_TYPE_METADATA_KEY: &str = "granary.ch_type";

/// Marks a non-nullable Arrow field whose ClickHouse type is `Nullable`: DataFusion drops
/// nullability when it folds a constant such as `toNullable(1)`, the type must not change.
pub const NULLABLE_METADATA_KEY: &str = "granary.nullable";

/// A ClickHouse data type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ChType {
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Int8,
    Int16,
    Int32,
    Int64,
    /// `Int128`..`UInt256`: wide integers, held as scale-0 Arrow decimals (see [`crate::wide`]).
    Int128,
    UInt128,
    Int256,
    UInt256,
    Float32,
    Float64,
    Bool,
    String,
    FixedString(usize),
    Date,
    Date32,
    /// `DateTime` with an optional explicit time zone.
    DateTime(Option<String>),
    /// `DateTime64(precision[, tz])`, precision 0..=9.
    DateTime64(u8, Option<String>),
    /// `Time`: signed seconds up to ±999:59:59 (a duration, not a time of day).
    Time,
    /// `Time64(precision)`: `Time` with `precision` (0..=9) fraction digits.
    Time64(u8),
    /// `Decimal(precision, scale)`.
    Decimal(u8, u8),
    Uuid,
    /// `Enum8('a' = 1, ...)`: named `Int8` values, elements sorted by value.
    Enum8(Vec<(String, i16)>),
    /// `Enum16('a' = 1000, ...)`: named `Int16` values, elements sorted by value.
    Enum16(Vec<(String, i16)>),
    /// An IPv4 address: `UInt32`, shown as `a.b.c.d`.
    IPv4,
    /// An IPv6 address: 16 bytes in network order, shown as ClickHouse formats IPv6.
    IPv6,
    Nullable(Box<ChType>),
    LowCardinality(Box<ChType>),
    Array(Box<ChType>),
    /// `Tuple(T1, T2)` or `Tuple(a T1, b T2)`; unnamed elements are named `1`, `2`, ...
    Tuple(Vec<(String, ChType)>),
    Map(Box<ChType>, Box<ChType>),
    Nothing,
    /// `AggregateFunction(f, T1, ...)`: the intermediate state of aggregate `f` (with
    /// its parameters, e.g. `quantile(0.5)`) over arguments `T1, ...`, as produced by
    /// `-State` and read by `-Merge`. Held as Arrow `Binary`, one serialized state per row.
    AggregateFunction(String, Vec<ChType>),
    /// `SimpleAggregateFunction(f, T)`: a value of `T` that AggregatingMergeTree (and
    /// SummingMergeTree) combine with `f` (`sum`, `min`, `max`, `any`, `anyLast`, ...)
    /// when rows with equal keys meet. Held as `T`.
    SimpleAggregateFunction(String, Box<ChType>),
    /// `Variant(T1, T2, ...)`: each value is of one of the types (or NULL). The types are
    /// kept sorted by name, as ClickHouse orders them (their index is the discriminator).
    ///
    /// Held as an Arrow `Struct` with one nullable child per type (named by the type) and
    /// a row's value in its type's child, the other children NULL; a NULL row is a null
    /// struct. Arrow's `Union` would be the natural fit, but DataFusion cannot filter,
    /// project through joins, hash or store unions everywhere structs work, and
    /// ClickHouse does not order or compare Variant columns anyway.
    Variant(Vec<ChType>),
    /// `IntervalDay`, `IntervalMonth`, ...: a count of one calendar unit, held as `Int64`.
    /// Added to dates and times (`d + INTERVAL 1 MONTH`), it moves them by that unit.
    Interval(IntervalKind),
}

/// The unit of a ClickHouse `Interval*` type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalKind {
    Nanosecond,
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl IntervalKind {
    pub const ALL: [IntervalKind; 11] = [
        IntervalKind::Nanosecond,
        IntervalKind::Microsecond,
        IntervalKind::Millisecond,
        IntervalKind::Second,
        IntervalKind::Minute,
        IntervalKind::Hour,
        IntervalKind::Day,
        IntervalKind::Week,
        IntervalKind::Month,
        IntervalKind::Quarter,
        IntervalKind::Year,
    ];

    /// The unit's name as in `IntervalDay` and `toIntervalDay`.
    pub fn name(self) -> &'static str {
        match self {
            IntervalKind::Nanosecond => "Nanosecond",
            IntervalKind::Microsecond => "Microsecond",
            IntervalKind::Millisecond => "Millisecond",
            IntervalKind::Second => "Second",
            IntervalKind::Minute => "Minute",
            IntervalKind::Hour => "Hour",
            IntervalKind::Day => "Day",
            IntervalKind::Week => "Week",
            IntervalKind::Month => "Month",
            IntervalKind::Quarter => "Quarter",
            IntervalKind::Year => "Year",
        }
    }

    /// The unit of a SQL `INTERVAL n <unit>` keyword or a `dateDiff`-style unit name
    /// (`day`, `DAYS`, `dd`, ...).
    pub fn from_unit_name(text: &str) -> Option<IntervalKind> {
        Some(match text.to_ascii_lowercase().as_str() {
            "nanosecond" | "nanoseconds" | "ns" => IntervalKind::Nanosecond,
            "microsecond" | "microseconds" | "us" | "u" => IntervalKind::Microsecond,
            "millisecond" | "milliseconds" | "ms" => IntervalKind::Millisecond,
            "second" | "seconds" | "ss" | "s" => IntervalKind::Second,
            "minute" | "minutes" | "mi" | "n" => IntervalKind::Minute,
            "hour" | "hours" | "hh" | "h" => IntervalKind::Hour,
            "day" | "days" | "dd" | "d" => IntervalKind::Day,
            "week" | "weeks" | "wk" | "ww" => IntervalKind::Week,
            "month" | "months" | "mm" | "m" => IntervalKind::Month,
            "quarter" | "quarters" | "qq" | "q" => IntervalKind::Quarter,
            "year" | "years" | "yyyy" | "yy" => IntervalKind::Year,
            _ => return None,
        })
    }

    /// Sub-second units: adding them to a DateTime makes a DateTime64 of this precision.
    pub fn sub_second_precision(self) -> Option<u8> {
        match self {
            IntervalKind::Nanosecond => Some(9),
            IntervalKind::Microsecond => Some(6),
            IntervalKind::Millisecond => Some(3),
            _ => None,
        }
    }
}

impl ChType {
    /// Parses a ClickHouse type name such as `Nullable(DateTime64(3, 'UTC'))`.
    pub fn parse(text: &str) -> Result<ChType> {
        crate::parse::parse_type(text)
    }

    pub fn is_nullable(&self) -> bool {
        matches!(self, ChType::Nullable(_))
    }

    /// The type without `Nullable`, `LowCardinality` and `SimpleAggregateFunction` wrappers.
    pub fn base(&self) -> &ChType {
        match self {
            ChType::Nullable(inner) | ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => inner.base(),
            other => other,
        }
    }

    /// The type with every `LowCardinality` inside it removed (ClickHouse's recursive
    /// `removeLowCardinality`).
    pub fn without_low_cardinality(&self) -> ChType {
        match self {
            ChType::LowCardinality(inner) => inner.without_low_cardinality(),
            ChType::Nullable(inner) => ChType::Nullable(Box::new(inner.without_low_cardinality())),
            ChType::Array(inner) => ChType::Array(Box::new(inner.without_low_cardinality())),
            ChType::Tuple(items) => ChType::Tuple(items.iter().map(|(n, t)| (n.clone(), t.without_low_cardinality())).collect()),
            ChType::Map(k, v) => ChType::Map(Box::new(k.without_low_cardinality()), Box::new(v.without_low_cardinality())),
            other => other.clone(),
        }
    }

    /// Whether this type or any type inside it satisfies `pred`.
    pub fn contains(&self, pred: &dyn Fn(&ChType) -> bool) -> bool {
        pred(self)
            || match self {
                ChType::Nullable(inner) | ChType::LowCardinality(inner) | ChType::Array(inner) | ChType::SimpleAggregateFunction(_, inner) => inner.contains(pred),
                ChType::Tuple(items) => items.iter().any(|(_, t)| t.contains(pred)),
                ChType::Map(k, v) => k.contains(pred) || v.contains(pred),
                ChType::AggregateFunction(_, args) | ChType::Variant(args) => args.iter().any(|t| t.contains(pred)),
                _ => false,
            }
    }

    /// `Variant` of these types: sorted by name and without repeats, as ClickHouse makes it.
    pub fn new_variant(mut types: Vec<ChType>) -> ChType {
        types.sort_by_cached_key(ChType::to_string);
        types.dedup();
        ChType::Variant(types)
    }

    /// The types of a `Variant` (under LowCardinality wrappers), in discriminator order.
    pub fn variant_types(&self) -> Option<&[ChType]> {
        match self.base() {
            ChType::Variant(types) => Some(types),
            _ => None,
        }
    }

    /// The type without an outer `Nullable`.
    pub fn strip_nullable(&self) -> &ChType {
        match self {
            ChType::Nullable(inner) => inner,
            other => other,
        }
    }

    /// Wraps in `Nullable` unless it already is (ClickHouse's `makeNullable`; arrays
    /// and maps cannot be inside Nullable so they are returned unchanged, tuples can
    /// since ClickHouse 25: `if(c, NULL, (1, 'a'))` is `Nullable(Tuple(UInt8, String))`).
    pub fn into_nullable(self) -> ChType {
        match self {
            ChType::Nullable(_) | ChType::Array(_) | ChType::Map(..) => self,
            ChType::LowCardinality(inner) => ChType::LowCardinality(Box::new(inner.into_nullable())),
            other => ChType::Nullable(Box::new(other)),
        }
    }

    /// The Arrow type that holds values of this type.
    pub fn to_arrow(&self) -> DataType {
        match self {
            ChType::UInt8 => DataType::UInt8,
            ChType::UInt16 => DataType::UInt16,
            ChType::UInt32 => DataType::UInt32,
            ChType::UInt64 => DataType::UInt64,
            ChType::Int8 => DataType::Int8,
            ChType::Int16 => DataType::Int16,
            ChType::Int32 => DataType::Int32,
            ChType::Int64 => DataType::Int64,
            ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => crate::wide::WideInt::of(self).map_or(DataType::Null, |w| w.arrow_type()),
            ChType::Float32 => DataType::Float32,
            ChType::Float64 => DataType::Float64,
            ChType::Bool => DataType::Boolean,
            ChType::String => DataType::Utf8,
            ChType::FixedString(n) => DataType::FixedSizeBinary(*n as i32),
            ChType::Uuid | ChType::IPv6 => DataType::FixedSizeBinary(16),
            ChType::Enum8(_) => DataType::Int8,
            ChType::Enum16(_) => DataType::Int16,
            ChType::IPv4 => DataType::UInt32,
            ChType::Date | ChType::Date32 => DataType::Date32,
            ChType::DateTime(tz) => DataType::Timestamp(TimeUnit::Second, tz.as_deref().map(Arc::from)),
            ChType::DateTime64(p, tz) => DataType::Timestamp(time_unit_for_precision(*p), tz.as_deref().map(Arc::from)),
            // Arrow's time types keep the type through every expression (an integer with
            // metadata would not); Arrow never checks that they stay within a day. Only
            // `Time64` reaches 999 hours in 1..=3 digits, hence microseconds there.
            ChType::Time => DataType::Time32(TimeUnit::Second),
            ChType::Time64(p) if *p <= 6 => DataType::Time64(TimeUnit::Microsecond),
            ChType::Time64(_) => DataType::Time64(TimeUnit::Nanosecond),
            ChType::Decimal(p, s) if *p <= 38 => DataType::Decimal128(*p, *s as i8),
            ChType::Decimal(p, s) => DataType::Decimal256(*p, *s as i8),
            ChType::Nullable(inner) | ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => inner.to_arrow(),
            ChType::Array(inner) => DataType::List(Arc::new(inner.to_arrow_field("item"))),
            ChType::Tuple(elements) => {
                DataType::Struct(elements.iter().map(|(name, t)| Arc::new(t.to_arrow_field(name))).collect())
            }
            ChType::Map(k, v) => {
                let entries = Field::new(
                    "entries",
                    // Arrow map keys are never null, also those of `Map(Nothing, Nothing)`
                    // (`map()`), whose key column is an empty `Null` array.
                    DataType::Struct(vec![Arc::new(k.to_arrow_field("key").with_nullable(false)), Arc::new(v.to_arrow_field("value"))].into()),
                    false,
                );
                DataType::Map(Arc::new(entries), false)
            }
            ChType::Nothing => DataType::Null,
            ChType::Variant(types) => DataType::Struct(types.iter().map(|t| Arc::new(t.to_arrow_field(&t.to_string()).with_nullable(true))).collect()),
            ChType::AggregateFunction(..) => DataType::Binary,
            ChType::Interval(_) => DataType::Int64,
        }
    }

    /// An Arrow field of this type: nullable iff `Nullable`, with the exact ClickHouse
    /// type in the metadata when Arrow's type does not determine it.
    pub fn to_arrow_field(&self, name: &str) -> Field {
        // `LowCardinality(Nullable(T))` holds NULLs too, so its field must be nullable.
        let holds_nulls = match self {
            ChType::LowCardinality(inner) => inner.is_nullable(),
            ChType::SimpleAggregateFunction(_, inner) => inner.is_nullable() || matches!(inner.as_ref(), ChType::LowCardinality(t) if t.is_nullable()),
            other => other.is_nullable() || matches!(other, ChType::Nothing | ChType::Variant(_)),
        };
        let field = Field::new(name, self.to_arrow(), holds_nulls);
        if ChType::from_arrow(field.data_type(), field.is_nullable()) == *self {
            field
        } else {
            field.with_metadata(HashMap::from([(CH_TYPE_METADATA_KEY.to_string(), self.to_string())]))
        }
    }

    /// The ClickHouse type of an Arrow field: the metadata's if present, else derived.
    pub fn from_field(field: &Field) -> ChType {
        let marked_nullable = !field.is_nullable() && field.metadata().get(NULLABLE_METADATA_KEY).is_some_and(|v| v == "1");
        let t = field
            .metadata()
            .get(CH_TYPE_METADATA_KEY)
            .and_then(|name| ChType::parse(name).ok())
            .filter(|t| t.to_arrow() == *field.data_type())
            .unwrap_or_else(|| ChType::from_arrow(field.data_type(), field.is_nullable()));
        if marked_nullable {
            t.into_nullable()
        } else {
            t
        }
    }

    /// Same as [`ChType::from_field`] for a shared field.
    pub fn from_field_ref(field: &FieldRef) -> ChType {
        Self::from_field(field.as_ref())
    }

    /// The ClickHouse type a value of this Arrow type is shown as.
    pub fn from_arrow(data_type: &DataType, nullable: bool) -> ChType {
        let base = match data_type {
            DataType::Null => return ChType::Nullable(Box::new(ChType::Nothing)),
            DataType::Boolean => ChType::Bool,
            DataType::UInt8 => ChType::UInt8,
            DataType::UInt16 => ChType::UInt16,
            DataType::UInt32 => ChType::UInt32,
            DataType::UInt64 => ChType::UInt64,
            DataType::Int8 => ChType::Int8,
            DataType::Int16 => ChType::Int16,
            DataType::Int32 => ChType::Int32,
            DataType::Int64 => ChType::Int64,
            DataType::Float16 | DataType::Float32 => ChType::Float32,
            DataType::Float64 => ChType::Float64,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => ChType::String,
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => ChType::String,
            DataType::FixedSizeBinary(n) => ChType::FixedString(*n as usize),
            DataType::Date32 | DataType::Date64 => ChType::Date32,
            DataType::Timestamp(unit, tz) => {
                let tz = tz.as_deref().map(str::to_string);
                match unit {
                    TimeUnit::Second => ChType::DateTime(tz),
                    TimeUnit::Millisecond => ChType::DateTime64(3, tz),
                    TimeUnit::Microsecond => ChType::DateTime64(6, tz),
                    TimeUnit::Nanosecond => ChType::DateTime64(9, tz),
                }
            }
            DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
                ChType::Decimal(*p, (*s).max(0) as u8)
            }
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) | DataType::ListView(f) | DataType::LargeListView(f) => {
                return ChType::Array(Box::new(ChType::from_field(f)));
            }
            DataType::Struct(fields) => {
                return ChType::Tuple(fields.iter().map(|f| (f.name().clone(), ChType::from_field(f))).collect());
            }
            DataType::Map(entries, _) => {
                if let DataType::Struct(kv) = entries.data_type() {
                    if kv.len() == 2 {
                        return ChType::Map(Box::new(ChType::from_field(&kv[0])), Box::new(ChType::from_field(&kv[1])));
                    }
                }
                ChType::String
            }
            DataType::Dictionary(_, value) => {
                let inner = ChType::from_arrow(value, nullable);
                return ChType::LowCardinality(Box::new(inner));
            }
            DataType::Time32(TimeUnit::Second) => ChType::Time,
            DataType::Time32(_) => ChType::Time64(3),
            DataType::Time64(TimeUnit::Nanosecond) => ChType::Time64(9),
            DataType::Time64(_) => ChType::Time64(6),
            // Durations, intervals and unions have no ClickHouse storage type; they are
            // shown as the closest ClickHouse type.
            DataType::Duration(_) | DataType::Interval(_) => ChType::Int64,
            _ => ChType::String,
        };
        if nullable {
            ChType::Nullable(Box::new(base))
        } else {
            base
        }
    }

    /// Checks that a parsed type is one ClickHouse accepts (e.g. no `Nullable(Array(..))`).
    pub fn validate(&self) -> Result<()> {
        match self {
            ChType::Nullable(inner) => match inner.as_ref() {
                ChType::Nullable(_) | ChType::Array(_) | ChType::Map(..) | ChType::LowCardinality(_) => {
                    Err(Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Nested type {inner} cannot be inside Nullable type")))
                }
                other => other.validate(),
            },
            ChType::LowCardinality(inner) => inner.validate(),
            ChType::Array(inner) => inner.validate(),
            ChType::Tuple(items) => items.iter().try_for_each(|(_, t)| t.validate()),
            ChType::Variant(types) => types.iter().try_for_each(|t| match t {
                ChType::Nullable(_) | ChType::Variant(_) => {
                    Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Nullable/LowCardinality(Nullable)/Variant types are not allowed inside Variant type: {t}")))
                }
                ChType::LowCardinality(inner) if inner.is_nullable() => {
                    Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Nullable/LowCardinality(Nullable)/Variant types are not allowed inside Variant type: {t}")))
                }
                other => other.validate(),
            }),
            ChType::Map(k, v) => {
                k.validate()?;
                v.validate()
            }
            ChType::DateTime64(p, _) if *p > 9 => Err(Error::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!("Scale {p} is too large for DateTime64. Maximum is up to nanoseconds (9)."),
            )),
            ChType::Time64(p) if *p > 9 => Err(Error::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!("Scale {p} is too large for Time64. Maximum is up to nanoseconds (9)."),
            )),
            ChType::Decimal(p, s) if *p == 0 || *p > 76 || s > p => Err(Error::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!("Decimal precision {p} and scale {s} are out of bounds"),
            )),
            _ => Ok(()),
        }
    }

    /// The default value of the type as ClickHouse fills it (0, '', 1970-01-01, the
    /// enum's smallest element, ...) is produced by casting this literal text.
    pub fn default_literal(&self) -> &str {
        match self.base() {
            ChType::String | ChType::FixedString(_) => "",
            ChType::Date | ChType::Date32 => "1970-01-01",
            ChType::DateTime(_) | ChType::DateTime64(..) => "1970-01-01 00:00:00",
            ChType::Bool => "false",
            ChType::Enum8(elements) | ChType::Enum16(elements) => elements.first().map_or("0", |(name, _)| name.as_str()),
            ChType::IPv4 => "0.0.0.0",
            ChType::IPv6 => "::",
            _ => "0",
        }
    }

    /// The elements of an `Enum8`/`Enum16` (under Nullable/LowCardinality), sorted by value.
    pub fn enum_elements(&self) -> Option<&[(String, i16)]> {
        match self.base() {
            ChType::Enum8(elements) | ChType::Enum16(elements) => Some(elements),
            _ => None,
        }
    }

    /// Builds `Enum8` or `Enum16` from elements as written: sorted by value, names and
    /// values unique, values in the type's range. `wide` is `None` for plain `Enum`,
    /// which is `Enum8` when every value fits.
    pub fn new_enum(mut elements: Vec<(String, i64)>, wide: Option<bool>) -> Result<ChType> {
        if elements.is_empty() {
            return Err(Error::new(ErrorCode::EMPTY_DATA_PASSED, "Enumeration cannot be empty"));
        }
        let fits8 = |v: i64| (i8::MIN as i64..=i8::MAX as i64).contains(&v);
        let wide = wide.unwrap_or_else(|| !elements.iter().all(|(_, v)| fits8(*v)));
        let (family, range) = if wide { ("Enum16", i16::MIN as i64..=i16::MAX as i64) } else { ("Enum8", i8::MIN as i64..=i8::MAX as i64) };
        for (name, value) in &elements {
            if !range.contains(value) {
                return Err(Error::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Value {value} for element '{name}' exceeds range of {family}")));
            }
        }
        let mut seen_names = std::collections::HashMap::new();
        for (name, value) in &elements {
            if let Some(first) = seen_names.insert(name.as_str(), *value) {
                return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Duplicate names in enum: '{name}' = {first} and {value}")));
            }
        }
        let mut seen_values = std::collections::HashMap::new();
        for (name, value) in &elements {
            if let Some(first) = seen_values.insert(*value, name.as_str()) {
                return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Duplicate values in enum: '{name}' = {value} and '{first}'")));
            }
        }
        elements.sort_by_key(|(_, v)| *v);
        let elements = elements.into_iter().map(|(name, value)| (name, value as i16)).collect();
        Ok(if wide { ChType::Enum16(elements) } else { ChType::Enum8(elements) })
    }
}

/// `Enum8('a' = 1, 'it\'s' = 2)`: names quoted with ClickHouse's escapes.
fn write_enum(f: &mut fmt::Formatter<'_>, family: &str, elements: &[(String, i16)]) -> fmt::Result {
    write!(f, "{family}(")?;
    for (i, (name, value)) in elements.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        f.write_str("'")?;
        for c in name.chars() {
            match c {
                '\\' => f.write_str("\\\\")?,
                '\'' => f.write_str("\\'")?,
                c => write!(f, "{c}")?,
            }
        }
        write!(f, "' = {value}")?;
    }
    f.write_str(")")
}

/// The Arrow time unit for a `DateTime64` precision.
pub fn time_unit_for_precision(precision: u8) -> TimeUnit {
    match precision {
        0 => TimeUnit::Second,
        1..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

/// A tuple element's name as ClickHouse writes it in a type (`backQuoteIfNeed`): in
/// backquotes unless it is a plain identifier (`Tuple(`1` UInt8, `x.y` String)`).
fn quote_element_name(name: &str) -> std::borrow::Cow<'_, str> {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut quoted = String::with_capacity(name.len() + 2);
    quoted.push('`');
    for c in name.chars() {
        if c == '`' || c == '\\' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('`');
    std::borrow::Cow::Owned(quoted)
}

impl ChType {
    /// The name `toTypeName` shows (ClickHouse's `getPrettyName`): a tuple with named
    /// elements puts each on its own line, indented by four spaces per level; inside
    /// `Nullable` and `LowCardinality` the plain name is kept.
    pub fn pretty_name(&self) -> String {
        self.pretty(0)
    }

    fn pretty(&self, indent: usize) -> String {
        match self {
            ChType::Array(inner) => format!("Array({})", inner.pretty(indent)),
            ChType::Map(k, v) => format!("Map({}, {})", k.pretty(indent), v.pretty(indent)),
            ChType::Tuple(items) => {
                let named = items.iter().enumerate().any(|(i, (name, _))| *name != (i + 1).to_string());
                if !named {
                    let inner: Vec<String> = items.iter().map(|(_, t)| t.pretty(indent)).collect();
                    return format!("Tuple({})", inner.join(", "));
                }
                let pad = " ".repeat(indent + 4);
                let inner: Vec<String> = items.iter().map(|(name, t)| format!("{pad}{} {}", quote_element_name(name), t.pretty(indent + 4))).collect();
                format!("Tuple(\n{})", inner.join(",\n"))
            }
            other => other.to_string(),
        }
    }
}

impl fmt::Display for ChType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChType::UInt8 => f.write_str("UInt8"),
            ChType::UInt16 => f.write_str("UInt16"),
            ChType::UInt32 => f.write_str("UInt32"),
            ChType::UInt64 => f.write_str("UInt64"),
            ChType::Int8 => f.write_str("Int8"),
            ChType::Int16 => f.write_str("Int16"),
            ChType::Int32 => f.write_str("Int32"),
            ChType::Int64 => f.write_str("Int64"),
            ChType::Int128 => f.write_str("Int128"),
            ChType::UInt128 => f.write_str("UInt128"),
            ChType::Int256 => f.write_str("Int256"),
            ChType::UInt256 => f.write_str("UInt256"),
            ChType::Float32 => f.write_str("Float32"),
            ChType::Float64 => f.write_str("Float64"),
            ChType::Bool => f.write_str("Bool"),
            ChType::String => f.write_str("String"),
            ChType::FixedString(n) => write!(f, "FixedString({n})"),
            ChType::Uuid => f.write_str("UUID"),
            ChType::Enum8(elements) => write_enum(f, "Enum8", elements),
            ChType::Enum16(elements) => write_enum(f, "Enum16", elements),
            ChType::IPv4 => f.write_str("IPv4"),
            ChType::IPv6 => f.write_str("IPv6"),
            ChType::Date => f.write_str("Date"),
            ChType::Date32 => f.write_str("Date32"),
            ChType::DateTime(None) => f.write_str("DateTime"),
            ChType::DateTime(Some(tz)) => write!(f, "DateTime('{tz}')"),
            ChType::DateTime64(p, None) => write!(f, "DateTime64({p})"),
            ChType::DateTime64(p, Some(tz)) => write!(f, "DateTime64({p}, '{tz}')"),
            ChType::Time => f.write_str("Time"),
            ChType::Time64(p) => write!(f, "Time64({p})"),
            ChType::Decimal(p, s) => write!(f, "Decimal({p}, {s})"),
            ChType::Nullable(inner) => write!(f, "Nullable({inner})"),
            ChType::LowCardinality(inner) => write!(f, "LowCardinality({inner})"),
            ChType::Array(inner) => write!(f, "Array({inner})"),
            ChType::Tuple(items) => {
                f.write_str("Tuple(")?;
                let named = items.iter().enumerate().any(|(i, (name, _))| *name != (i + 1).to_string());
                for (i, (name, t)) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if named {
                        write!(f, "{} {t}", quote_element_name(name))?;
                    } else {
                        write!(f, "{t}")?;
                    }
                }
                f.write_str(")")
            }
            ChType::Map(k, v) => write!(f, "Map({k}, {v})"),
            ChType::Nothing => f.write_str("Nothing"),
            ChType::Variant(types) => {
                f.write_str("Variant(")?;
                for (i, t) in types.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            ChType::AggregateFunction(function, args) => {
                // ClickHouse names the state version of the functions that have one.
                let base = function.split_once('(').map_or(function.as_str(), |(name, _)| name);
                let versioned = matches!(base, "sumMap" | "minMap" | "maxMap" | "sumMapWithOverflow" | "sumMapFiltered" | "sumMapFilteredWithOverflow" | "sumMappedArrays" | "minMappedArrays" | "maxMappedArrays")
                    && !matches!(args.as_slice(), [ChType::Map(..)]);
                f.write_str(if versioned { "AggregateFunction(1, " } else { "AggregateFunction(" })?;
                write!(f, "{function}")?;
                for t in args {
                    write!(f, ", {t}")?;
                }
                f.write_str(")")
            }
            ChType::SimpleAggregateFunction(function, inner) => write!(f, "SimpleAggregateFunction({function}, {inner})"),
            ChType::Interval(kind) => write!(f, "Interval{}", kind.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_arrow_fields() {
        for name in [
            "UInt8", "Int64", "Float32", "Bool", "String", "FixedString(16)", "Date", "Date32", "DateTime",
            "DateTime('Asia/Tokyo')", "DateTime64(3)", "DateTime64(6, 'UTC')", "Decimal(10, 2)", "Decimal(50, 4)",
            "Nullable(UInt32)", "LowCardinality(String)", "LowCardinality(Nullable(String))", "Array(Nullable(Int8))",
            "Array(Array(String))", "Tuple(UInt8, String)", "Tuple(a UInt8, b Array(String))", "Map(String, UInt64)", "UUID",
            "DateTime64(1)", "LowCardinality(Nullable(UInt8))", "IntervalDay", "Nullable(IntervalMonth)", "Decimal(76, 3)",
            "Int128", "UInt128", "Int256", "UInt256", "Nullable(UInt256)", "Time", "Time64(3)", "Time64(6)", "Nullable(Time64(9))", "Time64(0)", "Variant(Array(UInt64), String, UInt64)", "Array(Variant(Date, Date32))", "Array(Int128)", "LowCardinality(UInt128)", "Decimal(38, 0)", "Decimal(39, 0)", "Decimal(76, 0)",
        ] {
            let t = ChType::parse(name).unwrap();
            assert_eq!(t.to_string(), name);
            let field = t.to_arrow_field("c");
            assert_eq!(ChType::from_field(&field), t, "{name}");
        }
    }

    #[test]
    fn low_cardinality_nullable_fields_hold_nulls() {
        let t = ChType::parse("LowCardinality(Nullable(String))").unwrap();
        assert!(t.to_arrow_field("c").is_nullable());
        assert!(!ChType::parse("LowCardinality(String)").unwrap().to_arrow_field("c").is_nullable());
    }
}
