//! ClickHouse's *least supertype* (`getLeastSupertype`): the result type of `if`,
//! `multiIf`, `ifNull`, comparisons and arrays of mixed types.
//!
//! Rules (checked with chdb): equal types stay; unsigned integers widen to the widest;
//! signed with unsigned become signed one size up (`UInt8`/`Int8` -> `Int16`); floats
//! with integers of up to 4 bytes become `Float64` (`Float32` stays with 1–2-byte
//! integers); `String` with `FixedString` is `String`; `Date` with `DateTime` is
//! `DateTime`; `DateTime64` takes the largest precision. `Nullable(Nothing)` (NULL) makes
//! the result `Nullable`; `Nothing` (the element of `[]`) adds nothing. Where ClickHouse
//! 26 answers with a `Variant` (no common type,
//! e.g. `Int64` with `UInt64` or `Float64`), Granary reports NO_COMMON_TYPE (386), the
//! code ClickHouse gives where it has no supertype.

use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};
use crate::func::RetCtx;

/// The least supertype of arguments `indices` of a call. During SQL planning the query's
/// integer literals are still DataFusion's `Int64` (they get ClickHouse's types right
/// after, see [`crate::literals`]), so `[number, 1]` looks like `UInt64` with `Int64`,
/// which have no supertype; when that fails, the integer literal arguments are tried
/// again in ClickHouse's types, which they will have by the time the plan is final.
pub(crate) fn least_supertype_of_args(ctx: &RetCtx, indices: &[usize]) -> DfResult<ChType> {
    let types: Vec<ChType> = indices.iter().map(|&i| ctx.ch(i)).collect();
    let first_error = match least_supertype(&types) {
        Ok(t) => return Ok(t),
        Err(e) => e,
    };
    let mut narrowed_any = false;
    let narrowed: Vec<ChType> = indices
        .iter()
        .zip(types)
        .map(|(&i, t)| match ctx.scalar(i).and_then(crate::literals::narrow) {
            Some(n) if matches!(ctx.scalar(i), Some(datafusion::common::ScalarValue::Int64(_))) => {
                narrowed_any = true;
                ChType::from_arrow(&n.data_type(), false)
            }
            _ => t,
        })
        .collect();
    if narrowed_any {
        if let Ok(t) = least_supertype(&narrowed) {
            return Ok(t);
        }
    }
    // A UInt64 literal that fits Int64 is taken as Int64 next to signed integers, as
    // ClickHouse does (`[toInt64(-1), 9223372036854775807]` is `Array(Int64)`, while a
    // UInt64 column there has no supertype). Literals of UInt64 type are above u32::MAX.
    if narrowed.iter().any(|t| int_info(t).is_some_and(|(signed, _)| signed)) {
        let mut retyped_any = false;
        let retyped: Vec<ChType> = indices
            .iter()
            .zip(&narrowed)
            .map(|(&i, t)| {
                let literal = match ctx.scalar(i) {
                    Some(datafusion::common::ScalarValue::UInt64(Some(v))) => Some(*v as i128),
                    Some(datafusion::common::ScalarValue::Int64(Some(v))) => Some(*v as i128),
                    _ => None,
                };
                match literal {
                    Some(v) if *t == ChType::UInt64 && v > u32::MAX as i128 && v <= i64::MAX as i128 => {
                        retyped_any = true;
                        ChType::Int64
                    }
                    _ => t.clone(),
                }
            })
            .collect();
        if retyped_any {
            if let Ok(t) = least_supertype(&retyped) {
                return Ok(t);
            }
        }
    }
    // Expressions over literals are planned on `Int64` too (`number + 1` is `plus(UInt64,
    // Int64)` until the literal gets its type, `toUInt256(2) + 7` is Int256), so
    // `[number, number + 1]` meets UInt64 with a computed Int64. Next to an unsigned
    // UInt64..UInt256, computed signed integers of 8 bytes and up are taken as unsigned:
    // the final plan then has the real types (and a truly signed one fails there).
    if narrowed.iter().any(contains_wide_unsigned) {
        let widened: Vec<ChType> = indices
            .iter()
            .zip(&narrowed)
            .map(|(&i, t)| if ctx.scalar(i).is_some() { t.clone() } else { wide_signed_as_unsigned(t) })
            .collect();
        if let Ok(t) = least_supertype(&widened) {
            return Ok(t);
        }
    }
    Err(first_error)
}

fn contains_wide_unsigned(t: &ChType) -> bool {
    match t {
        ChType::UInt64 | ChType::UInt128 | ChType::UInt256 => true,
        ChType::Nullable(inner) | ChType::LowCardinality(inner) | ChType::Array(inner) => contains_wide_unsigned(inner),
        _ => false,
    }
}

fn wide_signed_as_unsigned(t: &ChType) -> ChType {
    match t {
        ChType::Int64 => ChType::UInt64,
        ChType::Int128 => ChType::UInt128,
        ChType::Int256 => ChType::UInt256,
        ChType::Nullable(inner) => ChType::Nullable(Box::new(wide_signed_as_unsigned(inner))),
        ChType::LowCardinality(inner) => ChType::LowCardinality(Box::new(wide_signed_as_unsigned(inner))),
        ChType::Array(inner) => ChType::Array(Box::new(wide_signed_as_unsigned(inner))),
        other => other.clone(),
    }
}

fn int_info(t: &ChType) -> Option<(bool, u32)> {
    Some(match t {
        ChType::UInt8 | ChType::Bool => (false, 1),
        ChType::UInt16 => (false, 2),
        ChType::UInt32 => (false, 4),
        ChType::UInt64 => (false, 8),
        ChType::Int8 => (true, 1),
        ChType::Int16 => (true, 2),
        ChType::Int32 => (true, 4),
        ChType::Int64 => (true, 8),
        ChType::UInt128 => (false, 16),
        ChType::Int128 => (true, 16),
        ChType::UInt256 => (false, 32),
        ChType::Int256 => (true, 32),
        _ => return None,
    })
}

fn int_of(signed: bool, width: u32) -> ChType {
    match (signed, width) {
        (false, 1) => ChType::UInt8,
        (false, 2) => ChType::UInt16,
        (false, 4) => ChType::UInt32,
        (false, 8) => ChType::UInt64,
        (false, 16) => ChType::UInt128,
        (false, _) => ChType::UInt256,
        (true, 1) => ChType::Int8,
        (true, 2) => ChType::Int16,
        (true, 4) => ChType::Int32,
        (true, 8) => ChType::Int64,
        (true, 16) => ChType::Int128,
        (true, _) => ChType::Int256,
    }
}

/// The smallest of ClickHouse's decimal precisions (9, 18, 38, 76) holding `digits`.
fn decimal_class(digits: u32) -> u8 {
    match digits {
        0..=9 => 9,
        10..=18 => 18,
        19..=38 => 38,
        39..=76 => 76,
        _ => 77,
    }
}

fn no_common(types: &[ChType]) -> datafusion::common::DataFusionError {
    let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    let is_text = |t: &ChType| matches!(t.base(), ChType::String | ChType::FixedString(_));
    let why = if types.iter().any(is_text) && !types.iter().all(is_text) {
        " because some of them are String/FixedString/Enum and some of them are not"
    } else {
        ""
    };
    ch_error(ErrorCode::NO_COMMON_TYPE, format!("There is no supertype for types {}{why}", names.join(", ")))
}

/// ClickHouse's NO_COMMON_TYPE error when `types` (the types of one UNION column, branch
/// by branch) mix kinds that have no supertype: arrays, tuples or maps with other types,
/// strings (String, FixedString, Enum) with other types, dates and times with other
/// types. ClickHouse 26 answers those with a `Variant` by default, which Granary does not
/// have; it used to answer (and with `use_variant_as_common_type = 0` still answers) this
/// error, named and worded as here. None when the kinds agree (numbers are typed by
/// [`least_supertype`]).
pub(crate) fn mixed_kinds(types: &[ChType]) -> Option<datafusion::common::DataFusionError> {
    let types: Vec<&ChType> = types.iter().filter(|t| !matches!(t.strip_nullable(), ChType::Nothing)).collect();
    let first = types.first()?;
    if types.iter().all(|t| t == first) {
        return None;
    }
    let error = |types: &[&ChType], kind: &str| {
        let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
        Some(ch_error(
            ErrorCode::NO_COMMON_TYPE,
            format!("There is no supertype for types {} because some of them are {kind} and some of them are not", names.join(", ")),
        ))
    };
    let split = |types: &[&ChType], is: &dyn Fn(&ChType) -> bool| types.iter().any(|t| is(t)) && !types.iter().all(|t| is(t));
    // Arrays, tuples and maps are told apart before Nullable is looked through (ClickHouse
    // names `Nullable(String)` in that message).
    let outer = |t: &ChType| t.strip_nullable().base().clone();
    if split(&types, &|t| matches!(outer(t), ChType::Array(_))) {
        return error(&types, "Array");
    }
    if split(&types, &|t| matches!(outer(t), ChType::Tuple(_))) {
        return error(&types, "Tuple");
    }
    if split(&types, &|t| matches!(outer(t), ChType::Map(..))) {
        return error(&types, "Maps");
    }
    let bases: Vec<ChType> = types.iter().map(|t| outer(t).strip_nullable().clone()).collect();
    let bases: Vec<&ChType> = bases.iter().collect();
    if split(&bases, &|t| matches!(t, ChType::String | ChType::FixedString(_) | ChType::Enum8(_) | ChType::Enum16(_))) {
        return error(&bases, "String/FixedString/Enum");
    }
    if split(&bases, &|t| matches!(t, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..) | ChType::Time | ChType::Time64(_))) {
        return error(&bases, "Date/Date32/DateTime/DateTime64/Time/Time64");
    }
    None
}

/// The least supertype of `types` (which may be Nullable or Nothing).
pub fn least_supertype(types: &[ChType]) -> DfResult<ChType> {
    let mut nullable = false;
    let mut bases: Vec<ChType> = Vec::new();
    for t in types {
        match t {
            ChType::Nullable(inner) if matches!(inner.as_ref(), ChType::Nothing) => nullable = true,
            // The element type of `[]`: no values, so it constrains nothing (NULL is
            // `Nullable(Nothing)`).
            ChType::Nothing => {}
            ChType::Nullable(inner) => {
                nullable = true;
                bases.push(inner.base().clone());
            }
            ChType::LowCardinality(inner) if inner.is_nullable() => {
                nullable = true;
                bases.push(inner.base().clone());
            }
            other => bases.push(other.base().clone()),
        }
    }
    if bases.is_empty() {
        return Ok(if nullable { ChType::Nullable(Box::new(ChType::Nothing)) } else { ChType::Nothing });
    }
    let base = base_supertype(&bases)?;
    Ok(if nullable { base.into_nullable() } else { base })
}

/// `supertype` as LowCardinality when every argument `indices` is LowCardinality: the
/// elements of `array(...)` and the keys and values of `map(...)` keep it in ClickHouse
/// (`[toLowCardinality('a')]` is Array(LowCardinality(String))); `if` and the like drop
/// it.
pub(crate) fn low_cardinality_if_all(ctx: &RetCtx, indices: &[usize], supertype: ChType) -> ChType {
    let all_low_cardinality = !indices.is_empty() && indices.iter().all(|&i| matches!(ctx.ch(i), ChType::LowCardinality(_)));
    if all_low_cardinality && can_be_low_cardinality(&supertype) {
        ChType::LowCardinality(Box::new(supertype))
    } else {
        supertype
    }
}

/// Types ClickHouse allows inside LowCardinality: strings, numbers, dates (and their
/// Nullable).
pub(crate) fn can_be_low_cardinality(t: &ChType) -> bool {
    matches!(
        t.strip_nullable(),
        ChType::String
            | ChType::FixedString(_)
            | ChType::UInt8
            | ChType::UInt16
            | ChType::UInt32
            | ChType::UInt64
            | ChType::Int8
            | ChType::Int16
            | ChType::Int32
            | ChType::Int64
            | ChType::Float32
            | ChType::Float64
            | ChType::Date
            | ChType::Date32
            | ChType::DateTime(_)
    )
}

fn base_supertype(bases: &[ChType]) -> DfResult<ChType> {
    let first = &bases[0];
    if bases.iter().all(|t| t == first) {
        return Ok(first.clone());
    }
    // Tuples of one length meet element by element (`ifNull(t, (2, 'b'))` with `t` a
    // `Nullable(Tuple(UInt8, String))`); the names stay when every tuple has them.
    if let ChType::Tuple(first_items) = first {
        let mut columns: Vec<Vec<ChType>> = vec![Vec::with_capacity(bases.len()); first_items.len()];
        let mut same_names = true;
        for t in bases {
            match t {
                ChType::Tuple(items) if items.len() == first_items.len() => {
                    same_names &= items.iter().zip(first_items).all(|((a, _), (b, _))| a == b);
                    for (column, (_, item)) in columns.iter_mut().zip(items) {
                        column.push(item.clone());
                    }
                }
                _ => return Err(no_common(bases)),
            }
        }
        let mut items = Vec::with_capacity(columns.len());
        for (i, column) in columns.iter().enumerate() {
            let name = if same_names { first_items[i].0.clone() } else { (i + 1).to_string() };
            items.push((name, least_supertype(column).map_err(|_| no_common(bases))?));
        }
        return Ok(ChType::Tuple(items));
    }
    // Enums meet strings as strings (ClickHouse groups them), and each other as their
    // integers.
    if bases.iter().any(|t| t.enum_elements().is_some()) {
        if bases.iter().any(|t| matches!(t, ChType::String | ChType::FixedString(_))) {
            return Ok(ChType::String);
        }
        let as_integers: Vec<ChType> = bases
            .iter()
            .map(|t| match t {
                ChType::Enum8(_) => ChType::Int8,
                ChType::Enum16(_) => ChType::Int16,
                other => other.clone(),
            })
            .collect();
        return base_supertype(&as_integers);
    }
    // Numbers.
    let all_numeric = bases.iter().all(|t| int_info(t).is_some() || matches!(t, ChType::Float32 | ChType::Float64));
    if all_numeric {
        let floats: Vec<&ChType> = bases.iter().filter(|t| matches!(t, ChType::Float32 | ChType::Float64)).collect();
        let ints: Vec<(bool, u32)> = bases.iter().filter_map(int_info).collect();
        let max_signed = ints.iter().filter(|(s, _)| *s).map(|(_, w)| *w).max();
        let max_unsigned = ints.iter().filter(|(s, _)| !*s).map(|(_, w)| *w).max();
        let int_width = ints.iter().map(|(_, w)| *w).max().unwrap_or(0);
        if !floats.is_empty() {
            let float_width = if floats.iter().any(|t| matches!(t, ChType::Float64)) { 8 } else { 4 };
            let needed = if int_width == 0 { float_width } else if int_width <= 2 { float_width.max(4) } else { 8 };
            // Wide integers meet no float either (ClickHouse 26: a Variant).
            if int_width >= 8 {
                return Err(no_common(bases));
            }
            return Ok(if needed <= 4 { ChType::Float32 } else { ChType::Float64 });
        }
        return match (max_signed, max_unsigned) {
            (Some(s), Some(u)) => {
                // An unsigned type at least as wide as the signed one needs the next
                // signed size, which 64 bits do not get (Int64 with UInt64 has no
                // supertype) but 128 do (Int128 with UInt128 is Int256).
                let width = if u >= s { u * 2 } else { s };
                if width > 32 || (u >= s && u == 8) {
                    Err(no_common(bases))
                } else {
                    Ok(int_of(true, width))
                }
            }
            (Some(s), None) => Ok(int_of(true, s)),
            (None, Some(u)) => Ok(int_of(false, u)),
            (None, None) => Err(no_common(bases)),
        };
    }
    if bases.iter().all(|t| matches!(t, ChType::String | ChType::FixedString(_))) {
        return Ok(ChType::String);
    }
    if bases.iter().all(|t| matches!(t, ChType::Time | ChType::Time64(_))) {
        let precision = bases.iter().filter_map(|t| if let ChType::Time64(p) = t { Some(*p) } else { None }).max();
        return Ok(precision.map_or(ChType::Time, ChType::Time64));
    }
    if bases.iter().all(|t| matches!(t, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..))) {
        let precision = bases.iter().filter_map(|t| if let ChType::DateTime64(p, _) = t { Some(*p) } else { None }).max();
        // ClickHouse keeps the first DateTime64 of the largest precision, time zone included.
        let widest_zone = bases.iter().find_map(|t| match t {
            ChType::DateTime64(p, tz) if Some(*p) == precision => Some(tz.clone()),
            _ => None,
        });
        let zone = bases.iter().find_map(|t| match t {
            ChType::DateTime(tz) => tz.clone(),
            _ => None,
        });
        let has_time = bases.iter().any(|t| matches!(t, ChType::DateTime(_)));
        let has_date32 = bases.iter().any(|t| matches!(t, ChType::Date32));
        return Ok(match (precision, has_time, has_date32) {
            (Some(p), _, _) => ChType::DateTime64(p, widest_zone.flatten()),
            // Date32's range does not fit DateTime: ClickHouse widens to DateTime64(0),
            // without a time zone.
            (None, true, true) => ChType::DateTime64(0, None),
            (None, true, false) => ChType::DateTime(zone),
            (None, false, true) => ChType::Date32,
            (None, false, false) => ChType::Date,
        });
    }
    // Decimals: the widest precision and the largest scale (ClickHouse keeps
    // Decimal(38, 30) with Decimal(18, 2), whatever the integer digits); integers among
    // them widen the precision to hold their digits at that scale.
    if bases.iter().any(|t| matches!(t, ChType::Decimal(..))) && bases.iter().all(|t| matches!(t, ChType::Decimal(..)) || int_info(t).is_some()) {
        let scale = bases.iter().filter_map(|t| if let ChType::Decimal(_, s) = t { Some(*s) } else { None }).max().unwrap_or(0);
        let precision = bases.iter().filter_map(|t| if let ChType::Decimal(p, _) = t { Some(*p) } else { None }).max().unwrap_or(1);
        let int_digits = bases
            .iter()
            .filter_map(int_info)
            .map(|(_, width)| match width {
                1 => 3,
                2 => 5,
                4 => 10,
                _ => 20,
            })
            .max();
        let precision = match int_digits {
            Some(digits) if u32::from(scale) + digits > u32::from(precision) => decimal_class(u32::from(scale) + digits),
            _ => precision,
        };
        if precision > 76 {
            return Err(no_common(bases));
        }
        return Ok(ChType::Decimal(precision, scale));
    }
    if bases.iter().all(|t| matches!(t, ChType::Array(_))) {
        let inner: Vec<ChType> = bases.iter().filter_map(|t| if let ChType::Array(i) = t { Some((**i).clone()) } else { None }).collect();
        return Ok(ChType::Array(Box::new(least_supertype(&inner)?)));
    }
    // Maps: keys and values on their own (`map()` is `Map(Nothing, Nothing)`).
    if bases.iter().all(|t| matches!(t, ChType::Map(..))) {
        let (keys, values): (Vec<ChType>, Vec<ChType>) = bases.iter().filter_map(|t| if let ChType::Map(k, v) = t { Some(((**k).clone(), (**v).clone())) } else { None }).unzip();
        return Ok(ChType::Map(Box::new(least_supertype(&keys)?), Box::new(least_supertype(&values)?)));
    }
    Err(no_common(bases))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sup(names: &[&str]) -> String {
        let types: Vec<ChType> = names.iter().map(|n| ChType::parse(n).unwrap()).collect();
        least_supertype(&types).map(|t| t.to_string()).unwrap_or_else(|_| "error".into())
    }

    #[test]
    fn matches_clickhouse() {
        assert_eq!(sup(&["UInt8", "Int8"]), "Int16");
        assert_eq!(sup(&["Int32", "UInt32"]), "Int64");
        assert_eq!(sup(&["UInt64", "Int64"]), "error");
        assert_eq!(sup(&["UInt8", "Float64"]), "Float64");
        assert_eq!(sup(&["Float32", "Int32"]), "Float64");
        assert_eq!(sup(&["Int64", "Float64"]), "error");
        assert_eq!(sup(&["String", "FixedString(1)"]), "String");
        assert_eq!(sup(&["Date", "DateTime"]), "DateTime");
        assert_eq!(sup(&["DateTime64(3)", "DateTime"]), "DateTime64(3)");
        assert_eq!(sup(&["Date", "Date32"]), "Date32");
        assert_eq!(sup(&["Date32", "DateTime('UTC')"]), "DateTime64(0)");
        assert_eq!(sup(&["DateTime64(1, 'Asia/Tokyo')", "DateTime64(6, 'UTC')", "DateTime64(6, 'Europe/Berlin')"]), "DateTime64(6, 'UTC')");
        assert_eq!(sup(&["Nullable(Nothing)", "UInt8"]), "Nullable(UInt8)");
        assert_eq!(sup(&["Nullable(UInt8)", "UInt16"]), "Nullable(UInt16)");
    }
}
