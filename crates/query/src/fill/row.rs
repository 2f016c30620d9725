//! The value arithmetic of WITH FILL and the row that walks the gaps between sorted rows.
//!
//! Values are carried as `i64` (integers, `Date` days, `DateTime` seconds, `DateTime64`
//! ticks in the column's Arrow unit), `f64` (floats) or `i256` (wide integers), as
//! ClickHouse carries them in `Int64`/`Decimal64`/`Float64`/wide integer fields. [`FillingRow`] follows ClickHouse's `FillingRow`
//! step for step (without `STALENESS`), because which rows appear at the edges (`FROM`
//! before the first row, `TO` after the last, several WITH FILL keys at once) is decided
//! by that algorithm's details, not by a simpler rule.

use std::cmp::Ordering;

use arrow::datatypes::i256;
use granary_common::{Error, ErrorCode, Result};
use granary_functions::tz::{civil_from_days, days_from_civil, days_in_month, SessionTz};
use granary_types::wide::{unsigned_order_key, WideInt};

/// One value of a WITH FILL key; `None` in a row stands for NULL.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum FillValue {
    Int(i64),
    Float(f64),
    /// A wide integer in its order form: the value itself, except that a `UInt256` value
    /// is its flipped bits (`granary_types::wide::unsigned_order_key`, the value minus
    /// 2^255), so that `i256` order and addition are the value's. Steps are plain values.
    Wide(i256),
}

impl FillValue {
    fn cmp(self, other: FillValue) -> Ordering {
        match (self, other) {
            (FillValue::Int(a), FillValue::Int(b)) => a.cmp(&b),
            (FillValue::Wide(a), FillValue::Wide(b)) => a.cmp(&b),
            (a, b) => a.as_f64().partial_cmp(&b.as_f64()).unwrap_or(Ordering::Equal),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            FillValue::Int(v) => v as f64,
            FillValue::Float(v) => v,
            FillValue::Wide(v) => granary_types::wide::WideInt::Int256.to_f64(v),
        }
    }

    fn is_nan_or_inf(self) -> bool {
        matches!(self, FillValue::Float(v) if !v.is_finite())
    }

    pub(crate) fn is_negative(self) -> bool {
        match self {
            FillValue::Int(v) => v < 0,
            FillValue::Float(v) => v < 0.0,
            FillValue::Wide(v) => v.is_negative(),
        }
    }

    pub(crate) fn is_zero(self) -> bool {
        match self {
            FillValue::Int(v) => v == 0,
            FillValue::Float(v) => v == 0.0,
            FillValue::Wide(v) => v == i256::ZERO,
        }
    }
}

impl std::fmt::Display for FillValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FillValue::Int(v) => write!(f, "{v}"),
            FillValue::Float(v) => write!(f, "{v}"),
            FillValue::Wide(v) => write!(f, "{v}"),
        }
    }
}

/// `a < b` in the sorting direction (`direction` is 1 or -1). NULL sorts first, as a
/// ClickHouse `Field` of type Null does.
pub(crate) fn less(a: Option<FillValue>, b: Option<FillValue>, direction: i8) -> bool {
    let (a, b) = if direction < 0 { (b, a) } else { (a, b) };
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(b) == Ordering::Less,
        (None, Some(_)) => true,
        _ => false,
    }
}

pub(crate) fn equals(a: Option<FillValue>, b: Option<FillValue>) -> bool {
    match (a, b) {
        (Some(FillValue::Float(x)), Some(FillValue::Float(y))) if x.is_nan() && y.is_nan() => true,
        (Some(a), Some(b)) => a.cmp(b) == Ordering::Equal,
        (None, None) => true,
        _ => false,
    }
}

/// A calendar unit of an INTERVAL step on a date or time column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum CalendarUnit {
    Days,
    Months,
}

/// How a value of the column becomes the next one.
#[derive(Debug, Clone)]
pub(crate) enum FillStep {
    /// Plain addition: numbers, and fixed-length steps (seconds, hours) on dates and times.
    Add(FillValue),
    /// Calendar steps on a `Date`/`Date32` (a value is a day number).
    DateCalendar { unit: CalendarUnit, amount: i64 },
    /// Calendar steps on a `DateTime`/`DateTime64` (a value is `ticks_per_second` ticks
    /// since the epoch), taken on the wall clock of the column's time zone as ClickHouse does.
    TimeCalendar { unit: CalendarUnit, amount: i64, ticks_per_second: i64, tz: SessionTz },
}

impl FillStep {
    /// `value` advanced by `jumps` steps; `None` when the result leaves `i64`.
    pub(crate) fn apply(&self, value: FillValue, jumps: i64) -> Option<FillValue> {
        match (self, value) {
            (FillStep::Add(FillValue::Int(step)), FillValue::Int(v)) => step.checked_mul(jumps).and_then(|s| v.checked_add(s)).map(FillValue::Int),
            (FillStep::Add(FillValue::Wide(step)), FillValue::Wide(v)) => {
                step.checked_mul(i256::from_i128(i128::from(jumps))).and_then(|s| v.checked_add(s)).map(FillValue::Wide)
            }
            (FillStep::Add(FillValue::Wide(_)), _) | (_, FillValue::Wide(_)) => None,
            (FillStep::Add(step), v) => Some(FillValue::Float(v.as_f64() + step.as_f64() * jumps as f64)),
            (FillStep::DateCalendar { unit, amount }, FillValue::Int(days)) => add_calendar(days, *unit, amount.checked_mul(jumps)?).map(FillValue::Int),
            (FillStep::TimeCalendar { unit, amount, ticks_per_second, tz }, FillValue::Int(ticks)) => {
                let (seconds, fraction) = (ticks.div_euclid(*ticks_per_second), ticks.rem_euclid(*ticks_per_second));
                let local = tz.to_local(seconds);
                let (days, time_of_day) = (local.div_euclid(86_400), local.rem_euclid(86_400));
                let days = add_calendar(days, *unit, amount.checked_mul(jumps)?)?;
                let seconds = tz.to_utc(days.checked_mul(86_400)?.checked_add(time_of_day)?);
                seconds.checked_mul(*ticks_per_second)?.checked_add(fraction).map(FillValue::Int)
            }
            _ => None,
        }
    }
}

/// Day number `days` moved by `amount` days or months; a month step keeps the day of the
/// month, clamped to the month's length (Jan 31 + 1 month = Feb 29 in 2024).
fn add_calendar(days: i64, unit: CalendarUnit, amount: i64) -> Option<i64> {
    match unit {
        CalendarUnit::Days => days.checked_add(amount),
        CalendarUnit::Months => {
            let (year, month, day) = civil_from_days(days);
            let total = (year.checked_mul(12)? + i64::from(month) - 1).checked_add(amount)?;
            let (year, month) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
            Some(days_from_civil(year, month, day.min(days_in_month(year, month))))
        }
    }
}

/// One WITH FILL key of the sort description.
#[derive(Debug, Clone)]
pub(crate) struct FillKey {
    pub direction: i8,
    pub from: Option<FillValue>,
    pub to: Option<FillValue>,
    pub step: FillStep,
    /// The smallest and largest value the column's type holds, when it is an integer,
    /// date or `DateTime`: generated values outside are an error, never wrapped.
    pub range: Option<(FillValue, FillValue)>,
    /// The column's ClickHouse type, for messages.
    pub type_name: String,
    /// The column's type when it is a wide integer (values are [`FillValue::Wide`]).
    pub wide: Option<WideInt>,
}

impl FillKey {
    /// Whether values are carried as `f64` (float columns) rather than `i64`.
    pub(crate) fn is_float(&self) -> bool {
        matches!(self.step, FillStep::Add(FillValue::Float(_)))
    }

    /// `value` as text, in the column's terms (a `UInt256`'s order form is not its value).
    pub(crate) fn text(&self, value: FillValue) -> String {
        match (self.wide, value) {
            (Some(WideInt::UInt256), FillValue::Wide(v)) => WideInt::UInt256.to_text(unsigned_order_key(v)),
            _ => value.to_string(),
        }
    }

    fn step(&self, value: FillValue, jumps: i64) -> Result<FillValue> {
        self.step.apply(value, jumps).ok_or_else(|| {
            Error::new(
                ErrorCode::INVALID_WITH_FILL_EXPRESSION,
                format!("WITH FILL step from {} overflows the ORDER BY column type {}", self.text(value), self.type_name),
            )
        })
    }

    fn check_fits(&self, value: FillValue) -> Result<()> {
        match self.range {
            Some((min, max)) if value.cmp(min) == Ordering::Less || value.cmp(max) == Ordering::Greater => Err(Error::new(
                ErrorCode::INVALID_WITH_FILL_EXPRESSION,
                format!("WITH FILL generates the value {} which is out of range of the ORDER BY column type {}", self.text(value), self.type_name),
            )),
            _ => Ok(()),
        }
    }
}

/// The values of the WITH FILL keys of one row, in sort order.
#[derive(Debug, Clone)]
pub(crate) struct FillingRow {
    pub values: Vec<Option<FillValue>>,
}

impl FillingRow {
    pub(crate) fn new(width: usize) -> Self {
        FillingRow { values: vec![None; width] }
    }

    pub(crate) fn is_null(&self) -> bool {
        self.values.iter().all(Option::is_none)
    }

    /// ClickHouse's `FillingRow::operator<`: keys where either side is NULL or both are
    /// equal are skipped.
    pub(crate) fn less_than(&self, other: &FillingRow, keys: &[FillKey]) -> bool {
        for (i, key) in keys.iter().enumerate() {
            let (a, b) = (self.values[i], other.values[i]);
            if a.is_none() || b.is_none() || equals(a, b) {
                continue;
            }
            return less(a, b, key.direction);
        }
        false
    }

    pub(crate) fn has_some_constraints(keys: &[FillKey]) -> bool {
        keys.iter().any(|k| k.to.is_some())
    }

    /// Whether the first non-NULL key with a TO bound is still below it.
    pub(crate) fn constraints_satisfied(&self, keys: &[FillKey]) -> bool {
        for (i, key) in keys.iter().enumerate() {
            if self.values[i].is_none() || key.to.is_none() {
                continue;
            }
            return less(self.values[i], key.to, key.direction);
        }
        true
    }

    pub(crate) fn init_using_from(&mut self, from_position: usize, keys: &[FillKey]) {
        for i in from_position..keys.len() {
            self.values[i] = keys[i].from;
        }
    }

    /// Advances to the next row to generate before `next_original`; false when there is
    /// none. `changed` says whether the row moved (even if the move is not to be emitted).
    pub(crate) fn next(&mut self, next_original: &FillingRow, keys: &[FillKey], changed: &mut bool) -> Result<bool> {
        let size = keys.len();
        // The first key that has not reached its border (TO or the next original value).
        let mut pos = 0;
        while pos < size {
            if self.values[pos].is_some() {
                let border = find_border(keys[pos].to, next_original.values[pos], keys[pos].direction);
                if border.is_some() && !equals(self.values[pos], border) {
                    break;
                }
            }
            pos += 1;
        }
        if pos == size {
            return Ok(false);
        }
        let key = &keys[pos];
        let (current, next_value_original) = (self.values[pos], next_original.values[pos]);
        if current.is_some_and(FillValue::is_nan_or_inf) || next_value_original.is_some_and(FillValue::is_nan_or_inf) {
            return Ok(false);
        }
        if next_value_original.is_some() && less(next_value_original, current, key.direction) {
            return Ok(false);
        }
        if key.to.is_some() && !less(current, key.to, key.direction) {
            return Ok(false);
        }
        // A later key with a TO bound is filled up to it first.
        for i in (pos + 1..size).rev() {
            let (Some(value), Some(_)) = (self.values[i], keys[i].to) else { continue };
            let next_value = keys[i].step(value, 1)?;
            if !less(Some(value), Some(next_value), keys[i].direction) {
                return Err(does_not_advance());
            }
            if !less(Some(next_value), keys[i].to, keys[i].direction) {
                continue;
            }
            keys[i].check_fits(next_value)?;
            self.values[i] = Some(next_value);
            self.init_using_from(i + 1, keys);
            *changed = true;
            return Ok(true);
        }
        let Some(value) = current else { return Ok(false) };
        let next_value = key.step(value, 1)?;
        if !less(current, Some(next_value), key.direction) {
            return Err(does_not_advance());
        }
        if next_value_original.is_some() && less(next_value_original, Some(next_value), key.direction) {
            return Ok(false);
        }
        if key.to.is_some() && !less(Some(next_value), key.to, key.direction) {
            return Ok(false);
        }
        key.check_fits(next_value)?;
        self.values[pos] = Some(next_value);
        if equals(self.values[pos], next_value_original) {
            let mut is_less = false;
            for i in pos + 1..size {
                self.values[i] = keys[i].from.or(next_original.values[i]);
                is_less |= (next_original.values[i].is_none() || less(self.values[i], next_original.values[i], keys[i].direction))
                    && (keys[i].to.is_none() || less(self.values[i], keys[i].to, keys[i].direction));
            }
            *changed = true;
            return Ok(is_less);
        }
        self.init_using_from(pos + 1, keys);
        *changed = true;
        Ok(true)
    }
}

/// The nearer of the TO bound and the next original value.
fn find_border(to: Option<FillValue>, next_original: Option<FillValue>, direction: i8) -> Option<FillValue> {
    match (to, next_original) {
        (None, next) => next,
        (to, None) => to,
        (to, next) if less(to, next, direction) => to,
        (_, next) => next,
    }
}

fn does_not_advance() -> Error {
    Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "WITH FILL step does not advance in the sorting direction")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key(from: Option<i64>, to: Option<i64>, step: i64) -> FillKey {
        FillKey {
            direction: if step < 0 { -1 } else { 1 },
            from: from.map(FillValue::Int),
            to: to.map(FillValue::Int),
            step: FillStep::Add(FillValue::Int(step)),
            range: None,
            type_name: "Int64".into(),
            wide: None,
        }
    }

    /// The values generated strictly between `current` and `next` (or TO when `next` is None).
    fn gaps(key: FillKey, current: i64, next: Option<i64>) -> Vec<i64> {
        let keys = [key];
        let mut row = FillingRow { values: vec![Some(FillValue::Int(current))] };
        let next = FillingRow { values: vec![next.map(FillValue::Int)] };
        let mut out = Vec::new();
        let mut changed = false;
        while row.next(&next, &keys, &mut changed).unwrap() {
            let Some(FillValue::Int(v)) = row.values[0] else { panic!() };
            out.push(v);
        }
        out
    }

    #[test]
    fn gaps_between_rows_and_up_to_the_bound() {
        assert_eq!(gaps(key(None, None, 1), 0, Some(3)), vec![1, 2]);
        assert_eq!(gaps(key(None, None, 2), 0, Some(5)), vec![2, 4]);
        assert_eq!(gaps(key(None, Some(10), 3), 4, None), vec![7]);
        assert_eq!(gaps(key(None, None, -2), 9, Some(3)), vec![7, 5]);
        assert!(gaps(key(None, None, 1), 3, Some(4)).is_empty());
    }

    #[test]
    fn calendar_steps_clamp_the_day() {
        let jan_31 = days_from_civil(2024, 1, 31);
        let step = FillStep::DateCalendar { unit: CalendarUnit::Months, amount: 1 };
        assert_eq!(step.apply(FillValue::Int(jan_31), 1), Some(FillValue::Int(days_from_civil(2024, 2, 29))));
        assert_eq!(step.apply(FillValue::Int(jan_31), 13), Some(FillValue::Int(days_from_civil(2025, 2, 28))));
    }

    #[test]
    fn out_of_range_values_are_errors() {
        let mut k = key(None, Some(300), 100);
        k.range = Some((FillValue::Int(-128), FillValue::Int(127)));
        let keys = [k];
        let mut row = FillingRow { values: vec![Some(FillValue::Int(100))] };
        let mut changed = false;
        let err = row.next(&FillingRow::new(1), &keys, &mut changed).unwrap_err();
        assert_eq!(err.code(), ErrorCode::INVALID_WITH_FILL_EXPRESSION);
    }
}
