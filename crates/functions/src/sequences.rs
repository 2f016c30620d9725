//! `sequenceMatch(pattern)(t, c1, ...)` and `sequenceCount(pattern)(t, c1, ...)`:
//! whether (how many times, without overlap) the rows, ordered by time, match a pattern
//! of events, with ClickHouse's pattern language, backtracking matcher and state bytes.
//!
//! A pattern is a sequence of `(?N)` (a row where condition N holds), `.` (any row),
//! `.*` (any number of rows) and `(?t op S)` (the time since the previous matched row
//! compared with S: `<`, `<=`, `>`, `>=`, `==`), searched anywhere in the rows (an
//! implicit `.*` first). Only rows where some condition holds are kept.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, UInt8Type};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{read_u64, take, NativeState, Num, NumType, Spec};
use crate::parametric::parametric_name;

/// ClickHouse's `sequence_match_max_iterations` default.
const MAX_ITERATIONS: usize = 1_000_000;
const MAX_EVENTS: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// A row where condition `n` (0-based) holds.
    Event(u32),
    AnyEvent,
    KleeneStar,
    TimeLess(u64),
    TimeLessOrEqual(u64),
    TimeGreater(u64),
    TimeGreaterOrEqual(u64),
    TimeEqual(u64),
}

impl Action {
    fn is_time(self) -> bool {
        matches!(self, Action::TimeLess(_) | Action::TimeLessOrEqual(_) | Action::TimeGreater(_) | Action::TimeGreaterOrEqual(_) | Action::TimeEqual(_))
    }

    /// Whether the row at `t` satisfies this time condition after the row at `base`.
    fn time_holds(self, t: u64, base: u64) -> bool {
        match self {
            Action::TimeLess(s) => t < base.wrapping_add(s),
            Action::TimeLessOrEqual(s) => t <= base.wrapping_add(s),
            Action::TimeGreater(s) => t > base.wrapping_add(s),
            Action::TimeGreaterOrEqual(s) => t >= base.wrapping_add(s),
            Action::TimeEqual(s) => t == base.wrapping_add(s),
            _ => false,
        }
    }
}

/// ClickHouse's `parsePattern`; `conditions` is the number of condition arguments.
fn parse_pattern(pattern: &str, conditions: usize) -> DfResult<Vec<Action>> {
    let syntax = |what: &str, pos: usize| ch_error(ErrorCode::SYNTAX_ERROR, format!("{what} at position {pos}"));
    let bytes = pattern.as_bytes();
    let mut actions = vec![Action::KleeneStar];
    let mut pos = 0;
    let number = |pos: &mut usize| -> Option<u64> {
        let start = *pos;
        while *pos < bytes.len() && bytes[*pos].is_ascii_digit() {
            *pos += 1;
        }
        pattern[start..*pos].parse().ok()
    };
    while pos < bytes.len() {
        if bytes[pos..].starts_with(b"(?") {
            pos += 2;
            if bytes.get(pos) == Some(&b't') {
                pos += 1;
                let ops: [(&[u8], fn(u64) -> Action); 5] =
                    [(b"<=", Action::TimeLessOrEqual), (b"<", Action::TimeLess), (b">=", Action::TimeGreaterOrEqual), (b">", Action::TimeGreater), (b"==", Action::TimeEqual)];
                let Some((op, make)) = ops.iter().find(|(op, _)| bytes[pos..].starts_with(op)) else { return Err(syntax("Unknown time condition", pos)) };
                pos += op.len();
                let duration = number(&mut pos).ok_or_else(|| syntax("Could not parse number", pos))?;
                if actions.last().is_some_and(|a| a.is_time()) {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Temporal condition should be preceded by an event condition"));
                }
                actions.push(make(duration));
            } else {
                let event = number(&mut pos).ok_or_else(|| syntax("Could not parse number", pos))?;
                if event == 0 || event as usize > conditions {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Event number {event} is out of range")));
                }
                actions.push(Action::Event(event as u32 - 1));
            }
            if bytes.get(pos) != Some(&b')') {
                return Err(syntax("Expected closing parenthesis, found", pos));
            }
            pos += 1;
        } else if bytes[pos..].starts_with(b".*") {
            pos += 2;
            actions.push(Action::KleeneStar);
        } else if bytes[pos] == b'.' {
            pos += 1;
            actions.push(Action::AnyEvent);
        } else {
            let symbol = pattern[pos..].chars().next().unwrap_or(' ');
            return Err(syntax(&format!("Could not parse pattern, unexpected starting symbol '{symbol}'"), pos));
        }
    }
    Ok(actions)
}

/// ClickHouse's `backtrackingMatch`: tries to match `actions` from row `*start` of
/// `events` (timestamp, conditions bitmask), leaving `*start` after the match (or past
/// the rows tried). Whether it matched.
fn backtracking_match(actions: &[Action], events: &[(u64, u64)], start: &mut usize) -> DfResult<bool> {
    let begin = *start;
    let mut event = *start;
    let mut base = *start;
    let mut action = 0;
    // (action, row, base row) to resume from.
    let mut stack: Vec<(usize, usize, usize)> = Vec::new();
    let mut iterations = 0;
    let backtrack = |stack: &mut Vec<(usize, usize, usize)>, action: &mut usize, event: &mut usize, base: &mut usize| -> bool {
        while let Some((a, e, b)) = stack.pop() {
            *action = a;
            *event = e + 1;
            *base = b;
            if *event != events.len() {
                return true;
            }
        }
        false
    };
    while action < actions.len() && event < events.len() {
        match actions[action] {
            Action::Event(n) => {
                if events[event].1 & (1 << n) != 0 {
                    base = event;
                    action += 1;
                    event += 1;
                } else if !backtrack(&mut stack, &mut action, &mut event, &mut base) {
                    break;
                }
            }
            Action::AnyEvent => {
                base = event;
                action += 1;
                event += 1;
            }
            Action::KleeneStar => {
                stack.push((action, event, base));
                base = event;
                action += 1;
            }
            time => {
                if time.time_holds(events[event].0, events[base].0) {
                    stack.push((action, event, base));
                    base = event;
                    action += 1;
                } else if matches!(time, Action::TimeLess(_) | Action::TimeLessOrEqual(_)) {
                    // Too late already: later rows are later still.
                    if !backtrack(&mut stack, &mut action, &mut event, &mut base) {
                        break;
                    }
                } else {
                    // Too early (or not equal yet): a later row may do.
                    event += 1;
                    if event == events.len() && !backtrack(&mut stack, &mut action, &mut event, &mut base) {
                        break;
                    }
                }
            }
        }
        iterations += 1;
        if iterations > MAX_ITERATIONS {
            return Err(ch_error(ErrorCode::TOO_SLOW, "Pattern application proves too difficult, exceeding max iterations (1000000)"));
        }
    }
    // Actions left that match nothing at the end.
    while action < actions.len()
        && matches!(actions[action], Action::KleeneStar | Action::TimeLessOrEqual(_) | Action::TimeLess(_) | Action::TimeGreaterOrEqual(0))
    {
        action += 1;
    }
    if event == begin {
        event += 1;
    }
    *start = event;
    Ok(action == actions.len())
}

#[derive(Debug)]
struct SequenceSpec {
    name: String,
    pattern: String,
    count: bool,
}

fn build(family: &'static str, count: bool, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let pattern = match params {
        [ScalarValue::Utf8(Some(p))] => p.clone(),
        [_] => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {family} requires a String pattern"))),
        _ => return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {family} requires exactly one parameter."))),
    };
    // Checks the syntax where the call is written; event numbers need the arguments.
    parse_pattern(&pattern, MAX_EVENTS)?;
    Ok(Arc::new(SequenceSpec { name: parametric_name(family, params), pattern, count }))
}

pub(crate) fn sequence_match(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("sequenceMatch", false, params)
}
pub(crate) fn sequence_count(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("sequenceCount", true, params)
}
/// The families for [`crate::parametric::FAMILIES`].
pub(crate) fn sequence_match_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sequence_match, params)
}
pub(crate) fn sequence_count_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sequence_count, params)
}

impl Spec for SequenceSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::at_least(1)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let function = crate::combinators::without_params(&self.name);
        if args.len() < 3 {
            return Err(ch_error(ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION, format!("Aggregate function {function} requires at least 3 arguments.")));
        }
        if args.len() - 1 > MAX_EVENTS {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {function} supports up to {MAX_EVENTS} event arguments.")));
        }
        if !matches!(args[0], ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Date | ChType::DateTime(_)) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of first argument of aggregate function {function}, must be DateTime", args[0])));
        }
        for (i, a) in args.iter().enumerate().skip(1) {
            if !matches!(a, ChType::UInt8 | ChType::Bool) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {a} of argument {} of aggregate function {function}, must be UInt8", i + 1)));
            }
        }
        parse_pattern(&self.pattern, args.len() - 1)?;
        Ok(if self.count { ChType::UInt64 } else { ChType::UInt8 })
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let ty = NumType::of(&args[0]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "sequence timestamps are numbers"))?;
        Ok(Box::new(Sequence { ty, actions: Arc::new(parse_pattern(&self.pattern, args.len() - 1)?), count: self.count, sorted: true, events: Vec::new() }))
    }
}

/// ClickHouse's `AggregateFunctionSequenceMatchData`: (timestamp, conditions) of the rows
/// where some condition holds.
#[derive(Debug, Clone)]
struct Sequence {
    ty: NumType,
    actions: Arc<Vec<Action>>,
    count: bool,
    sorted: bool,
    events: Vec<(u64, u64)>,
}

impl NativeState for Sequence {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let stamps = self.ty.values(&columns[0])?;
        let mut bits = vec![0u64; stamps.len()];
        for (i, column) in columns[1..].iter().enumerate() {
            let condition = cast(column, &DataType::UInt8)?;
            for (row, v) in condition.as_primitive::<UInt8Type>().values().iter().enumerate() {
                bits[row] |= u64::from(*v != 0) << i;
            }
        }
        for (timestamp, bits) in stamps.into_iter().zip(bits) {
            if bits != 0 {
                self.events.push((timestamp.as_f64() as u64, bits));
                self.sorted = false;
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let _other_sorted = take(input, 1)?[0] != 0;
        let n = read_u64(input)?;
        if n.saturating_mul(self.ty.width() as u64 + 8) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        for _ in 0..n {
            let timestamp = self.ty.read(input)?.as_f64() as u64;
            let bits = read_u64(input)?;
            self.events.push((timestamp, bits));
        }
        self.sorted = false;
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.sorted));
        out.extend_from_slice(&(self.events.len() as u64).to_le_bytes());
        for &(timestamp, bits) in &self.events {
            self.ty.write(Num::Int(timestamp as i128), out);
            out.extend_from_slice(&bits.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let mut events = self.events.clone();
        // A stable sort by time alone, as ClickHouse's (`ComparePairFirst`): rows of
        // one time keep the order they came in.
        events.sort_by_key(|(timestamp, _)| *timestamp);
        let mut start = 0;
        if !self.count {
            return Ok(ScalarValue::UInt8(Some(u8::from(!events.is_empty() && backtracking_match(&self.actions, &events, &mut start)?))));
        }
        let mut matches = 0u64;
        while start < events.len() && backtracking_match(&self.actions, &events, &mut start)? {
            matches += 1;
        }
        Ok(ScalarValue::UInt64(Some(matches)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.events.capacity() * 16
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn count(pattern: &str, events: &[(u64, u64)]) -> (bool, u64) {
        let actions = parse_pattern(pattern, 3).unwrap();
        let mut start = 0;
        let matched = backtracking_match(&actions, events, &mut start).unwrap();
        let mut start = 0;
        let mut n = 0;
        while start < events.len() && backtracking_match(&actions, events, &mut start).unwrap() {
            n += 1;
        }
        (matched, n)
    }

    #[test]
    fn patterns() {
        assert_eq!(parse_pattern("(?1).*(?2)(?t>=3)", 2).unwrap(), vec![Action::KleeneStar, Action::Event(0), Action::KleeneStar, Action::Event(1), Action::TimeGreaterOrEqual(3)]);
        assert!(parse_pattern("(?3)", 2).is_err());
        assert!(parse_pattern("(?1)x", 2).is_err());
        assert!(parse_pattern("(?1)(?t<1)(?t<2)", 2).is_err());
        // Events 1 at 0, 2 at 1, 1 at 4, 2 at 5, 3 at 9 (bit n-1 for event n).
        let events = [(0, 1), (1, 2), (4, 1), (5, 2), (9, 4)];
        assert_eq!(count("(?1)(?2)", &events), (true, 2));
        assert_eq!(count("(?1)(?3)", &events), (false, 0));
        assert_eq!(count("(?1).*(?3)", &events), (true, 1));
        assert_eq!(count("(?2)(?t<=3)(?3)", &events), (false, 0));
        assert_eq!(count("(?2)(?t>3)(?3)", &events), (true, 1));
        assert_eq!(count("(?1).(?1)", &events), (true, 1));
        // A `>` condition skips rows until enough time passed; the row found must
        // then match the next event.
        assert_eq!(count("(?1)(?t>=6)(?2)", &events), (false, 0));
        assert_eq!(count("(?1)(?t>=4)(?2)", &[(0, 1), (1, 2), (5, 2)]), (true, 1));
    }
}
