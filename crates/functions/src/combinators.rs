//! Aggregate function combinators: `-If`, `-Distinct`, `-OrNull`, `-OrDefault`,
//! `-State`, `-Merge`, `-MergeState`, and `AggregateFunction(f, T)` state values.
//!
//! * `-If` and `-Distinct` on the innermost level are rewritten by the SQL front end
//!   ([`rewrite_if_distinct`]) into what DataFusion runs natively and fast:
//!   `sumIf(x, c)` is `sum(x) FILTER (WHERE c)`, `countDistinct(x)` is
//!   `count(DISTINCT x)`, `uniqIfOrNull(x, c)` is `uniqOrNull(x) FILTER (WHERE c)`.
//! * the others are UDAFs wrapping a base aggregate ([`combined`]), registered for every
//!   base aggregate under ClickHouse's name (`sumState`, `avgMerge`, `maxOrNull`, ...).
//!
//! States: `-State` returns the base accumulator's state serialized into one
//! `Binary` value per group, typed `AggregateFunction(f, T...)`. The layout is
//! ClickHouse's for `count` (VarUInt), `sum` (the sum, little-endian) and `min`/`max`
//! (a has-value byte and the value); other functions use Granary's own layout (each
//! state field as a NULL flag byte and the value, see [`encode_state`]). `-Merge` reads
//! states back and finishes; [`merge_aggregate_states`] does the same for storage
//! engines (AggregatingMergeTree), and `finalizeAggregation` finishes one state.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, ScalarUDF, Signature, Volatility};
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

/// The combinators implemented as UDAF wrappers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Comb {
    OrNull,
    OrDefault,
    State,
    Merge,
    MergeState,
}

const WRAPPERS: &[(&str, Comb)] = &[
    ("MergeState", Comb::MergeState),
    ("Merge", Comb::Merge),
    ("State", Comb::State),
    ("OrNull", Comb::OrNull),
    ("OrDefault", Comb::OrDefault),
];

/// Splits a combinator name into its base aggregate and the suffixes, outermost first
/// (`sumIfOrNull` -> `sum`, [`OrNull`, `If`]).
pub fn split_combinators<'a>(name: &'a str, is_aggregate: &dyn Fn(&str) -> bool) -> Option<(&'a str, Vec<&'static str>)> {
    const SUFFIXES: &[&str] = &["MergeState", "Merge", "State", "OrNull", "OrDefault", "If", "Distinct"];
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

// ------------------------------------------------------------------ state encoding

fn put_varuint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn get_varuint(input: &mut &[u8]) -> DfResult<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first().ok_or_else(truncated)?;
        *input = rest;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(truncated())
}

fn truncated() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::CORRUPTED_DATA, "Cannot read aggregate function state: unexpected end of data")
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> DfResult<&'a [u8]> {
    if input.len() < n {
        return Err(truncated());
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

/// A value without its NULL flag: fixed-size little-endian, strings with a VarUInt length.
fn put_value(out: &mut Vec<u8>, v: &ScalarValue) -> DfResult<()> {
    match v {
        ScalarValue::Boolean(Some(b)) => out.push(*b as u8),
        ScalarValue::Int8(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Int16(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Int32(Some(x)) | ScalarValue::Date32(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Int64(Some(x))
        | ScalarValue::TimestampSecond(Some(x), _)
        | ScalarValue::TimestampMillisecond(Some(x), _)
        | ScalarValue::TimestampMicrosecond(Some(x), _)
        | ScalarValue::TimestampNanosecond(Some(x), _) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::UInt8(Some(x)) => out.push(*x),
        ScalarValue::UInt16(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::UInt32(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::UInt64(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Float32(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Float64(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Decimal128(Some(x), _, _) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s)) => {
            put_varuint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        ScalarValue::Binary(Some(b)) | ScalarValue::LargeBinary(Some(b)) | ScalarValue::FixedSizeBinary(_, Some(b)) => {
            put_varuint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        ScalarValue::List(list) => {
            let values = list.value(0);
            put_varuint(out, values.len() as u64);
            for i in 0..values.len() {
                put_nullable(out, &ScalarValue::try_from_array(&values, i)?)?;
            }
        }
        other => {
            return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("Cannot serialize aggregate state of type {}", other.data_type())));
        }
    }
    Ok(())
}

fn put_nullable(out: &mut Vec<u8>, v: &ScalarValue) -> DfResult<()> {
    if v.is_null() {
        out.push(0);
        Ok(())
    } else {
        out.push(1);
        put_value(out, v)
    }
}

fn get_value(input: &mut &[u8], dt: &DataType) -> DfResult<ScalarValue> {
    macro_rules! le {
        ($t:ty, $variant:ident) => {{
            let bytes = take(input, std::mem::size_of::<$t>())?;
            ScalarValue::$variant(Some(<$t>::from_le_bytes(bytes.try_into().map_err(|_| truncated())?)))
        }};
    }
    Ok(match dt {
        DataType::Boolean => ScalarValue::Boolean(Some(take(input, 1)?[0] != 0)),
        DataType::Int8 => le!(i8, Int8),
        DataType::Int16 => le!(i16, Int16),
        DataType::Int32 => le!(i32, Int32),
        DataType::Int64 => le!(i64, Int64),
        DataType::UInt8 => le!(u8, UInt8),
        DataType::UInt16 => le!(u16, UInt16),
        DataType::UInt32 => le!(u32, UInt32),
        DataType::UInt64 => le!(u64, UInt64),
        DataType::Float32 => le!(f32, Float32),
        DataType::Float64 => le!(f64, Float64),
        DataType::Date32 => le!(i32, Date32),
        DataType::Timestamp(_, _) | DataType::Decimal128(..) | DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let raw = match dt {
                DataType::Timestamp(..) => ScalarValue::Int64(Some(i64::from_le_bytes(take(input, 8)?.try_into().map_err(|_| truncated())?))),
                DataType::Decimal128(p, s) => {
                    let v = i128::from_le_bytes(take(input, 16)?.try_into().map_err(|_| truncated())?);
                    return Ok(ScalarValue::Decimal128(Some(v), *p, *s));
                }
                _ => {
                    let n = get_varuint(input)? as usize;
                    let s = String::from_utf8_lossy(take(input, n)?).into_owned();
                    ScalarValue::Utf8(Some(s))
                }
            };
            raw.cast_to(dt)?
        }
        DataType::Binary | DataType::LargeBinary | DataType::FixedSizeBinary(_) => {
            let n = get_varuint(input)? as usize;
            ScalarValue::Binary(Some(take(input, n)?.to_vec())).cast_to(dt)?
        }
        DataType::List(item) => {
            let n = get_varuint(input)? as usize;
            let mut values = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                values.push(get_nullable(input, item.data_type())?);
            }
            ScalarValue::List(ScalarValue::new_list_nullable(&values, item.data_type()))
        }
        other => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("Cannot read aggregate state of type {other}"))),
    })
}

fn get_nullable(input: &mut &[u8], dt: &DataType) -> DfResult<ScalarValue> {
    if take(input, 1)?[0] == 0 {
        Ok(ScalarValue::try_from(dt)?)
    } else {
        get_value(input, dt)
    }
}

/// Serializes the state of base aggregate `function` (see the module docs).
pub(crate) fn encode_state(function: &str, state: &[ScalarValue]) -> DfResult<Vec<u8>> {
    let mut out = Vec::new();
    match (function, state) {
        ("count", [ScalarValue::Int64(n)]) => put_varuint(&mut out, n.unwrap_or(0).max(0) as u64),
        ("sum", [v]) if v.data_type().is_primitive() && !matches!(v.data_type(), DataType::Decimal128(..) | DataType::Decimal256(..)) => {
            if v.is_null() {
                put_value(&mut out, &ScalarValue::new_zero(&v.data_type())?)?;
            } else {
                put_value(&mut out, v)?;
            }
        }
        _ => {
            for v in state {
                put_nullable(&mut out, v)?;
            }
        }
    }
    Ok(out)
}

/// Reads a state written by [`encode_state`] back into the accumulator's state values.
pub(crate) fn decode_state(function: &str, bytes: &[u8], types: &[DataType]) -> DfResult<Vec<ScalarValue>> {
    let mut input = bytes;
    let state = match (function, types) {
        ("count", [DataType::Int64]) => vec![ScalarValue::Int64(Some(get_varuint(&mut input)? as i64))],
        ("sum", [t]) if t.is_primitive() && !matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..)) => vec![get_value(&mut input, t)?],
        _ => types.iter().map(|t| get_nullable(&mut input, t)).collect::<DfResult<_>>()?,
    };
    if !input.is_empty() {
        return Err(ch_error(ErrorCode::CORRUPTED_DATA, format!("Aggregate function {function} state has {} extra bytes", input.len())));
    }
    Ok(state)
}

// ------------------------------------------------------------------ the base aggregates

/// The base aggregate named `name` (parameters in `name(..)` are not supported yet).
fn base_aggregate(name: &str) -> DfResult<Arc<AggregateUDF>> {
    crate::registered()
        .1
        .iter()
        .find(|f| f.name() == name || f.aliases().iter().any(|a| a == name))
        .cloned()
        .ok_or_else(|| ch_error(ErrorCode::UNKNOWN_AGGREGATE_FUNCTION, format!("Unknown aggregate function {name}")))
}

fn fields_of(types: &[ChType]) -> Vec<FieldRef> {
    types.iter().enumerate().map(|(i, t)| Arc::new(t.to_arrow_field(&format!("arg{i}")))).collect()
}

/// The state types of `base` over argument fields `inputs`.
fn state_types(base: &AggregateUDF, inputs: &[FieldRef]) -> DfResult<Vec<FieldRef>> {
    let return_field = base.return_field(inputs)?;
    base.state_fields(StateFieldsArgs { name: base.name(), input_fields: inputs, return_field, ordering_fields: &[], is_distinct: false })
}

/// A fresh accumulator of `base` over arguments of the given fields.
fn base_accumulator(base: &AggregateUDF, inputs: &[FieldRef], is_distinct: bool) -> DfResult<Box<dyn Accumulator>> {
    let schema = Schema::new(inputs.iter().map(|f| f.as_ref().clone()).collect::<Vec<Field>>());
    let exprs: Vec<Arc<dyn PhysicalExpr>> =
        inputs.iter().enumerate().map(|(i, f)| Arc::new(Column::new(f.name(), i)) as Arc<dyn PhysicalExpr>).collect();
    base.accumulator(AccumulatorArgs {
        return_field: base.return_field(inputs)?,
        schema: &schema,
        ignore_nulls: false,
        order_bys: &[],
        is_reversed: false,
        name: base.name(),
        is_distinct,
        exprs: &exprs,
        expr_fields: inputs,
    })
}

/// The `AggregateFunction(f, T...)` type of a field, if it is one.
fn aggregate_type(field: &Field) -> Option<(String, Vec<ChType>)> {
    match ch_type_of_field(field).strip_nullable() {
        ChType::AggregateFunction(f, args) => Some((f.clone(), args.clone())),
        _ => None,
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
        let inputs = fields_of(args);
        let types: Vec<DataType> = state_types(&base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
        let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "AggregateFunction column must be Binary"))?;
        if binary.len() != group_of_row.len() {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "merge_aggregate_states: one group per row is required"));
        }
        let mut accumulators: Vec<Box<dyn Accumulator>> = (0..num_groups).map(|_| base_accumulator(&base, &inputs, false)).collect::<DfResult<_>>()?;
        for (row, &group) in group_of_row.iter().enumerate() {
            if binary.is_null(row) || group >= num_groups {
                continue;
            }
            merge_one(accumulators[group].as_mut(), function, binary.value(row), &types)?;
        }
        let mut out = BinaryBuilder::new();
        for acc in &mut accumulators {
            out.append_value(encode_state(base.name(), &acc.state()?)?);
        }
        Ok(Arc::new(out.finish()))
    };
    run().map_err(Error::from)
}

fn merge_one(acc: &mut dyn Accumulator, function: &str, bytes: &[u8], types: &[DataType]) -> DfResult<()> {
    let state = decode_state(function, bytes, types)?;
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
            Ok(ch_type_of_field(base.return_field(&fields_of(&args))?.as_ref()))
        },
        |ctx| {
            let (function, args) = aggregate_type(&ctx.fields[0]).ok_or_else(|| crate::args::illegal_type(ctx.name, 0, &ctx.fields[0]))?;
            let base = base_aggregate(&function)?;
            let inputs = fields_of(&args);
            let types: Vec<DataType> = state_types(&base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
            let array = ctx.array(0)?;
            let binary = array.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "AggregateFunction column must be Binary"))?;
            let mut values = Vec::with_capacity(binary.len());
            for row in 0..binary.len() {
                let mut acc = base_accumulator(&base, &inputs, false)?;
                if !binary.is_null(row) {
                    merge_one(acc.as_mut(), &function, binary.value(row), &types)?;
                }
                values.push(acc.evaluate()?);
            }
            let out = ScalarValue::iter_to_array(values)?;
            let target = ctx.ret_type().clone();
            Ok(if out.data_type() != &target { datafusion::arrow::compute::cast(&out, &target)? } else { out })
        },
    )
    .build()
}

// ------------------------------------------------------------------ the wrappers

struct Combined {
    name: &'static str,
    comb: Comb,
    base: Arc<AggregateUDF>,
    signature: Signature,
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
    /// The argument fields the base aggregate sees.
    fn base_inputs(&self, args: &[FieldRef]) -> DfResult<Vec<FieldRef>> {
        match self.comb {
            Comb::Merge | Comb::MergeState => {
                Arity::exact(1).check(self.name, args.len())?;
                let Some((function, types)) = aggregate_type(&args[0]) else {
                    return Err(crate::args::illegal_type(self.name, 0, &args[0]));
                };
                if function != self.base.name() {
                    return Err(ch_error(
                        ErrorCode::BAD_ARGUMENTS,
                        format!("Illegal type {} of argument for aggregate function {}", ch_type_of_field(&args[0]), self.name),
                    ));
                }
                Ok(fields_of(&types))
            }
            _ => Ok(args.to_vec()),
        }
    }
}

impl AggregateUDFImpl for Combined {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        match self.comb {
            Comb::Merge | Comb::MergeState => Ok(arg_types.to_vec()),
            _ => self.base.coerce_types(arg_types).or_else(|_| Ok(arg_types.to_vec())),
        }
    }
    fn return_type(&self, arg_types: &[DataType]) -> DfResult<DataType> {
        let fields: Vec<FieldRef> = arg_types.iter().map(|t| Arc::new(Field::new("", t.clone(), true))).collect();
        Ok(self.return_field(&fields)?.data_type().clone())
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        let inputs = self.base_inputs(arg_fields)?;
        let t = match self.comb {
            Comb::OrNull => ch_type_of_field(self.base.return_field(&inputs)?.as_ref()).into_nullable(),
            Comb::OrDefault => ch_type_of_field(self.base.return_field(&inputs)?.as_ref()).strip_nullable().clone(),
            Comb::Merge => ch_type_of_field(self.base.return_field(&inputs)?.as_ref()),
            Comb::State | Comb::MergeState => {
                self.base.return_field(&inputs)?;
                // `count` counts rows whatever its arguments: its state type names none,
                // so `countState()` fits an `AggregateFunction(count)` column.
                let argument_types = if self.base.name() == "count" { Vec::new() } else { inputs.iter().map(|f| ch_type_of_field(f)).collect() };
                ChType::AggregateFunction(self.base.name().to_string(), argument_types)
            }
        };
        Ok(Arc::new(result_field(self.name, &t)))
    }
    fn is_nullable(&self) -> bool {
        self.comb == Comb::OrNull
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        let inputs = self.base_inputs(args.input_fields)?;
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
        Ok(fields)
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let inputs = self.base_inputs(args.expr_fields)?;
        let inner = match self.comb {
            Comb::Merge | Comb::MergeState => base_accumulator(&self.base, &inputs, false)?,
            _ => {
                let mut a = args.clone();
                a.return_field = self.base.return_field(&inputs)?;
                self.base.accumulator(a)?
            }
        };
        let types = state_types(&self.base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
        Ok(Box::new(CombinedAccumulator {
            comb: self.comb,
            function: self.base.name().to_string(),
            inner,
            seen: false,
            state_types: types,
            ret: Arc::clone(&args.return_field),
        }))
    }
}

#[derive(Debug)]
struct CombinedAccumulator {
    comb: Comb,
    function: String,
    inner: Box<dyn Accumulator>,
    /// Whether any row reached the aggregate (`-OrNull`, `-OrDefault`).
    seen: bool,
    state_types: Vec<DataType>,
    ret: FieldRef,
}

impl Accumulator for CombinedAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        match self.comb {
            Comb::Merge | Comb::MergeState => {
                let binary = values[0].as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "AggregateFunction column must be Binary"))?;
                // Decode every state of the batch into columns and merge them at once.
                let mut columns: Vec<Vec<ScalarValue>> = vec![Vec::with_capacity(binary.len()); self.state_types.len()];
                for row in 0..binary.len() {
                    if binary.is_null(row) {
                        continue;
                    }
                    for (column, v) in columns.iter_mut().zip(decode_state(&self.function, binary.value(row), &self.state_types)?) {
                        column.push(v);
                    }
                }
                if columns.first().is_some_and(|c| c.is_empty()) {
                    return Ok(());
                }
                let arrays: Vec<ArrayRef> = columns
                    .into_iter()
                    .zip(&self.state_types)
                    .map(|(c, t)| {
                        let a = ScalarValue::iter_to_array(c)?;
                        Ok(if a.data_type() != t { datafusion::arrow::compute::cast(&a, t)? } else { a })
                    })
                    .collect::<DfResult<_>>()?;
                self.inner.merge_batch(&arrays)
            }
            _ => {
                if values.first().is_none_or(|v| !v.is_empty()) {
                    self.seen = true;
                }
                self.inner.update_batch(values)
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
            Comb::State | Comb::MergeState => Ok(ScalarValue::Binary(Some(encode_state(&self.function, &self.inner.state()?)?))),
            Comb::OrNull if !self.seen => Ok(ScalarValue::try_from(target)?),
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

/// Every wrapper combinator over every base aggregate (`sumState`, `avgMerge`, ...).
pub(crate) fn combined(bases: &[Arc<AggregateUDF>]) -> Vec<AggregateUDF> {
    let mut out = Vec::new();
    for base in bases {
        for (suffix, comb) in WRAPPERS {
            let name: &'static str = Box::leak(format!("{}{suffix}", base.name()).into_boxed_str());
            out.push(AggregateUDF::new_from_impl(Combined {
                name,
                comb: *comb,
                base: Arc::clone(base),
                signature: Signature::user_defined(Volatility::Immutable),
            }));
        }
    }
    out
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

    #[test]
    fn states_round_trip() {
        let count = encode_state("count", &[ScalarValue::Int64(Some(300))]).unwrap();
        assert_eq!(count, vec![0xac, 0x02]);
        assert_eq!(decode_state("count", &count, &[DataType::Int64]).unwrap(), vec![ScalarValue::Int64(Some(300))]);
        let sum = encode_state("sum", &[ScalarValue::UInt64(Some(5))]).unwrap();
        assert_eq!(sum, 5u64.to_le_bytes().to_vec());
        let generic = vec![ScalarValue::Utf8(Some("ab".into())), ScalarValue::Int32(None)];
        let bytes = encode_state("argMax", &generic).unwrap();
        assert_eq!(decode_state("argMax", &bytes, &[DataType::Utf8, DataType::Int32]).unwrap(), generic);
        assert!(decode_state("count", &[0x80], &[DataType::Int64]).is_err());
    }
}
