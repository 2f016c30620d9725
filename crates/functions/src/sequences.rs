//! `sequenceMatch(pattern)(t, c1, ...)`, `sequenceCount(pattern)(t, c1, ...)` and
//! `sequenceMatchEvents(pattern)(t, c1, ...)`: whether (how many times, without overlap,
//! at which times) the rows, ordered by time, match a pattern of events, with ClickHouse's
//! pattern language, matchers (a DFA for patterns without time conditions, backtracking
//! otherwise, both bounded by its 1000000 iterations) and state bytes.
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
use crate::native_state::{read_u64, take, NativeState, NullHandling, Num, NumType, Spec};
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

/// A parsed pattern with what ClickHouse derives from it.
#[derive(Debug)]
struct Pattern {
    actions: Vec<Action>,
    has_time: bool,
    /// Bit n: condition n appears in the pattern.
    conditions: u64,
    /// Of each action: how many event actions come before it.
    events_before: Vec<usize>,
    /// ClickHouse's DFA states: (a `.*` loops on the state, the transition out of it).
    dfa: Vec<(bool, Transition)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transition {
    None,
    Any,
    Event(u32),
}

fn too_slow() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::TOO_SLOW, format!("Pattern application proves too difficult, exceeding max iterations ({MAX_ITERATIONS})"))
}

impl Pattern {
    fn new(actions: Vec<Action>) -> Pattern {
        let mut dfa = vec![(true, Transition::None)];
        let mut conditions = 0;
        let mut events_before = Vec::with_capacity(actions.len());
        let mut events = 0;
        // The first action is the implicit `.*` of the initial state.
        for (i, action) in actions.iter().enumerate() {
            events_before.push(events);
            if i == 0 {
                continue;
            }
            let last = dfa.len() - 1;
            match *action {
                Action::Event(n) => {
                    dfa[last].1 = Transition::Event(n);
                    dfa.push((false, Transition::None));
                    conditions |= 1 << n;
                    events += 1;
                }
                Action::AnyEvent => {
                    dfa[last].1 = Transition::Any;
                    dfa.push((false, Transition::None));
                }
                Action::KleeneStar => dfa[last].0 = true,
                _ => {}
            }
        }
        let has_time = actions.iter().any(|a| a.is_time());
        Pattern { actions, has_time, conditions, events_before, dfa }
    }

    /// ClickHouse's `dfaMatch`: whether the pattern matches somewhere, in O(states * rows).
    fn dfa_match(&self, events: &[(u64, u64)]) -> bool {
        let mut active = vec![false; self.dfa.len()];
        active[0] = true;
        let mut any_active = true;
        for &(_, bits) in events {
            if !any_active || active[self.dfa.len() - 1] {
                break;
            }
            let mut next = vec![false; self.dfa.len()];
            any_active = false;
            for (state, &(kleene, transition)) in self.dfa.iter().enumerate() {
                if !active[state] {
                    continue;
                }
                let advance = match transition {
                    Transition::None => false,
                    Transition::Any => true,
                    Transition::Event(n) => bits & (1 << n) != 0,
                };
                if advance {
                    next[state + 1] = true;
                    any_active = true;
                }
                if kleene {
                    next[state] = true;
                    any_active = true;
                }
            }
            active = next;
        }
        active[self.dfa.len() - 1]
    }

    /// ClickHouse's `couldMatchDeterministicParts`: whether the runs of events and `.`
    /// between `.*` and time conditions can be found in order (a quick "no" before
    /// backtracking).
    fn could_match_deterministic_parts(&self, events: &[(u64, u64)]) -> DfResult<bool> {
        let mut processed = 0;
        let mut event = 0;
        let mut part_begin = 0;
        let mut match_part = |part: &[Action], event: &mut usize| -> DfResult<bool> {
            let mut restart = *event;
            let mut i = 0;
            while i < part.len() && *event < events.len() {
                match part[i] {
                    Action::Event(n) if events[*event].1 & (1 << n) == 0 => {
                        restart += 1;
                        *event = restart;
                        i = 0;
                    }
                    _ => {
                        *event += 1;
                        i += 1;
                    }
                }
                processed += 1;
                if processed > MAX_ITERATIONS {
                    return Err(too_slow());
                }
            }
            Ok(i == part.len())
        };
        for (i, action) in self.actions.iter().enumerate() {
            if !matches!(action, Action::Event(_) | Action::AnyEvent) {
                if !match_part(&self.actions[part_begin..i], &mut event)? {
                    return Ok(false);
                }
                part_begin = i + 1;
            }
        }
        match_part(&self.actions[part_begin..], &mut event)
    }
}

/// ClickHouse's `backtrackingMatch`: tries to match the pattern from row `*start` of
/// `events` (timestamp, conditions bitmask), leaving `*start` after the match (or past
/// the rows tried). Whether it matched. With `longest`, it also keeps the timestamps of
/// the event actions of the longest chain matched on the way (`sequenceMatchEvents`).
fn backtracking_match(pattern: &Pattern, events: &[(u64, u64)], start: &mut usize, mut longest: Option<&mut Vec<u64>>) -> DfResult<bool> {
    let actions = &pattern.actions;
    let begin = *start;
    let mut event = *start;
    let mut base = *start;
    let mut action = 0;
    // (action, row, base row) to resume from.
    let mut stack: Vec<(usize, usize, usize)> = Vec::new();
    let mut chain: Vec<u64> = Vec::new();
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
                    if let Some(longest) = longest.as_deref_mut() {
                        // Backtracking to this action dropped the chain's later steps.
                        chain.truncate(pattern.events_before[action]);
                        chain.push(events[event].0);
                        if chain.len() > longest.len() {
                            longest.clone_from(&chain);
                        }
                    }
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
            return Err(too_slow());
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

/// What a sequence function tells of the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Match,
    Count,
    Events,
}

#[derive(Debug)]
struct SequenceSpec {
    name: String,
    pattern: String,
    kind: Kind,
}

fn build(family: &'static str, kind: Kind, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let pattern = match params {
        [ScalarValue::Utf8(Some(p))] => p.clone(),
        [_] => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {family} requires a String pattern"))),
        _ => return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {family} requires exactly one parameter."))),
    };
    // Checks the syntax where the call is written; event numbers need the arguments.
    parse_pattern(&pattern, MAX_EVENTS)?;
    Ok(Arc::new(SequenceSpec { name: parametric_name(family, params), pattern, kind }))
}

pub(crate) fn sequence_match(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("sequenceMatch", Kind::Match, params)
}
pub(crate) fn sequence_count(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("sequenceCount", Kind::Count, params)
}
pub(crate) fn sequence_match_events(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("sequenceMatchEvents", Kind::Events, params)
}
/// The families for [`crate::parametric::FAMILIES`].
pub(crate) fn sequence_match_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sequence_match, params)
}
pub(crate) fn sequence_count_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sequence_count, params)
}
pub(crate) fn sequence_match_events_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sequence_match_events, params)
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
        Ok(match self.kind {
            Kind::Match => ChType::UInt8,
            Kind::Count => ChType::UInt64,
            Kind::Events => ChType::Array(Box::new(args[0].clone())),
        })
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let ty = NumType::of(&args[0]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "sequence timestamps are numbers"))?;
        let pattern = Arc::new(Pattern::new(parse_pattern(&self.pattern, args.len() - 1)?));
        Ok(Box::new(Sequence { ty, time: args[0].clone(), pattern, kind: self.kind, sorted: true, events: Vec::new(), conditions_met: 0 }))
    }
}

/// ClickHouse's `AggregateFunctionSequenceMatchData`: (timestamp, conditions) of the rows
/// where some condition holds.
#[derive(Debug, Clone)]
struct Sequence {
    ty: NumType,
    /// The timestamps' type, that of `sequenceMatchEvents`' items.
    time: ChType,
    pattern: Arc<Pattern>,
    kind: Kind,
    sorted: bool,
    events: Vec<(u64, u64)>,
    /// Bit n: condition n held on some row. Not in the state bytes: a merged state counts
    /// every condition as met, as ClickHouse's.
    conditions_met: u64,
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
                self.conditions_met |= bits;
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
        if n > 0 {
            self.sorted = false;
            self.conditions_met = u64::MAX;
        }
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
        let pattern = &self.pattern;
        // A condition of the pattern that never held: no match, without searching.
        let hopeless = pattern.conditions & self.conditions_met != pattern.conditions;
        let mut start = 0;
        match self.kind {
            Kind::Match => {
                let matched = !hopeless
                    && if pattern.has_time { pattern.could_match_deterministic_parts(&events)? && backtracking_match(pattern, &events, &mut start, None)? } else { pattern.dfa_match(&events) };
                Ok(ScalarValue::UInt8(Some(u8::from(matched))))
            }
            Kind::Count => {
                let mut matches = 0u64;
                if !hopeless && pattern.could_match_deterministic_parts(&events)? {
                    while start < events.len() && backtracking_match(pattern, &events, &mut start, None)? {
                        matches += 1;
                    }
                }
                Ok(ScalarValue::UInt64(Some(matches)))
            }
            Kind::Events => {
                let mut longest = Vec::new();
                if !events.is_empty() {
                    backtracking_match(pattern, &events, &mut start, Some(&mut longest))?;
                }
                let item = self.time.to_arrow();
                let values = longest.into_iter().map(|t| self.ty.scalar(Num::Int(t as i128), &item)).collect::<DfResult<Vec<_>>>()?;
                let values = if values.is_empty() { datafusion::arrow::array::new_empty_array(&item) } else { ScalarValue::iter_to_array(values)? };
                crate::group_arrays::list_of(values, &self.time)
            }
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.events.capacity() * 16
    }
}

// ------------------------------------------------------------------ sequenceNextNode

/// `sequenceNextNode`'s limit on event conditions.
const MAX_NEXT_NODE_EVENTS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Head,
    Tail,
    FirstMatch,
    LastMatch,
}

#[derive(Debug)]
struct NextNodeSpec {
    name: String,
    forward: bool,
    base: Base,
}

/// `sequenceNextNode(direction, base)(t, value, base_condition, event1, ...)`: from the base
/// row (the first or last row, or the first or last where `event1` holds, if
/// `base_condition` holds there), the value of the row after the chain of rows where
/// `event1`, `event2`, ... hold in turn (before it, going backward). ClickHouse needs
/// `allow_experimental_funnel_functions` for it: [`check_funnel_functions_allowed`].
pub(crate) fn sequence_next_node(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    const NAME: &str = "sequenceNextNode";
    if params.len() < 2 {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function '{NAME}' requires 2 parameters (direction, head)")));
    }
    let (ScalarValue::Utf8(Some(direction)), ScalarValue::Utf8(Some(base))) = (&params[0], &params[1]) else {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function '{NAME}' requires 'String' parameters")));
    };
    let unsupported = |p: &str| ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function {NAME} doesn't support a parameter: {p}"));
    let forward = match direction.as_str() {
        "forward" => true,
        "backward" => false,
        other => return Err(unsupported(other)),
    };
    let kind = match base.as_str() {
        "head" => Base::Head,
        "tail" => Base::Tail,
        "first_match" => Base::FirstMatch,
        "last_match" => Base::LastMatch,
        other => return Err(unsupported(other)),
    };
    if (kind == Base::Head && !forward) || (kind == Base::Tail && forward) {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Invalid argument combination of '{base}' with '{direction}'")));
    }
    Ok(Arc::new(NextNodeSpec { name: parametric_name(NAME, params), forward, base: kind }))
}

pub(crate) fn sequence_next_node_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sequence_next_node, params)
}

/// ClickHouse's error when a statement calls `sequenceNextNode` (or a combinator of it)
/// without `allow_experimental_funnel_functions`.
pub fn check_funnel_functions_allowed(statement: &datafusion::sql::sqlparser::ast::Statement, allowed: bool) -> granary_common::Result<()> {
    use datafusion::sql::sqlparser::ast::{visit_expressions, Expr};
    if allowed {
        return Ok(());
    }
    let mut found = false;
    let _ = visit_expressions(statement, |expr| {
        if let Expr::Function(function) = expr {
            if function.name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.value.starts_with("sequenceNextNode")) {
                found = true;
                return std::ops::ControlFlow::Break(());
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    if found {
        return Err(granary_common::Error::new(
            ErrorCode::UNKNOWN_AGGREGATE_FUNCTION,
            "Aggregate function sequenceNextNode is experimental. Set `enable_funnel_functions` setting to enable it",
        ));
    }
    Ok(())
}

impl Spec for NextNodeSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::at_least(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::DefaultResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        const NAME: &str = "sequenceNextNode";
        if args.len() < 3 {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {NAME} requires at least 3 arguments.")));
        }
        if matches!(self.base, Base::FirstMatch | Base::LastMatch) && args.len() < 4 {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {NAME} requires at least 4 arguments when base is first_match or last_match.")));
        }
        if args.len() > MAX_NEXT_NODE_EVENTS + 3 {
            return Err(ch_error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Aggregate function '{NAME}' requires at most {} (timestamp, value_column, ...{MAX_NEXT_NODE_EVENTS} events) arguments.", MAX_NEXT_NODE_EVENTS + 3),
            ));
        }
        if !matches!(args[2], ChType::UInt8 | ChType::Bool) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of third argument of aggregate function {NAME}, must be UInt8", args[2])));
        }
        for (i, a) in args.iter().enumerate().skip(3) {
            if !matches!(a, ChType::UInt8 | ChType::Bool) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type '{a}' of {} argument of aggregate function '{NAME}', must be UInt8", i + 1)));
            }
        }
        if args[1] != ChType::String {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of second argument of aggregate function {NAME}, must be String", args[1])));
        }
        if !matches!(args[0], ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Date | ChType::DateTime(_)) {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Illegal type {} of first argument of aggregate function {NAME}, must be Unsigned Number, Date, DateTime", args[0]),
            ));
        }
        Ok(ChType::Nullable(Box::new(ChType::String)))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let ty = NumType::of(&args[0]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "sequenceNextNode timestamps are numbers"))?;
        Ok(Box::new(NextNode { ty, events: args.len() - 3, forward: self.forward, base: self.base, sorted: false, nodes: Vec::new() }))
    }
}

/// A row as ClickHouse's `NodeString` keeps it. Its time is a DateTime's UInt32 whatever
/// the timestamp's type, as in ClickHouse.
#[derive(Debug, Clone)]
struct Node {
    value: Vec<u8>,
    time: u32,
    events: u64,
    can_be_base: bool,
}

/// ClickHouse's node order: by time, then by value as `strncmp` compares (up to a zero
/// byte), then the shorter first.
fn node_order(a: &Node, b: &Node) -> std::cmp::Ordering {
    a.time.cmp(&b.time).then_with(|| {
        let n = a.value.len().min(b.value.len());
        for (x, y) in a.value[..n].iter().zip(&b.value[..n]) {
            if x != y {
                return x.cmp(y);
            }
            if *x == 0 {
                return std::cmp::Ordering::Equal;
            }
        }
        a.value.len().cmp(&b.value.len())
    })
}

/// ClickHouse's `SequenceNextNodeGeneralData`: every row, sorted on demand.
#[derive(Debug, Clone)]
struct NextNode {
    ty: NumType,
    events: usize,
    forward: bool,
    base: Base,
    sorted: bool,
    nodes: Vec<Node>,
}

impl NextNode {
    fn sorted_nodes(&self) -> std::borrow::Cow<'_, [Node]> {
        if self.sorted {
            return std::borrow::Cow::Borrowed(&self.nodes);
        }
        let mut nodes = self.nodes.clone();
        nodes.sort_by(node_order);
        std::borrow::Cow::Owned(nodes)
    }

    /// ClickHouse's `getNextNodeIndex` over sorted nodes.
    fn next_index(&self, nodes: &[Node]) -> Option<usize> {
        if nodes.len() <= self.events {
            return None;
        }
        let base = match self.base {
            Base::Head => Some(0).filter(|_| nodes[0].can_be_base),
            Base::Tail => Some(nodes.len() - 1).filter(|&i| nodes[i].can_be_base),
            Base::FirstMatch => nodes.iter().position(|n| n.events & 1 != 0 && n.can_be_base),
            Base::LastMatch => nodes.iter().rposition(|n| n.events & 1 != 0 && n.can_be_base),
        }?;
        if self.events == 0 {
            return Some(base);
        }
        let mut i = 0;
        if self.forward {
            while i < self.events && base + i < nodes.len() && nodes[base + i].events & (1 << i) != 0 {
                i += 1;
            }
            (i == self.events).then_some(base + i)
        } else {
            while i < self.events && i < base && nodes[base - i].events & (1 << i) != 0 {
                i += 1;
            }
            (i == self.events).then(|| base - i)
        }
    }
}

impl NativeState for NextNode {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let stamps = self.ty.values(&columns[0])?;
        let values = cast(&columns[1], &DataType::Binary)?;
        let values = values.as_binary::<i32>();
        let flags = |c: &ArrayRef| -> DfResult<Vec<bool>> { Ok(cast(c, &DataType::UInt8)?.as_primitive::<UInt8Type>().values().iter().map(|v| *v != 0).collect()) };
        let can_be_base = flags(&columns[2])?;
        let events = columns[3..].iter().map(flags).collect::<DfResult<Vec<_>>>()?;
        for (row, timestamp) in stamps.into_iter().enumerate() {
            let bits = events.iter().enumerate().fold(0u64, |bits, (i, e)| bits | (u64::from(e[row]) << i));
            // ClickHouse keeps the time as a DateTime (UInt32), truncating wider ones.
            let time = match timestamp {
                Num::Int(t) => t as u32,
                Num::Float(t) => t as u32,
            };
            self.nodes.push(Node { value: values.value(row).to_vec(), time, events: bits, can_be_base: can_be_base[row] });
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let _other_sorted = take(input, 1)?[0] != 0;
        let n = crate::states::get_varuint(input)?;
        if n == 0 {
            return Ok(());
        }
        if n > 0xFF_FFFF {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too large array size (maximum: 16777215)"));
        }
        for _ in 0..n {
            let size = crate::states::get_varuint(input)?;
            if size > 0xFF_FFFF {
                return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too large node state size"));
            }
            let value = take(input, size as usize)?.to_vec();
            let time = u32::from_le_bytes(take(input, 4)?.try_into().map_err(|_| crate::native_state::truncated())?);
            let events = read_u64(input)?;
            let can_be_base = take(input, 1)?[0] != 0;
            self.nodes.push(Node { value, time, events, can_be_base });
        }
        // ClickHouse sorts the unsorted runs and merges them: a stable sort of both.
        self.nodes.sort_by(node_order);
        self.sorted = true;
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        let nodes = self.sorted_nodes();
        out.push(1);
        // Head and tail bases need only the rows a chain from the first (last) row can reach.
        let size = (self.events + 1).min(nodes.len());
        let kept = match self.base {
            Base::Head => &nodes[..size],
            Base::Tail => &nodes[nodes.len() - size..],
            Base::FirstMatch | Base::LastMatch => &nodes[..],
        };
        crate::states::put_varuint(out, kept.len() as u64);
        for node in kept {
            crate::states::put_varuint(out, node.value.len() as u64);
            out.extend_from_slice(&node.value);
            out.extend_from_slice(&node.time.to_le_bytes());
            out.extend_from_slice(&node.events.to_le_bytes());
            out.push(u8::from(node.can_be_base));
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let nodes = self.sorted_nodes();
        // A chain ending at the last row has no next row.
        let value = self.next_index(&nodes).and_then(|i| nodes.get(i)).map(|n| String::from_utf8_lossy(&n.value).into_owned());
        Ok(ScalarValue::Utf8(value).cast_to(&ChType::String.to_arrow())?)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.nodes.iter().map(|n| std::mem::size_of::<Node>() + n.value.capacity()).sum::<usize>()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn count(pattern: &str, events: &[(u64, u64)]) -> (bool, u64) {
        let pattern = Pattern::new(parse_pattern(pattern, 3).unwrap());
        let mut start = 0;
        let matched = backtracking_match(&pattern, events, &mut start, None).unwrap();
        if !pattern.has_time {
            assert_eq!(pattern.dfa_match(events), matched);
        }
        let mut start = 0;
        let mut n = 0;
        while start < events.len() && backtracking_match(&pattern, events, &mut start, None).unwrap() {
            n += 1;
        }
        (matched, n)
    }

    fn longest(pattern: &str, events: &[(u64, u64)]) -> Vec<u64> {
        let pattern = Pattern::new(parse_pattern(pattern, 3).unwrap());
        let mut longest = Vec::new();
        backtracking_match(&pattern, events, &mut 0, Some(&mut longest)).unwrap();
        longest
    }

    #[test]
    fn match_events() {
        // Events 1 at 1, 2 at 2, 1 at 3, 2 at 4 (bit n-1 for event n).
        let events = [(1, 1), (2, 2), (3, 1), (4, 2)];
        assert_eq!(longest("(?1)(?2)", &events), vec![1, 2]);
        // No complete match: the first of the longest chains.
        assert_eq!(longest("(?1)(?2)(?3)", &events), vec![1, 2]);
        // A backtrack drops the steps after the action it resumes.
        assert_eq!(longest("(?1)(?1)", &[(1, 1), (2, 2), (3, 1), (4, 1)]), vec![3, 4]);
        assert_eq!(longest("(?1)(?t>1)(?2)", &[(1, 1), (2, 2), (3, 1), (5, 2)]), vec![1, 5]);
        assert_eq!(longest("(?3)", &events), Vec::<u64>::new());
    }

    #[test]
    fn next_node() {
        let node = |value: &str, time: u32, events: u64| Node { value: value.as_bytes().to_vec(), time, events, can_be_base: true };
        let state = |forward, base, events| NextNode { ty: NumType::Int { width: 4, signed: false }, events, forward, base, sorted: false, nodes: Vec::new() };
        let nodes = [node("a", 1, 1), node("b", 2, 2), node("c", 3, 1), node("d", 4, 2)];
        assert_eq!(state(true, Base::Head, 2).next_index(&nodes), Some(2));
        assert_eq!(state(true, Base::Head, 1).next_index(&nodes), Some(1));
        assert_eq!(state(true, Base::LastMatch, 2).next_index(&nodes), Some(4));
        assert_eq!(state(false, Base::Tail, 1).next_index(&nodes), None);
        assert_eq!(state(false, Base::LastMatch, 1).next_index(&nodes), Some(1));
        // Ties in time order by value as strncmp does, the shorter first.
        assert_eq!(node_order(&node("ab", 1, 0), &node("a", 1, 0)), std::cmp::Ordering::Greater);
        // strncmp stops at a zero byte: these tie, and a stable sort keeps their order.
        assert_eq!(node_order(&node("a\0x", 1, 0), &node("a\0y", 1, 0)), std::cmp::Ordering::Equal);
        assert_eq!(node_order(&node("b", 1, 0), &node("a", 2, 0)), std::cmp::Ordering::Less);
    }

    #[test]
    fn deterministic_parts() {
        let pattern = Pattern::new(parse_pattern("(?1)(?2).*(?3)", 3).unwrap());
        assert!(pattern.could_match_deterministic_parts(&[(0, 1), (1, 1), (2, 2), (3, 4)]).unwrap());
        assert!(!pattern.could_match_deterministic_parts(&[(0, 1), (1, 4), (2, 2), (3, 1)]).unwrap());
        assert!(!pattern.could_match_deterministic_parts(&[(0, 4), (1, 1), (2, 2)]).unwrap());
        assert_eq!(pattern.dfa, vec![(true, Transition::Event(0)), (false, Transition::Event(1)), (true, Transition::Event(2)), (false, Transition::None)]);
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
