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
    /// With `strict_order`: a step whose previous step has not happened is skipped instead
    /// of ending the search.
    allow_reentry: bool,
    /// A row counts for one step of a chain only, even when it matches several conditions.
    strict_once: bool,
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
        let ScalarValue::Utf8(Some(option)) = param else {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function windowFunnel doesn't support a parameter: {param}")));
        };
        match option.as_str() {
            "strict_order" => modes.strict_order = true,
            "strict_deduplication" => modes.strict_deduplication = true,
            "strict_increase" => modes.strict_increase = true,
            "allow_reentry" => modes.allow_reentry = true,
            "strict_once" => modes.strict_once = true,
            "strict" => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "strict is replaced with strict_deduplication in Aggregate function windowFunnel")),
            _ => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function windowFunnel doesn't support a parameter: {option}"))),
        }
    }
    if modes.allow_reentry && !modes.strict_order {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "allow_reentry option requires strict_order to be enabled in Aggregate function windowFunnel"));
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
        Ok(Box::new(Funnel { ty, events: args.len() - 1, window: self.window, modes: self.modes, sorted: true, list: Vec::new(), next_id: 1 }))
    }
}

/// One row's match of a condition: event 1 for the first condition (0 for rows matching
/// none, kept only in strict order). `id` numbers the rows under `strict_once` (0 otherwise),
/// so the tuple order is ClickHouse's in both of its state layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FunnelEvent {
    timestamp: u64,
    event: u8,
    id: u64,
}

/// ClickHouse's `AggregateFunctionWindowFunnelData`, or with `strict_once`
/// `AggregateFunctionWindowFunnelStrictOnceData` (each event also carries its row's id).
#[derive(Debug, Clone)]
struct Funnel {
    ty: NumType,
    events: usize,
    window: u64,
    modes: FunnelModes,
    sorted: bool,
    list: Vec<FunnelEvent>,
    /// The id of the next row added under `strict_once`.
    next_id: u64,
}

/// Of a chain under `strict_once`: its first and latest timestamps and the row id used at
/// each step.
#[derive(Debug, Clone)]
struct FunnelPath {
    first: u64,
    last: u64,
    rows: [u64; MAX_EVENTS],
}

impl Funnel {
    fn push(&mut self, item: FunnelEvent) {
        if self.sorted {
            if let Some(last) = self.list.last() {
                self.sorted = *last <= item;
            }
        }
        self.list.push(item);
    }

    fn sort(&mut self) {
        if !self.sorted {
            self.list.sort();
            self.sorted = true;
        }
    }

    fn within(&self, timestamp: u64, first: u64) -> bool {
        timestamp <= first.saturating_add(self.window)
    }

    /// ClickHouse's `getEventLevel`: the longest chain 1, 2, ... within the window.
    fn level(&self, list: &[FunnelEvent]) -> u8 {
        if list.is_empty() {
            return 0;
        }
        if !self.modes.strict_order && self.events == 1 {
            return 1;
        }
        if self.modes.strict_once {
            self.level_strict_once(list)
        } else {
            self.level_any(list)
        }
    }

    fn level_any(&self, list: &[FunnelEvent]) -> u8 {
        let modes = self.modes;
        // Of each level reached: the timestamps of its chain's first and latest event.
        let mut reached: Vec<Option<(u64, u64)>> = vec![None; self.events];
        let mut first_event = false;
        for &FunnelEvent { timestamp, event, .. } in list {
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
            } else if modes.strict_deduplication && reached[index].is_some() {
                break;
            } else if modes.strict_order && first_event && reached[index - 1].is_none() {
                if modes.allow_reentry {
                    continue;
                }
                return reached.iter().position(Option::is_none).unwrap_or(self.events) as u8;
            } else if let Some((first, previous)) = reached[index - 1] {
                let mut matched = self.within(timestamp, first);
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

    /// Every chain is followed, since a row matching several conditions may serve any one
    /// of them, but never two steps of the same chain.
    fn level_strict_once(&self, list: &[FunnelEvent]) -> u8 {
        let modes = self.modes;
        let mut chains: Vec<Vec<FunnelPath>> = vec![Vec::new(); self.events];
        let mut first_event = false;
        for &FunnelEvent { timestamp, event, id } in list {
            if event == 0 {
                if modes.strict_order && first_event {
                    break;
                }
                continue;
            }
            let index = event as usize - 1;
            if index == 0 {
                let mut rows = [0; MAX_EVENTS];
                rows[0] = id;
                chains[0].push(FunnelPath { first: timestamp, last: timestamp, rows });
                first_event = true;
            } else if modes.strict_deduplication && !chains[index].is_empty() {
                break;
            } else if modes.strict_order && first_event && chains[index - 1].is_empty() {
                if modes.allow_reentry {
                    continue;
                }
                return chains.iter().position(Vec::is_empty).unwrap_or(self.events) as u8;
            } else if !chains[index - 1].is_empty() {
                let (before, after) = chains.split_at_mut(index);
                let (previous, current) = (&mut before[index - 1], &mut after[0]);
                let mut i = 0;
                while i < previous.len() {
                    let path = &previous[i];
                    let mut matched = self.within(timestamp, path.first);
                    // Chains out of the window go, but the last one stays.
                    if !matched && previous.len() > 1 {
                        previous.remove(i);
                        continue;
                    }
                    matched = matched && !path.rows[..index].contains(&id);
                    if modes.strict_increase {
                        matched = matched && path.last < timestamp;
                    }
                    if matched {
                        let mut rows = path.rows;
                        rows[index] = id;
                        current.push(FunnelPath { first: path.first, last: timestamp, rows });
                        if index + 1 == self.events {
                            return self.events as u8;
                        }
                    }
                    i += 1;
                }
            }
        }
        chains.iter().rposition(|c| !c.is_empty()).map_or(0, |p| p as u8 + 1)
    }
}

impl NativeState for Funnel {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let stamps = self.ty.values(&columns[0])?;
        let conditions = conditions("windowFunnel", &columns[1..])?;
        for (row, timestamp) in stamps.into_iter().enumerate() {
            let timestamp = timestamp.as_f64() as u64;
            let id = if self.modes.strict_once { self.next_id } else { 0 };
            let mut any = false;
            // Later conditions first, as ClickHouse adds them (a stable sort keeps that).
            for event in (1..=self.events).rev() {
                if conditions[event - 1][row] {
                    self.push(FunnelEvent { timestamp, event: event as u8, id });
                    any = true;
                }
            }
            if self.modes.strict_order && !any {
                self.push(FunnelEvent { timestamp, event: 0, id });
            }
            if self.modes.strict_once {
                self.next_id += 1;
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let _other_sorted = take(input, 1)?[0] != 0;
        let n = read_u64(input)?;
        let id_width = if self.modes.strict_once { 8 } else { 0 };
        if n.saturating_mul(self.ty.width() as u64 + 1 + id_width) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        if n == 0 {
            return Ok(());
        }
        let mut next_id = self.next_id;
        for _ in 0..n {
            let timestamp = self.ty.read(input)?.as_f64() as u64;
            let event = take(input, 1)?[0];
            // The other state's row ids follow this one's, as ClickHouse renumbers them.
            let id = if self.modes.strict_once { read_u64(input)?.wrapping_add(self.next_id) } else { 0 };
            next_id = next_id.max(id.wrapping_add(1));
            self.list.push(FunnelEvent { timestamp, event, id });
        }
        if self.modes.strict_once {
            self.next_id = next_id;
        }
        // A stable sort of both runs is what ClickHouse's sort-then-inplace_merge yields.
        self.list.sort();
        self.sorted = true;
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.sorted));
        out.extend_from_slice(&(self.list.len() as u64).to_le_bytes());
        for item in &self.list {
            self.ty.write(Num::Int(item.timestamp as i128), out);
            out.push(item.event);
            if self.modes.strict_once {
                out.extend_from_slice(&item.id.to_le_bytes());
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let mut sorted = self.clone();
        sorted.sort();
        Ok(ScalarValue::UInt8(Some(self.level(&sorted.list))))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.list.capacity() * std::mem::size_of::<FunnelEvent>()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn funnel(window: u64, modes: FunnelModes, events: usize, list: &[(u64, u8)]) -> u8 {
        // Each pair is its own row.
        let list: Vec<FunnelEvent> = list.iter().enumerate().map(|(i, &(timestamp, event))| FunnelEvent { timestamp, event, id: if modes.strict_once { i as u64 + 1 } else { 0 } }).collect();
        let f = Funnel { ty: NumType::Int { width: 8, signed: false }, events, window, modes, sorted: true, list: list.clone(), next_id: 1 };
        f.level(&list)
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
        // allow_reentry: the early step is skipped and the chain goes on.
        let reentry = FunnelModes { allow_reentry: true, ..strict };
        assert_eq!(funnel(10, reentry, 3, &[(0, 1), (1, 3), (2, 2), (3, 3)]), 3);
        assert_eq!(funnel(10, reentry, 3, &[(0, 1), (1, 0), (2, 2)]), 1);
        // strict_deduplication: a repeated step stops at the highest level reached, even
        // when a later first event started a new chain.
        let dedup = FunnelModes { strict_deduplication: true, ..plain };
        assert_eq!(funnel(10, dedup, 3, &[(0, 1), (1, 2), (2, 2), (3, 3)]), 2);
        assert_eq!(funnel(10, dedup, 3, &[(0, 1), (1, 2), (2, 1), (3, 2), (4, 3)]), 2);
        // strict_increase: equal timestamps do not advance.
        let increase = FunnelModes { strict_increase: true, ..plain };
        assert_eq!(funnel(10, increase, 2, &[(0, 1), (0, 2)]), 1);
        assert_eq!(funnel(10, plain, 2, &[(0, 1), (0, 2)]), 2);
    }

    #[test]
    fn funnel_strict_once() {
        let once = FunnelModes { strict_once: true, ..FunnelModes::default() };
        // One row matching steps 1 and 2 (the same id) is not a chain of two.
        let same_row = [FunnelEvent { timestamp: 0, event: 1, id: 1 }, FunnelEvent { timestamp: 0, event: 2, id: 1 }];
        let f = Funnel { ty: NumType::Int { width: 8, signed: false }, events: 2, window: 10, modes: once, sorted: true, list: same_row.to_vec(), next_id: 2 };
        assert_eq!(f.level(&same_row), 1);
        let f = Funnel { modes: FunnelModes::default(), ..f };
        assert_eq!(f.level(&same_row), 2);
        // Both chains are followed: the one started at 0 is out of the window at 20, the
        // one started at 15 is not.
        assert_eq!(funnel(10, once, 3, &[(0, 1), (5, 2), (15, 1), (20, 2), (22, 3)]), 3);
        assert_eq!(funnel(10, once, 3, &[(0, 1), (5, 2), (20, 3)]), 2);
    }

    #[test]
    fn interval_union() {
        let n = |a: i128, b: i128| (Num::Int(a), Num::Int(b));
        assert_eq!(union_length(&[n(1, 3), n(2, 5), n(5, 5), n(10, 12)]), 6.0);
        assert_eq!(union_length(&[n(1, 10), n(2, 3), n(4, 5)]), 9.0);
        assert_eq!(union_length(&[]), 0.0);
    }
}
