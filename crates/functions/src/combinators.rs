//! Aggregate function combinators: `-If`, `-Distinct`, `-OrNull`, `-OrDefault`, `-Array`,
//! `-ForEach` (and `-IfForEach`, see [`crate::for_each`]), `-State`, `-Merge`,
//! `-MergeState`, `-SimpleState`, and `AggregateFunction(f, T)` state values.
//!
//! * `-If` and `-Distinct` on the innermost level are rewritten by the SQL front end
//!   ([`rewrite_if_distinct`]) into what DataFusion runs natively and fast:
//!   `sumIf(x, c)` is `sum(x) FILTER (WHERE c)`, `countDistinct(x)` is
//!   `count(DISTINCT x)`, `uniqIfOrNull(x, c)` is `uniqOrNull(x) FILTER (WHERE c)`.
//! * the others are UDAFs wrapping a base aggregate ([`combined`]), registered for every
//!   base aggregate under ClickHouse's name (`sumState`, `avgMerge`, `maxOrNull`, ...).
//!
//! States: `-State` returns the base accumulator's state serialized into one
//! `Binary` value per group, typed `AggregateFunction(f, T...)`, in ClickHouse's layout
//! where Granary knows it (see [`crate::states`]). `-Merge` reads
//! states back and finishes; [`merge_aggregate_states`] does the same for storage
//! engines (AggregatingMergeTree), and `finalizeAggregation` finishes one state.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, BooleanArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, ScalarUDF, Signature, Volatility};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::sql::sqlparser::ast::{
    self, BinaryOperator, CastKind, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    ObjectName, ObjectNamePart,
};
use granary_common::{Error, ErrorCode};
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ch_type_of_field, result_field, ScalarDef};
use crate::states::{decode_state, encode_state};

/// The functions a `SimpleAggregateFunction` column may name, as ClickHouse lists them.
const SIMPLE_STATE_FUNCTIONS: &[&str] = &[
    "any",
    "any_respect_nulls",
    "anyLast",
    "anyLast_respect_nulls",
    "min",
    "max",
    "sum",
    "sumWithOverflow",
    "groupBitAnd",
    "groupBitOr",
    "groupBitXor",
    "sumMap",
    "minMap",
    "maxMap",
    "groupArrayArray",
    "groupArrayLastArray",
    "groupUniqArrayArray",
    "groupUniqArrayArrayMap",
];

/// The combinators implemented as UDAF wrappers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Comb {
    OrNull,
    OrDefault,
    State,
    Merge,
    MergeState,
    /// `sumSimpleState(x)`: the result of `sum`, typed `SimpleAggregateFunction(sum, T)`
    /// for a column of that type.
    SimpleState,
    /// `sumArray(arr)`: the aggregate over the elements of every row's array.
    Array,
    /// `sumForEach(arr)`: one aggregate per array position, an array of their results.
    ForEach,
    /// `sumIfForEach(arr, conditions)`: `-ForEach` over `sumIf`, with a condition per element.
    IfForEach,
}

pub(crate) const WRAPPERS: &[(&str, Comb)] = &[
    ("MergeState", Comb::MergeState),
    ("Merge", Comb::Merge),
    ("SimpleState", Comb::SimpleState),
    ("State", Comb::State),
    ("OrNull", Comb::OrNull),
    ("OrDefault", Comb::OrDefault),
    ("Array", Comb::Array),
    ("IfForEach", Comb::IfForEach),
    ("ForEach", Comb::ForEach),
];

/// Splits a combinator name into its base aggregate and the suffixes, outermost first
/// (`sumIfOrNull` -> `sum`, [`OrNull`, `If`]).
pub fn split_combinators<'a>(name: &'a str, is_aggregate: &dyn Fn(&str) -> bool) -> Option<(&'a str, Vec<&'static str>)> {
    const SUFFIXES: &[&str] = &["MergeState", "Merge", "SimpleState", "State", "OrNull", "OrDefault", "If", "Distinct"];
    let mut rest = name;
    let mut suffixes = Vec::new();
    while !is_aggregate(rest) {
        let suffix = SUFFIXES.iter().find(|s| rest.len() > s.len() && rest.ends_with(**s))?;
        rest = &rest[..rest.len() - suffix.len()];
        suffixes.push(*suffix);
    }
    if suffixes.is_empty() {
        None
    } else {
        Some((rest, suffixes))
    }
}

/// Rewrites innermost `-If` / `-Distinct` combinators of a call into `FILTER (WHERE ..)`
/// and `DISTINCT` (see the module docs). Returns the error ClickHouse gives for a
/// condition argument that is missing.
pub(crate) fn rewrite_if_distinct(function: &mut ast::Function, is_aggregate: &dyn Fn(&str) -> bool) -> Result<(), Error> {
    let [ObjectNamePart::Identifier(ident)] = function.name.0.as_slice() else { return Ok(()) };
    let name = ident.value.clone();
    let Some((base, suffixes)) = split_combinators(&name, is_aggregate) else { return Ok(()) };
    // Only the innermost run of If/Distinct is rewritten; the rest stays in the name.
    let inner: Vec<&str> = suffixes.iter().rev().take_while(|s| matches!(**s, "If" | "Distinct")).copied().collect();
    if inner.is_empty() {
        return Ok(());
    }
    let outer: String = suffixes[..suffixes.len() - inner.len()].iter().rev().copied().collect();
    let FunctionArguments::List(list) = &mut function.args else {
        return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {name} requires arguments")));
    };
    for suffix in inner.iter().rev() {
        match *suffix {
            "If" => {
                let Some(arg) = list.args.pop() else {
                    return Err(Error::new(
                        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                        format!("Aggregate function {name} requires at least one argument"),
                    ));
                };
                let cond = match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) | FunctionArg::Named { arg: FunctionArgExpr::Expr(e), .. } => e,
                    _ => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad condition argument of {name}"))),
                };
                // The condition is a ClickHouse number (UInt8 0/1, NULL = false).
                let cond = Expr::Cast {
                    kind: CastKind::Cast,
                    expr: Box::new(Expr::Nested(Box::new(cond))),
                    data_type: ast::DataType::Boolean,
                    array: false,
                    format: None,
                };
                function.filter = Some(Box::new(match function.filter.take() {
                    Some(f) => Expr::BinaryOp { left: f, op: BinaryOperator::And, right: Box::new(cond) },
                    None => cond,
                }));
            }
            _ => list.duplicate_treatment = Some(DuplicateTreatment::Distinct),
        }
    }
    function.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote('"', format!("{base}{outer}")))]);
    Ok(())
}

/// `countState()`, `countOrNull()`: DataFusion plans no aggregate without arguments
/// (plain `count()` it rewrites itself), so a combined `count` gets the constant `1`.
/// The state of `count` does not depend on its arguments, and its `AggregateFunction`
/// type is written without them (see `Combined::return_field`).
pub(crate) fn give_count_an_argument(function: &mut ast::Function) {
    let [ObjectNamePart::Identifier(ident)] = function.name.0.as_slice() else { return };
    if !matches!(split_combinators(&ident.value, &|name| name == "count"), Some(("count", _))) {
        return;
    }
    let one = FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::value(ast::Value::Number("1".into(), false))));
    match &mut function.args {
        FunctionArguments::List(list) if list.args.is_empty() => list.args.push(one),
        FunctionArguments::None => {
            function.args = FunctionArguments::List(ast::FunctionArgumentList { duplicate_treatment: None, args: vec![one], clauses: vec![] })
        }
        _ => {}
    }
}

// ------------------------------------------------------------------ the base aggregates

/// The base aggregate named `name`, which may carry parameters (`quantiles(0.5, 0.9)`,
/// see [`crate::parametric`]).
pub(crate) fn base_aggregate(name: &str) -> DfResult<Arc<AggregateUDF>> {
    if let Some(found) = crate::registered().1.iter().find(|f| f.name() == name || f.aliases().iter().any(|a| a == name)) {
        return Ok(Arc::clone(found));
    }
    crate::parametric::resolve(name)?.ok_or_else(|| ch_error(ErrorCode::UNKNOWN_AGGREGATE_FUNCTION, format!("Unknown aggregate function {name}")))
}

/// Whether `name` is a registered aggregate (under its name or an alias), which a
/// combinator chain may be built on.
pub(crate) fn is_base_aggregate(name: &str) -> bool {
    crate::registered().1.iter().any(|f| f.name() == name || f.aliases().iter().any(|a| a == name))
}

/// The function of an aggregate's name without its parameters (`quantiles(0.5)` ->
/// `quantiles`): `-Merge` takes states of the same function whatever their parameters,
/// as ClickHouse does.
pub(crate) fn without_params(name: &str) -> &str {
    name.split_once('(').map_or(name, |(f, _)| f)
}

pub(crate) fn fields_of(types: &[ChType]) -> Vec<FieldRef> {
    types.iter().enumerate().map(|(i, t)| Arc::new(t.to_arrow_field(&format!("arg{i}")))).collect()
}

/// `inputs` as `base` takes them after its own coercion (DataFusion's `avg` takes
/// Float64 where ClickHouse's `avgState` over Int32 is typed `AggregateFunction(avg, Int32)`).
fn coerced(base: &AggregateUDF, inputs: &[FieldRef]) -> Vec<FieldRef> {
    let types: Vec<DataType> = inputs.iter().map(|f| f.data_type().clone()).collect();
    match base.coerce_types(&types) {
        Ok(to) if to.len() == inputs.len() => inputs
            .iter()
            .zip(to)
            .map(|(f, t)| if f.data_type() == &t { Arc::clone(f) } else { Arc::new(Field::new(f.name(), t, f.is_nullable())) })
            .collect(),
        _ => inputs.to_vec(),
    }
}

/// The argument fields `base` runs on for an `AggregateFunction(base, types...)` state.
pub(crate) fn base_fields(base: &AggregateUDF, types: &[ChType]) -> Vec<FieldRef> {
    coerced(base, &fields_of(types))
}

/// The state types of `base` over argument fields `inputs`.
pub(crate) fn state_types(base: &AggregateUDF, inputs: &[FieldRef]) -> DfResult<Vec<FieldRef>> {
    let return_field = base.return_field(inputs)?;
    base.state_fields(StateFieldsArgs { name: base.name(), input_fields: inputs, return_field, ordering_fields: &[], is_distinct: false })
}

/// A fresh accumulator of `base` over arguments of the given fields.
fn base_accumulator(base: &AggregateUDF, inputs: &[FieldRef], is_distinct: bool) -> DfResult<Box<dyn Accumulator>> {
    BaseCall::new(base, inputs)?.accumulator(base, is_distinct)
}

/// What creating an accumulator of `base` over some argument fields needs, made once.
#[derive(Debug)]
pub(crate) struct BaseCall {
    inputs: Vec<FieldRef>,
    schema: Schema,
    exprs: Vec<Arc<dyn PhysicalExpr>>,
    return_field: FieldRef,
}

impl BaseCall {
    pub(crate) fn new(base: &AggregateUDF, inputs: &[FieldRef]) -> DfResult<BaseCall> {
        Ok(BaseCall {
            inputs: inputs.to_vec(),
            schema: Schema::new(inputs.iter().map(|f| f.as_ref().clone()).collect::<Vec<Field>>()),
            exprs: inputs.iter().enumerate().map(|(i, f)| Arc::new(Column::new(f.name(), i)) as Arc<dyn PhysicalExpr>).collect(),
            return_field: base.return_field(inputs)?,
        })
    }

    fn args<'a>(&'a self, base: &'a AggregateUDF, is_distinct: bool) -> AccumulatorArgs<'a> {
        AccumulatorArgs {
            return_field: Arc::clone(&self.return_field),
            schema: &self.schema,
            ignore_nulls: false,
            order_bys: &[],
            is_reversed: false,
            name: base.name(),
            is_distinct,
            exprs: &self.exprs,
            expr_fields: &self.inputs,
        }
    }

    pub(crate) fn accumulator(&self, base: &AggregateUDF, is_distinct: bool) -> DfResult<Box<dyn Accumulator>> {
        base.accumulator(self.args(base, is_distinct))
    }

    fn groups_accumulator_supported(&self, base: &AggregateUDF) -> bool {
        base.groups_accumulator_supported(self.args(base, false))
    }

    fn groups_accumulator(&self, base: &AggregateUDF) -> DfResult<Box<dyn GroupsAccumulator>> {
        base.create_groups_accumulator(self.args(base, false))
    }
}

/// What every accumulator of one combinator call shares. DataFusion asks for one
/// accumulator per group; working this out each time (parsing the state's
/// `AggregateFunction(...)` type, the base's state fields) cost more than the
/// aggregation itself in a `GROUP BY` over many groups.
#[derive(Debug)]
struct AccumulatorSetup {
    /// The argument fields this was made for.
    fields: Vec<FieldRef>,
    arg_types: Vec<ChType>,
    base: BaseCall,
    state_types: Vec<DataType>,
}

/// The `AggregateFunction(f, T...)` type of a field, if it is one.
fn aggregate_type(field: &Field) -> Option<(String, Vec<ChType>)> {
    match ch_type_of_field(field).strip_nullable() {
        ChType::AggregateFunction(f, args) => Some((f.clone(), args.clone())),
        _ => None,
    }
}

/// An aggregate function of Float64 values that gives a number, by its ClickHouse name
/// with any parameters (`median`, `quantile(0.9)`, `sum`): what a GraphiteMergeTree
/// rollup rule may name, as ClickHouse takes any aggregate function there.
#[derive(Debug)]
pub struct Float64Aggregate {
    base: Arc<AggregateUDF>,
    call: BaseCall,
}

impl Float64Aggregate {
    pub fn new(name: &str) -> granary_common::Result<Float64Aggregate> {
        let run = || -> DfResult<Float64Aggregate> {
            let base = base_aggregate(name.trim())?;
            let inputs = base_fields(&base, &[ChType::Float64]);
            let call = BaseCall::new(&base, &inputs)?;
            // The result goes back into the Float64 value column.
            if !call.return_field.data_type().is_numeric() {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Aggregate function {name} returns {}, not a number a Float64 column can hold", ch_type_of_field(&call.return_field)),
                ));
            }
            Ok(Float64Aggregate { base, call })
        };
        run().map_err(Error::from)
    }

    /// A fresh accumulator; [`Float64Aggregate::add`] and [`Float64Aggregate::result`] use it.
    pub fn accumulator(&self) -> granary_common::Result<Box<dyn Accumulator>> {
        self.call.accumulator(&self.base, false).map_err(Error::from)
    }

    pub fn add(accumulator: &mut dyn Accumulator, values: &[f64]) -> granary_common::Result<()> {
        let array: ArrayRef = Arc::new(datafusion::arrow::array::Float64Array::from(values.to_vec()));
        accumulator.update_batch(&[array]).map_err(Error::from)
    }

    /// The result as a Float64 (NaN for NULL).
    pub fn result(accumulator: &mut dyn Accumulator) -> granary_common::Result<f64> {
        match accumulator.evaluate()?.cast_to(&DataType::Float64)? {
            ScalarValue::Float64(v) => Ok(v.unwrap_or(f64::NAN)),
            other => Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("aggregate result {other:?} is not a Float64"))),
        }
    }
}

/// Merges rows of serialized states into groups: row `i` of `states` goes into group
/// `group_of_row[i]`; the result has one state per group (`num_groups` rows), of the same
/// `AggregateFunction` type. For storage engines that combine rows with equal keys
/// (AggregatingMergeTree): `ty` is the column's type.
pub fn merge_aggregate_states(ty: &ChType, states: &dyn Array, group_of_row: &[usize], num_groups: usize) -> granary_common::Result<ArrayRef> {
    let ChType::AggregateFunction(function, args) = ty.strip_nullable() else {
        return Err(Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{ty} is not an AggregateFunction type")));
    };
    let run = || -> DfResult<ArrayRef> {
        let base = base_aggregate(function)?;
        let inputs = base_fields(&base, args);
        let types: Vec<DataType> = state_types(&base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
        let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "AggregateFunction column must be Binary"))?;
        if binary.len() != group_of_row.len() {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "merge_aggregate_states: one group per row is required"));
        }
        let states: ArrayRef = Arc::new(binary.clone());
        let states = &states;
        if let Some(mut merged) = merged_into_groups(&base, &inputs, function, args, states, &types, group_of_row, num_groups)? {
            let merged = merged.state(EmitTo::All)?;
            let mut out = BinaryBuilder::with_capacity(num_groups, num_groups * 8);
            for group in 0..num_groups {
                let state = merged.iter().map(|s| ScalarValue::try_from_array(s, group)).collect::<DfResult<Vec<_>>>()?;
                out.append_value(encode_state(base.name(), args, &state)?);
            }
            return Ok(Arc::new(out.finish()));
        }
        let mut accumulators: Vec<Box<dyn Accumulator>> = (0..num_groups).map(|_| base_accumulator(&base, &inputs, false)).collect::<DfResult<_>>()?;
        for (row, &group) in group_of_row.iter().enumerate() {
            if binary.is_null(row) || group >= num_groups {
                continue;
            }
            merge_one(accumulators[group].as_mut(), function, args, binary.value(row), &types)?;
        }
        let mut out = BinaryBuilder::new();
        for acc in &mut accumulators {
            out.append_value(encode_state(base.name(), args, &acc.state()?)?);
        }
        Ok(Arc::new(out.finish()))
    };
    run().map_err(Error::from)
}

/// The base aggregate's groups accumulator with the serialized `states` of each row
/// merged into group `group_of_row[row]` (rows of a group past `num_groups` left out), all
/// rows at once; None when the base has no groups accumulator. A group no state reached
/// is the base's empty state, as a fresh accumulator's.
#[allow(clippy::too_many_arguments)]
fn merged_into_groups(
    base: &AggregateUDF,
    inputs: &[FieldRef],
    function: &str,
    args: &[ChType],
    states: &ArrayRef,
    state_types: &[DataType],
    group_of_row: &[usize],
    num_groups: usize,
) -> DfResult<Option<Box<dyn GroupsAccumulator>>> {
    let call = BaseCall::new(base, inputs)?;
    if !call.groups_accumulator_supported(base) {
        return Ok(None);
    }
    let mut accumulator = call.groups_accumulator(base)?;
    match decode_states(function, args, states, state_types, |row| group_of_row.get(row).is_some_and(|&g| g < num_groups))? {
        Some((arrays, rows)) => {
            let groups: Vec<usize> = match rows {
                None => group_of_row.to_vec(),
                Some(rows) => rows.iter().map(|&r| group_of_row[r]).collect(),
            };
            accumulator.merge_batch(&arrays, &groups, num_groups)?;
        }
        None => {
            let empty: Vec<ArrayRef> = state_types.iter().map(datafusion::arrow::array::new_empty_array).collect();
            accumulator.merge_batch(&empty, &[], num_groups)?;
        }
    }
    Ok(Some(accumulator))
}

fn merge_one(acc: &mut dyn Accumulator, function: &str, args: &[ChType], bytes: &[u8], types: &[DataType]) -> DfResult<()> {
    let state = decode_state(function, args, bytes, types)?;
    let arrays: Vec<ArrayRef> = state.iter().map(|v| v.to_array()).collect::<DfResult<_>>()?;
    acc.merge_batch(&arrays)
}

/// `finalizeAggregation(state)`: the final value of each state.
pub(crate) fn finalize_aggregation() -> ScalarUDF {
    ScalarDef::new(
        "finalizeAggregation",
        Arity::exact(1),
        |ctx| {
            let Some((function, args)) = aggregate_type(ctx.field(0)) else {
                return Err(crate::args::illegal_type(ctx.name, 0, ctx.field(0)));
            };
            let base = base_aggregate(&function)?;
            Ok(ch_type_of_field(base.return_field(&base_fields(&base, &args))?.as_ref()))
        },
        |ctx| {
            let (function, args) = aggregate_type(&ctx.fields[0]).ok_or_else(|| crate::args::illegal_type(ctx.name, 0, &ctx.fields[0]))?;
            let base = base_aggregate(&function)?;
            let inputs = base_fields(&base, &args);
            let types: Vec<DataType> = state_types(&base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
            let array = ctx.array(0)?;
            let binary = array.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "AggregateFunction column must be Binary"))?;
            let target = ctx.ret_type().clone();
            // Each row its own group: every state decoded and finished at once.
            let each_row: Vec<usize> = (0..binary.len()).collect();
            if let Some(mut merged) = merged_into_groups(&base, &inputs, &function, &args, &array, &types, &each_row, binary.len())? {
                let out = merged.evaluate(EmitTo::All)?;
                return Ok(if out.data_type() != &target { datafusion::arrow::compute::cast(&out, &target)? } else { out });
            }
            let mut values = Vec::with_capacity(binary.len());
            for row in 0..binary.len() {
                let mut acc = base_accumulator(&base, &inputs, false)?;
                if !binary.is_null(row) {
                    merge_one(acc.as_mut(), &function, &args, binary.value(row), &types)?;
                }
                values.push(acc.evaluate()?);
            }
            let out = ScalarValue::iter_to_array(values)?;
            Ok(if out.data_type() != &target { datafusion::arrow::compute::cast(&out, &target)? } else { out })
        },
    )
    .build()
}

/// `runningAccumulate(state [, key])`: each row's `-State` merged into one running
/// state, finalized after every row; the running state starts over when `key` differs
/// from the previous row's, and, as in ClickHouse, with each block. ClickHouse allows it
/// only with `allow_deprecated_error_prone_window_functions = 1`
/// ([`check_deprecated_window_functions`]).
pub(crate) fn running_accumulate() -> ScalarUDF {
    ScalarDef::new(
        "runningAccumulate",
        Arity::range(1, 2),
        |ctx| {
            let Some((function, args)) = aggregate_type(ctx.field(0)) else {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Argument for function {} must have type AggregateFunction - state of aggregate function", ctx.name),
                ));
            };
            let base = base_aggregate(&function)?;
            Ok(ch_type_of_field(base.return_field(&base_fields(&base, &args))?.as_ref()))
        },
        |ctx| {
            let (function, args) = aggregate_type(&ctx.fields[0]).ok_or_else(|| crate::args::illegal_type(ctx.name, 0, &ctx.fields[0]))?;
            let base = base_aggregate(&function)?;
            let inputs = base_fields(&base, &args);
            let types: Vec<DataType> = state_types(&base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
            let array = ctx.array(0)?;
            let binary = array.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "AggregateFunction column must be Binary"))?;
            let keys = if ctx.args.len() == 2 { Some(ctx.array(1)?) } else { None };
            let mut acc = base_accumulator(&base, &inputs, false)?;
            let mut values = Vec::with_capacity(binary.len());
            for row in 0..binary.len() {
                if let Some(keys) = &keys {
                    if row > 0 && ScalarValue::try_from_array(keys, row)? != ScalarValue::try_from_array(keys, row - 1)? {
                        acc = base_accumulator(&base, &inputs, false)?;
                    }
                }
                if !binary.is_null(row) {
                    merge_one(acc.as_mut(), &function, &args, binary.value(row), &types)?;
                }
                values.push(acc.evaluate()?);
            }
            if values.is_empty() {
                return Ok(datafusion::arrow::array::new_empty_array(ctx.ret_type()));
            }
            let out = ScalarValue::iter_to_array(values)?;
            let target = ctx.ret_type().clone();
            Ok(if out.data_type() != &target { datafusion::arrow::compute::cast(&out, &target)? } else { out })
        },
    )
    .build()
}

/// The block-local row functions ClickHouse calls error-prone.
const DEPRECATED_WINDOW_FUNCTIONS: &[&str] = &["runningAccumulate", "runningDifference", "runningDifferenceStartingWithFirstValue", "neighbor"];

/// DEPRECATED_FUNCTION when `statement` calls `runningAccumulate` (or another of
/// [`DEPRECATED_WINDOW_FUNCTIONS`]) and
/// `allow_deprecated_error_prone_window_functions` is off, as in ClickHouse.
pub fn check_deprecated_window_functions(statement: &datafusion::sql::sqlparser::ast::Statement, allowed: bool) -> granary_common::Result<()> {
    use datafusion::sql::sqlparser::ast::{visit_expressions, Expr};
    if allowed {
        return Ok(());
    }
    let mut found: Option<String> = None;
    let _ = visit_expressions(statement, |expr| {
        if let Expr::Function(function) = expr {
            if let [part] = function.name.0.as_slice() {
                if let Some(ident) = part.as_ident() {
                    if DEPRECATED_WINDOW_FUNCTIONS.contains(&ident.value.as_str()) {
                        found = Some(ident.value.clone());
                        return std::ops::ControlFlow::Break(());
                    }
                }
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    match found {
        Some(name) => Err(Error::new(
            ErrorCode::DEPRECATED_FUNCTION,
            format!(
                "Function {name} is deprecated since its usage is error-prone (see docs). Please use proper window function or set `allow_deprecated_error_prone_window_functions` setting to enable it"
            ),
        )),
        None => Ok(()),
    }
}

// ------------------------------------------------------------------ the wrappers

struct Combined {
    name: String,
    comb: Comb,
    base: Arc<AggregateUDF>,
    signature: Signature,
    /// The setup of the last argument fields seen (one function object serves every
    /// query, so it is checked against the fields of each call).
    setup: std::sync::Mutex<Option<Arc<AccumulatorSetup>>>,
}

impl fmt::Debug for Combined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Combined({})", self.name)
    }
}
impl PartialEq for Combined {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Combined {}
impl Hash for Combined {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl Combined {
    /// The argument types a state is typed with, and the argument fields the base
    /// aggregate runs on (after its coercion).
    fn base_inputs(&self, args: &[FieldRef]) -> DfResult<(Vec<ChType>, Vec<FieldRef>)> {
        match self.comb {
            Comb::Merge | Comb::MergeState => {
                Arity::exact(1).check(&self.name, args.len())?;
                let Some((function, types)) = aggregate_type(&args[0]) else {
                    return Err(crate::args::illegal_type(&self.name, 0, &args[0]));
                };
                if without_params(&function) != without_params(self.base.name()) && !crate::quantile::same_state(&function, self.base.name()) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!(
                            "Illegal type {} of argument for aggregate function with Merge suffix because it corresponds to different aggregate function: {} instead of {}.",
                            ch_type_of_field(&args[0]),
                            without_params(&function),
                            without_params(self.base.name())
                        ),
                    ));
                }
                let inputs = base_fields(&self.base, &types);
                Ok((types, inputs))
            }
            Comb::Array | Comb::ForEach | Comb::IfForEach => {
                let mut types = Vec::with_capacity(args.len());
                for (i, field) in args.iter().enumerate() {
                    match ch_type_of_field(field).strip_nullable() {
                        ChType::Array(element) => types.push((**element).clone()),
                        _ if self.comb == Comb::Array => return Err(crate::args::illegal_type(&self.name, i, field)),
                        other => {
                            return Err(ch_error(
                                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                                format!("Illegal type {other} of argument for aggregate function with ForEach suffix. Must be array."),
                            ))
                        }
                    }
                }
                // `-IfForEach`: the last array holds the conditions, not arguments.
                if self.comb == Comb::IfForEach && types.pop().is_none() {
                    return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {} requires at least one argument", self.name)));
                }
                let inputs = base_fields(&self.base, &types);
                Ok((types, inputs))
            }
            _ => Ok((args.iter().map(|f| ch_type_of_field(f)).collect(), coerced(&self.base, args))),
        }
    }
}

impl Combined {
    /// The shared setup for accumulators over `fields`, made on the first call with them.
    fn setup_for(&self, fields: &[FieldRef]) -> DfResult<Arc<AccumulatorSetup>> {
        let mut cached = self.setup.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(setup) = cached.as_ref().filter(|s| s.fields.as_slice() == fields) {
            return Ok(Arc::clone(setup));
        }
        let (arg_types, inputs) = self.base_inputs(fields)?;
        let state_types = state_types(&self.base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
        let setup = Arc::new(AccumulatorSetup { fields: fields.to_vec(), arg_types, base: BaseCall::new(&self.base, &inputs)?, state_types });
        *cached = Some(Arc::clone(&setup));
        Ok(setup)
    }
}

impl AggregateUDFImpl for Combined {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        match self.comb {
            // States are typed with the arguments as given; the accumulator casts them.
            Comb::Merge | Comb::MergeState | Comb::State | Comb::Array | Comb::ForEach | Comb::IfForEach => Ok(granary_types::plain_arguments(arg_types)),
            _ => {
                let arg_types = granary_types::plain_arguments(arg_types);
                self.base.coerce_types(&arg_types).or(Ok(arg_types))
            }
        }
    }
    fn return_type(&self, arg_types: &[DataType]) -> DfResult<DataType> {
        let fields: Vec<FieldRef> = arg_types.iter().map(|t| Arc::new(Field::new("", t.clone(), true))).collect();
        Ok(self.return_field(&fields)?.data_type().clone())
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        let (arg_types, inputs) = self.base_inputs(arg_fields)?;
        let t = match self.comb {
            Comb::OrNull => ch_type_of_field(self.base.return_field(&inputs)?.as_ref()).into_nullable(),
            Comb::OrDefault => ch_type_of_field(self.base.return_field(&inputs)?.as_ref()).strip_nullable().clone(),
            Comb::Merge | Comb::Array => ch_type_of_field(self.base.return_field(&inputs)?.as_ref()),
            Comb::SimpleState => {
                let base = self.base.name();
                if !SIMPLE_STATE_FUNCTIONS.contains(&base) {
                    return Err(ch_error(
                        ErrorCode::BAD_ARGUMENTS,
                        format!("Unsupported aggregate function {base}, supported functions are {}", SIMPLE_STATE_FUNCTIONS.join(",")),
                    ));
                }
                ChType::SimpleAggregateFunction(base.to_string(), Box::new(ch_type_of_field(self.base.return_field(&inputs)?.as_ref())))
            }
            Comb::ForEach | Comb::IfForEach => ChType::Array(Box::new(ch_type_of_field(self.base.return_field(&inputs)?.as_ref()))),
            Comb::State | Comb::MergeState => {
                self.base.return_field(&inputs)?;
                // `count` counts rows whatever its arguments: its state type names none,
                // so `countState()` fits an `AggregateFunction(count)` column.
                let argument_types = if self.base.name() == "count" { Vec::new() } else { arg_types };
                crate::group_bitmap::state_type(self.base.name(), &argument_types)
                    .unwrap_or_else(|| ChType::AggregateFunction(self.base.name().to_string(), argument_types))
            }
        };
        Ok(Arc::new(result_field(&self.name, &t)))
    }
    fn is_nullable(&self) -> bool {
        self.comb == Comb::OrNull || self.comb == Comb::SimpleState && self.base.is_nullable()
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        let (_, inputs) = self.base_inputs(args.input_fields)?;
        let mut fields = self.base.state_fields(StateFieldsArgs {
            name: args.name,
            input_fields: &inputs,
            return_field: self.base.return_field(&inputs)?,
            ordering_fields: args.ordering_fields,
            is_distinct: args.is_distinct,
        })?;
        if matches!(self.comb, Comb::OrNull | Comb::OrDefault) {
            fields.push(Arc::new(Field::new(format!("{}[seen]", args.name), DataType::Boolean, true)));
        }
        if matches!(self.comb, Comb::ForEach | Comb::IfForEach) {
            // One state per array position: each state field becomes a list of them.
            fields = fields.into_iter().map(|f| Arc::new(Field::new(f.name(), DataType::List(Arc::new(Field::new_list_field(f.data_type().clone(), true))), true))).collect();
        }
        Ok(fields)
    }
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        matches!(self.comb, Comb::Merge | Comb::State)
            && !args.is_distinct
            && self.setup_for(args.expr_fields).is_ok_and(|setup| setup.base.groups_accumulator_supported(&self.base))
    }
    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn GroupsAccumulator>> {
        let setup = self.setup_for(args.expr_fields)?;
        if self.comb == Comb::State {
            let cast_to: Vec<DataType> = setup.base.inputs.iter().map(|f| f.data_type().clone()).collect();
            let needs_cast = args.expr_fields.iter().zip(&cast_to).any(|(f, t)| f.data_type() != t);
            return Ok(Box::new(StateGroupsAccumulator {
                function: self.base.name().to_string(),
                args: setup.arg_types.clone(),
                cast_to: needs_cast.then_some(cast_to),
                inner: setup.base.groups_accumulator(&self.base)?,
            }));
        }
        Ok(Box::new(MergeGroupsAccumulator {
            function: self.base.name().to_string(),
            args: setup.arg_types.clone(),
            state_types: setup.state_types.clone(),
            inner: setup.base.groups_accumulator(&self.base)?,
            ret: Arc::clone(&args.return_field),
        }))
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let setup = self.setup_for(args.expr_fields)?;
        let inputs = &setup.base.inputs;
        if matches!(self.comb, Comb::ForEach | Comb::IfForEach) {
            let new_element = {
                let (base, setup, is_distinct) = (Arc::clone(&self.base), Arc::clone(&setup), args.is_distinct);
                Box::new(move || setup.base.accumulator(&base, is_distinct)) as crate::for_each::NewAccumulator
            };
            return Ok(Box::new(crate::for_each::ForEachAccumulator::new(
                self.name.clone(),
                new_element,
                inputs.iter().map(|f| f.data_type().clone()).collect(),
                setup.state_types.clone(),
                self.comb == Comb::IfForEach,
                Arc::clone(&args.return_field),
            )));
        }
        let cast_to: Vec<DataType> = inputs.iter().map(|f| f.data_type().clone()).collect();
        let needs_cast = self.comb == Comb::State && args.expr_fields.iter().zip(&cast_to).any(|(f, t)| f.data_type() != t);
        let inner = match self.comb {
            Comb::Merge | Comb::MergeState => setup.base.accumulator(&self.base, false)?,
            Comb::Array => setup.base.accumulator(&self.base, args.is_distinct)?,
            Comb::State if needs_cast => setup.base.accumulator(&self.base, args.is_distinct)?,
            _ => {
                let mut a = args.clone();
                a.return_field = Arc::clone(&setup.base.return_field);
                self.base.accumulator(a)?
            }
        };
        Ok(Box::new(CombinedAccumulator {
            comb: self.comb,
            function: self.base.name().to_string(),
            args: setup.arg_types.clone(),
            cast_to: (needs_cast || self.comb == Comb::Array).then_some(cast_to),
            inner,
            seen: false,
            state_types: setup.state_types.clone(),
            ret: Arc::clone(&args.return_field),
        }))
    }
}

#[derive(Debug)]
struct CombinedAccumulator {
    comb: Comb,
    function: String,
    /// The base aggregate's argument types (they choose the state layout).
    args: Vec<ChType>,
    /// The types the base aggregate takes, when the arguments need a cast to them.
    cast_to: Option<Vec<DataType>>,
    inner: Box<dyn Accumulator>,
    /// Whether any row reached the aggregate (`-OrNull`, `-OrDefault`).
    seen: bool,
    state_types: Vec<DataType>,
    ret: FieldRef,
}

impl Accumulator for CombinedAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        match self.comb {
            Comb::Array => {
                let elements = values.iter().map(|v| flatten_list(v)).collect::<DfResult<Vec<_>>>()?;
                if elements.windows(2).any(|w| w[0].len() != w[1].len()) {
                    return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, "Arrays passed to an -Array aggregate function have different sizes"));
                }
                self.inner.update_batch(&cast_all(&elements, self.cast_to.as_deref().unwrap_or_default())?)
            }
            Comb::Merge | Comb::MergeState => match decode_states(&self.function, &self.args, &values[0], &self.state_types, |_| true)? {
                Some((arrays, _)) => self.inner.merge_batch(&arrays),
                None => Ok(()),
            },
            _ => {
                if values.first().is_none_or(|v| !v.is_empty()) {
                    self.seen = true;
                }
                match &self.cast_to {
                    Some(types) => self.inner.update_batch(&cast_all(values, types)?),
                    None => self.inner.update_batch(values),
                }
            }
        }
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        if matches!(self.comb, Comb::OrNull | Comb::OrDefault) {
            let (inner, seen) = states.split_at(states.len() - 1);
            if let Some(seen) = seen[0].as_boolean_opt() {
                self.seen |= seen.true_count() > 0;
            }
            return self.inner.merge_batch(inner);
        }
        self.inner.merge_batch(states)
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let mut state = self.inner.state()?;
        if matches!(self.comb, Comb::OrNull | Comb::OrDefault) {
            state.push(ScalarValue::Boolean(Some(self.seen)));
        }
        Ok(state)
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let target = self.ret.data_type();
        match self.comb {
            Comb::State | Comb::MergeState => Ok(ScalarValue::Binary(Some(encode_state(&self.function, &self.args, &self.inner.state()?)?))),
            // A result that cannot be inside Nullable (an array) is its default instead;
            // a tuple can (`Nullable(Tuple(..))`).
            Comb::OrNull if !self.seen && !matches!(target, DataType::List(_) | DataType::LargeList(_) | DataType::Map(..)) => {
                Ok(ScalarValue::try_from(target)?)
            }
            // DataFusion's default of a map type does not build.
            Comb::OrNull | Comb::OrDefault if !self.seen && matches!(target, DataType::Map(..)) => crate::chains::map_scalar(target, Vec::new(), Vec::new()),
            Comb::OrNull if !self.seen => ScalarValue::new_default(target),
            Comb::OrDefault if !self.seen => ScalarValue::new_default(target),
            _ => {
                let v = self.inner.evaluate()?;
                if v.data_type() != *target {
                    v.cast_to(target)
                } else {
                    Ok(v)
                }
            }
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.inner.size()
    }
}

/// The non-NULL serialized states of `states` (of the rows `keep` accepts) decoded into
/// the base aggregate's state columns, with the rows they came from when rows were left
/// out (None: no state at all).
fn decode_states(
    function: &str,
    args: &[ChType],
    states: &ArrayRef,
    state_types: &[DataType],
    keep: impl Fn(usize) -> bool,
) -> DfResult<Option<(Vec<ArrayRef>, Option<Vec<usize>>)>> {
    let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "AggregateFunction column must be Binary"))?;
    let rows: Vec<usize> = (0..binary.len()).filter(|&row| binary.is_valid(row) && keep(row)).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let rows_left_out = rows.len() < binary.len();
    if let Some(arrays) = crate::states::decode_states_by_column(function, args, binary, &rows, state_types) {
        return Ok(Some((arrays, rows_left_out.then_some(rows))));
    }
    let mut columns: Vec<Vec<ScalarValue>> = vec![Vec::with_capacity(rows.len()); state_types.len()];
    for &row in &rows {
        for (column, v) in columns.iter_mut().zip(decode_state(function, args, binary.value(row), state_types)?) {
            column.push(v);
        }
    }
    let arrays = columns
        .into_iter()
        .zip(state_types)
        .map(|(c, t)| {
            let a = ScalarValue::iter_to_array(c)?;
            Ok(if a.data_type() != t { datafusion::arrow::compute::cast(&a, t)? } else { a })
        })
        .collect::<DfResult<_>>()?;
    Ok(Some((arrays, (rows.len() < binary.len()).then_some(rows))))
}

/// `-Merge` over a base aggregate with a groups accumulator: the states of a batch are
/// decoded into the base's state columns and merged into every group at once. DataFusion
/// otherwise keeps one row-at-a-time accumulator per group, and creating and sizing those
/// was most of a `GROUP BY` with `sumMerge` over tens of thousands of groups.
struct MergeGroupsAccumulator {
    function: String,
    args: Vec<ChType>,
    state_types: Vec<DataType>,
    inner: Box<dyn GroupsAccumulator>,
    ret: FieldRef,
}

impl GroupsAccumulator for MergeGroupsAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], opt_filter: Option<&BooleanArray>, total_num_groups: usize) -> DfResult<()> {
        let passes = |row: usize| opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row));
        let Some((arrays, rows)) = decode_states(&self.function, &self.args, &values[0], &self.state_types, passes)? else {
            return Ok(());
        };
        match rows {
            None => self.inner.merge_batch(&arrays, group_indices, total_num_groups),
            Some(rows) => {
                let groups: Vec<usize> = rows.iter().map(|&r| group_indices[r]).collect();
                self.inner.merge_batch(&arrays, &groups, total_num_groups)
            }
        }
    }
    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> DfResult<()> {
        self.inner.merge_batch(values, group_indices, total_num_groups)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> DfResult<ArrayRef> {
        let values = self.inner.evaluate(emit_to)?;
        let target = self.ret.data_type();
        Ok(if values.data_type() != target { datafusion::arrow::compute::cast(&values, target)? } else { values })
    }
    fn state(&mut self, emit_to: EmitTo) -> DfResult<Vec<ArrayRef>> {
        self.inner.state(emit_to)
    }
    fn convert_to_state(&self, _values: &[ArrayRef], _opt_filter: Option<&BooleanArray>) -> DfResult<Vec<ArrayRef>> {
        // `supports_convert_to_state` is false: DataFusion never skips partial aggregation here.
        Err(ch_error(ErrorCode::LOGICAL_ERROR, "-Merge cannot convert rows to states"))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.inner.size()
    }
}

/// `-State` over a base aggregate with a groups accumulator: rows go into the base's
/// groups accumulator, and each group's state is serialized at the end. DataFusion
/// otherwise keeps one row-at-a-time accumulator per group, which made `sumState` in a
/// `GROUP BY` of many groups (a rollup's `INSERT ... SELECT`) three times slower than
/// ClickHouse.
struct StateGroupsAccumulator {
    function: String,
    /// The base aggregate's argument types (they choose the state layout).
    args: Vec<ChType>,
    /// The types the base aggregate takes, when the arguments need a cast to them.
    cast_to: Option<Vec<DataType>>,
    inner: Box<dyn GroupsAccumulator>,
}

impl StateGroupsAccumulator {
    fn cast(&self, values: &[ArrayRef]) -> DfResult<Vec<ArrayRef>> {
        match &self.cast_to {
            Some(types) => cast_all(values, types),
            None => Ok(values.to_vec()),
        }
    }
}

impl GroupsAccumulator for StateGroupsAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], opt_filter: Option<&BooleanArray>, total_num_groups: usize) -> DfResult<()> {
        let values = self.cast(values)?;
        self.inner.update_batch(&values, group_indices, opt_filter, total_num_groups)
    }
    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> DfResult<()> {
        self.inner.merge_batch(values, group_indices, total_num_groups)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> DfResult<ArrayRef> {
        let states = self.inner.state(emit_to)?;
        let rows = states.first().map_or(0, |s| s.len());
        let mut out = BinaryBuilder::with_capacity(rows, rows * 8);
        for row in 0..rows {
            let state = states.iter().map(|s| ScalarValue::try_from_array(s, row)).collect::<DfResult<Vec<_>>>()?;
            out.append_value(encode_state(&self.function, &self.args, &state)?);
        }
        Ok(Arc::new(out.finish()))
    }
    fn state(&mut self, emit_to: EmitTo) -> DfResult<Vec<ArrayRef>> {
        self.inner.state(emit_to)
    }
    fn convert_to_state(&self, values: &[ArrayRef], opt_filter: Option<&BooleanArray>) -> DfResult<Vec<ArrayRef>> {
        self.inner.convert_to_state(&self.cast(values)?, opt_filter)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.inner.size()
    }
}

/// Each of `values` as the type at the same position of `types`.
pub(crate) fn cast_all(values: &[ArrayRef], types: &[DataType]) -> DfResult<Vec<ArrayRef>> {
    values
        .iter()
        .zip(types)
        .map(|(v, t)| if v.data_type() == t { Ok(Arc::clone(v)) } else { datafusion::arrow::compute::cast(v, t).map_err(Into::into) })
        .collect()
}

/// The elements of every row's array, in order (NULL arrays contribute none).
fn flatten_list(array: &ArrayRef) -> DfResult<ArrayRef> {
    let list = array.as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "-Array combinator expects arrays"))?;
    let offsets = list.value_offsets();
    let (first, last) = (offsets[0] as usize, offsets[list.len()] as usize);
    let values = list.values().slice(first, last - first);
    if list.null_count() == 0 {
        return Ok(values);
    }
    // A NULL row may still cover elements: keep only those of valid rows.
    let mut keep = Vec::with_capacity(last - first);
    for row in 0..list.len() {
        let n = (offsets[row + 1] - offsets[row]) as usize;
        keep.extend(std::iter::repeat_n(list.is_valid(row), n));
    }
    Ok(datafusion::arrow::compute::filter(&values, &datafusion::arrow::array::BooleanArray::from(keep))?)
}

/// Every wrapper combinator over every base aggregate (`sumState`, `avgMerge`, ...).
pub(crate) fn combined(bases: &[Arc<AggregateUDF>]) -> Vec<AggregateUDF> {
    let mut out = Vec::new();
    for base in bases {
        for (suffix, comb) in WRAPPERS {
            out.push(wrap(format!("{}{suffix}", base.name()), *comb, Arc::clone(base)));
        }
    }
    out
}

/// The wrapper `comb` over `base`, named `name` (`sumState`, `quantilesMerge(0.5, 0.9)`).
pub(crate) fn wrap(name: String, comb: Comb, base: Arc<AggregateUDF>) -> AggregateUDF {
    AggregateUDF::new_from_impl(Combined { name, comb, base, signature: Signature::user_defined(Volatility::Immutable), setup: std::sync::Mutex::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_suffixes() {
        let agg = |n: &str| matches!(n, "sum" | "count" | "uniqExact");
        assert_eq!(split_combinators("sumIfOrNull", &agg), Some(("sum", vec!["OrNull", "If"])));
        assert_eq!(split_combinators("countDistinct", &agg), Some(("count", vec!["Distinct"])));
        assert_eq!(split_combinators("sum", &agg), None);
        assert_eq!(split_combinators("fooIf", &agg), None);
    }
}
