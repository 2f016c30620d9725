//! Event and interval aggregates with ClickHouse's algorithms and state bytes:
//! `retention(c1, ..., cN)` (which conditions held, as a bitmask), `intervalLengthSum(a, b)`
//! (the length of the union of intervals) and `windowFunnel(window[, modes])(t, c1, ...)`
//! (how many steps of a chain of events happened in order within the window).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, ListArray, UInt8Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, UInt8Type};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{read_u64, take, NativeState, NullHandling, Num, NumType, Spec};
use crate::parametric::parametric_name;

/// ClickHouse's limit on the number of conditions of `retention` and `windowFunnel`.
const MAX_EVENTS: usize = 32;

fn conditions(function: &str, columns: &[ArrayRef]) -> DfResult<Vec<Vec<bool>>> {
    columns
        .iter()
        .map(|c| {
            let bytes = cast(c, &DataType::UInt8).map_err(|_| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Conditions of {function} must be UInt8")))?;
            Ok(bytes.as_primitive::<UInt8Type>().values().iter().map(|v| *v != 0).collect())
        })
        .collect()
}

fn check_conditions(function: &str, args: &[ChType], first: usize) -> DfResult<()> {
    for (i, a) in args.iter().enumerate().skip(first) {
        if !matches!(a, ChType::UInt8 | ChType::Bool) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {a} of argument {} of aggregate function {function}, must be UInt8", i + 1)));
        }
    }
    if args.len() - first > MAX_EVENTS {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Too many event arguments for aggregate function {function}")));
    }
    Ok(())
}

// ------------------------------------------------------------------ retention

#[derive(Debug)]
struct RetentionSpec;

pub(crate) fn retention(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    crate::value_stats::no_params("retention", params)?;
    Ok(Arc::new(RetentionSpec))
}

impl Spec for RetentionSpec {
    fn name(&self) -> &str {
        "retention"
    }
    fn arity(&self) -> Arity {
        Arity::at_least(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::DefaultResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if args.len() < 2 {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Not enough event arguments for aggregate function retention"));
        }
        check_conditions("retention", args, 0)?;
        Ok(ChType::Array(Box::new(ChType::UInt8)))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(Retention { events: args.len(), seen: 0 }))
    }
}

/// Bit `i` says condition `i` held on some row.
#[derive(Debug, Clone)]
struct Retention {
    events: usize,
    seen: u32,
}

impl NativeState for Retention {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        for (i, condition) in conditions("retention", columns)?.iter().enumerate() {
            if condition.iter().any(|c| *c) {
                self.seen |= 1 << i;
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        self.seen |= u32::from_le_bytes(take(input, 4)?.try_into().map_err(|_| crate::native_state::truncated())?);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.seen.to_le_bytes());
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        // Every later condition counts only together with the first.
        let first = self.seen & 1 != 0;
        let values = UInt8Array::from_iter_values((0..self.events).map(|i| u8::from(first && self.seen & (1 << i) != 0)));
        let field = Arc::new(Field::new("item", DataType::UInt8, false));
        Ok(ScalarValue::List(Arc::new(ListArray::try_new(field, OffsetBuffer::from_lengths([self.events]), Arc::new(values), None)?)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ intervalLengthSum

#[derive(Debug)]
struct IntervalSpec;

pub(crate) fn interval_length_sum(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    crate::value_stats::no_params("intervalLengthSum", params)?;
    Ok(Arc::new(IntervalSpec))
}

impl Spec for IntervalSpec {
    fn name(&self) -> &str {
        "intervalLengthSum"
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::Skip
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if args[0] != args[1] {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Illegal types {} and {} of arguments of aggregate function intervalLengthSum, both arguments should have same data type", args[0], args[1]),
            ));
        }
        match NumType::of(&args[0]) {
            Some(ty) if !matches!(args[0], ChType::Date32 | ChType::DateTime64(..) | ChType::Bool) => Ok(if ty.is_float() { ChType::Float64 } else { ChType::UInt64 }),
            _ => Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Illegal type {} of argument of aggregate function intervalLengthSum, must be native integral type, Date/DateTime or Float", args[0]),
            )),
        }
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let ty = NumType::of(&args[0]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "intervalLengthSum over numbers"))?;
        Ok(Box::new(Intervals { ty, sorted: false, segments: Vec::new() }))
    }
}

/// ClickHouse's `AggregateFunctionIntervalLengthSumData`: the segments as (low, high).
#[derive(Debug, Clone)]
struct Intervals {
    ty: NumType,
    /// Set by merges, which sort the segments, as ClickHouse's flag.
    sorted: bool,
    segments: Vec<(Num, Num)>,
}

fn by_start(a: &(Num, Num), b: &(Num, Num)) -> std::cmp::Ordering {
    a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
}

/// The length of the union of `segments` (sorted by start), ClickHouse's sweep.
fn union_length(segments: &[(Num, Num)]) -> f64 {
    let Some(&(mut start, mut end)) = segments.first() else { return 0.0 };
    let mut total = 0.0;
    for &(s, e) in &segments[1..] {
        if s > end {
            total += end.as_f64() - start.as_f64();
            (start, end) = (s, e);
        } else if e > end {
            end = e;
        }
    }
    total + (end.as_f64() - start.as_f64())
}

impl NativeState for Intervals {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let (starts, ends) = (self.ty.values(&columns[0])?, self.ty.values(&columns[1])?);
        // ClickHouse keeps no empty intervals.
        self.segments.extend(starts.into_iter().zip(ends).filter(|(a, b)| a != b).map(|(a, b)| if b < a { (b, a) } else { (a, b) }));
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let _other_sorted = take(input, 1)?[0] != 0;
        let n = read_u64(input)?;
        if n.saturating_mul(2 * self.ty.width() as u64) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        for _ in 0..n {
            let a = self.ty.read(input)?;
            let b = self.ty.read(input)?;
            self.segments.push((a, b));
        }
        self.segments.sort_by(by_start);
        self.sorted = true;
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.sorted));
        out.extend_from_slice(&(self.segments.len() as u64).to_le_bytes());
        for (a, b) in &self.segments {
            self.ty.write(*a, out);
            self.ty.write(*b, out);
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let mut segments = self.segments.clone();
        segments.sort_by(by_start);
        let length = union_length(&segments);
        Ok(if self.ty.is_float() { ScalarValue::Float64(Some(length)) } else { ScalarValue::UInt64(Some(length as u64)) })
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.segments.capacity() * std::mem::size_of::<(Num, Num)>()
    }
}

// ------------------------------------------------------------------ windowFunnel

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct FunnelModes {
    strict_order: bool,
    strict_deduplication: bool,
    strict_increase: bool,
}

#[derive(Debug)]
struct FunnelSpec {
    name: String,
    window: u64,
    modes: FunnelModes,
}

pub(crate) fn window_funnel(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let window = match params.first() {
        None => {
            return Err(ch_error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Aggregate function windowFunnel requires at least one parameter: <window>, [option, [option, ...]]",
            ))
        }
        Some(ScalarValue::UInt64(Some(w))) => *w,
        Some(other) => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function windowFunnel requires a window of UInt64, got {other}"))),
    };
    let mut modes = FunnelModes::default();
    for param in &params[1..] {
        match param {
            ScalarValue::Utf8(Some(s)) if s == "strict_order" => modes.strict_order = true,
            ScalarValue::Utf8(Some(s)) if s == "strict_deduplication" => modes.strict_deduplication = true,
            ScalarValue::Utf8(Some(s)) if s == "strict_increase" => modes.strict_increase = true,
            ScalarValue::Utf8(Some(s)) => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function windowFunnel doesn't support a parameter: {s}"))),
            other => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function windowFunnel doesn't support a parameter: {other}"))),
        }
    }
    Ok(Arc::new(FunnelSpec { name: parametric_name("windowFunnel", params), window, modes }))
}

/// The `windowFunnel` family for [`crate::parametric::FAMILIES`].
pub(crate) fn window_funnel_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(window_funnel, params)
}

impl Spec for FunnelSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::at_least(1)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if args.len() < 2 {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function windowFunnel requires one timestamp argument and at least one event condition."));
        }
        if !matches!(args[0], ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Date | ChType::DateTime(_)) {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Illegal type {} of first argument of aggregate function windowFunnel, must be Unsigned Number, Date, DateTime", args[0]),
            ));
        }
        check_conditions("windowFunnel", args, 1)?;
        Ok(ChType::UInt8)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let ty = NumType::of(&args[0]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "windowFunnel timestamps are numbers"))?;
        Ok(Box::new(Funnel { ty, events: args.len() - 1, window: self.window, modes: self.modes, sorted: true, list: Vec::new() }))
    }
}

/// ClickHouse's `AggregateFunctionWindowFunnelData`: (timestamp, event) pairs, event 1
/// for the first condition (0 for rows matching none, kept only in strict order).
#[derive(Debug, Clone)]
struct Funnel {
    ty: NumType,
    events: usize,
    window: u64,
    modes: FunnelModes,
    sorted: bool,
    list: Vec<(u64, u8)>,
}

impl Funnel {
    fn push(&mut self, timestamp: u64, event: u8) {
        if self.sorted {
            if let Some(&(last_ts, last_event)) = self.list.last() {
                self.sorted = if last_ts == timestamp { last_event <= event } else { last_ts <= timestamp };
            }
        }
        self.list.push((timestamp, event));
    }

    fn sort(&mut self) {
        if !self.sorted {
            self.list.sort();
            self.sorted = true;
        }
    }

    /// ClickHouse's `getEventLevel`: the longest chain 1, 2, ... within the window.
    fn level(&self, list: &[(u64, u8)]) -> u8 {
        if list.is_empty() {
            return 0;
        }
        let modes = self.modes;
        if !modes.strict_order && self.events == 1 {
            return 1;
        }
        // Of each level reached: the timestamps of its chain's first and latest event.
        let mut reached: Vec<Option<(u64, u64)>> = vec![None; self.events];
        let mut first_event = false;
        for (i, &(timestamp, event)) in list.iter().enumerate() {
            if event == 0 {
                if modes.strict_order && first_event {
                    break;
                }
                continue;
            }
            let index = event as usize - 1;
            if index == 0 {
                reached[0] = Some((timestamp, timestamp));
                first_event = true;
            } else if modes.strict_deduplication && reached[index].is_some_and(|(first, _)| reached[index - 1].is_some_and(|(chain, _)| chain == first)) {
                // A step repeated within the same chain (one started by a later first
                // event is a new chain).
                return list[i - 1].1;
            } else if modes.strict_order && first_event && reached[index - 1].is_none() {
                return reached.iter().position(Option::is_none).unwrap_or(self.events) as u8;
            } else if let Some((first, previous)) = reached[index - 1] {
                let mut matched = timestamp <= first.saturating_add(self.window);
                if modes.strict_increase {
                    matched = matched && previous < timestamp;
                }
                if matched {
                    reached[index] = Some((first, timestamp));
                    if index + 1 == self.events {
                        return self.events as u8;
                    }
                }
            }
        }
        reached.iter().rposition(Option::is_some).map_or(0, |p| p as u8 + 1)
    }
}

impl NativeState for Funnel {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let stamps = self.ty.values(&columns[0])?;
        let conditions = conditions("windowFunnel", &columns[1..])?;
        for (row, timestamp) in stamps.into_iter().enumerate() {
            let timestamp = timestamp.as_f64() as u64;
            let mut any = false;
            // Later conditions first, as ClickHouse adds them (a stable sort keeps that).
            for event in (1..=self.events).rev() {
                if conditions[event - 1][row] {
                    self.push(timestamp, event as u8);
                    any = true;
                }
            }
            if self.modes.strict_order && !any {
                self.push(timestamp, 0);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let _other_sorted = take(input, 1)?[0] != 0;
        let n = read_u64(input)?;
        if n.saturating_mul(self.ty.width() as u64 + 1) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        for _ in 0..n {
            let timestamp = self.ty.read(input)?.as_f64() as u64;
            let event = take(input, 1)?[0];
            self.list.push((timestamp, event));
        }
        self.sorted = false;
        self.sort();
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.sorted));
        out.extend_from_slice(&(self.list.len() as u64).to_le_bytes());
        for &(timestamp, event) in &self.list {
            self.ty.write(Num::Int(timestamp as i128), out);
            out.push(event);
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let mut sorted = self.clone();
        sorted.sort();
        Ok(ScalarValue::UInt8(Some(self.level(&sorted.list))))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.list.capacity() * 16
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn funnel(window: u64, modes: FunnelModes, events: usize, list: &[(u64, u8)]) -> u8 {
        let f = Funnel { ty: NumType::Int { width: 8, signed: false }, events, window, modes, sorted: true, list: list.to_vec() };
        f.level(list)
    }

    #[test]
    fn funnel_levels() {
        let plain = FunnelModes::default();
        // 1 at 0, 2 at 3, 3 at 9: the third step is outside a window of 5.
        assert_eq!(funnel(5, plain, 3, &[(0, 1), (3, 2), (9, 3)]), 2);
        assert_eq!(funnel(10, plain, 3, &[(0, 1), (3, 2), (9, 3)]), 3);
        // A later first event restarts the chain's window.
        assert_eq!(funnel(5, plain, 3, &[(0, 1), (3, 2), (8, 1), (9, 2), (12, 3)]), 3);
        // strict_order: an event out of order ends the search.
        let strict = FunnelModes { strict_order: true, ..plain };
        assert_eq!(funnel(10, strict, 3, &[(0, 1), (1, 3), (2, 2)]), 1);
        assert_eq!(funnel(10, strict, 3, &[(0, 1), (1, 0), (2, 2)]), 1);
        // strict_deduplication: a repeated step stops at the level before it.
        let dedup = FunnelModes { strict_deduplication: true, ..plain };
        assert_eq!(funnel(10, dedup, 3, &[(0, 1), (1, 2), (2, 2), (3, 3)]), 2);
        assert_eq!(funnel(10, dedup, 3, &[(0, 1), (1, 2), (2, 1), (3, 2), (4, 3)]), 3);
        // strict_increase: equal timestamps do not advance.
        let increase = FunnelModes { strict_increase: true, ..plain };
        assert_eq!(funnel(10, increase, 2, &[(0, 1), (0, 2)]), 1);
        assert_eq!(funnel(10, plain, 2, &[(0, 1), (0, 2)]), 2);
    }

    #[test]
    fn interval_union() {
        let n = |a: i128, b: i128| (Num::Int(a), Num::Int(b));
        assert_eq!(union_length(&[n(1, 3), n(2, 5), n(5, 5), n(10, 12)]), 6.0);
        assert_eq!(union_length(&[n(1, 10), n(2, 3), n(4, 5)]), 9.0);
        assert_eq!(union_length(&[]), 0.0);
    }
}
