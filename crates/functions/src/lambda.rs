//! ClickHouse's array functions with a lambda: `arrayMap`, `arrayCount`, `arrayExists`, `arrayAll`,
//! `arraySum`, `arrayMin`, `arrayMax`, `arraySort`, `arrayReverseSort`, `arrayFirst`,
//! `arrayLast` (and their `Index` and `OrNull` forms), `arrayCumSum`,
//! `arrayCumSumNonNegative`, `arrayDifference`, `arrayProduct`, `arrayAvg`,
//! `arrayCompact`, and the lambda-only `arraySplit`, `arrayReverseSplit`, `arrayFill`,
//! `arrayReverseFill`, called as `f(x -> expr, arr)` or
//! `f((x, y) -> expr, xs, ys)`; and their map forms `mapApply`, `mapFilter`,
//! `mapExists`, `mapAll`, `mapSort`, `mapReverseSort`, `mapPartialSort` and
//! `mapPartialReverseSort`, called as `f((k, v) -> expr, map)`: a map's keys and values
//! are two arrays under the map's offsets, so they run the same way.
//! `arrayFold((acc, x, ...) -> expr, arr, ..., init)` ([`ArrayFold`]) runs the lambda
//! once per position: over the rows whose arrays are that long, with their accumulators.
//!
//! They are DataFusion higher-order functions ([`HigherOrderUDFImpl`]). DataFusion looks
//! a call up among scalar functions first, and the lambda-less forms are scalar
//! functions of the same names, so the SQL front end renames a call whose first argument
//! is a lambda to [`lambda_name`] (`arraySort` becomes `arraySort(lambda)`), after
//! checking that the lambda takes one parameter per array ([`check_lambda_arity`]).
//!
//! Evaluation: the arrays (of equal lengths row by row, else 190
//! `SIZES_OF_ARRAYS_DONT_MATCH`) are flattened, the lambda runs once over all their
//! elements (captured columns repeated per element), and the lambda-less kernel of the
//! function reduces or orders the results row by row.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt32Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::take_arrays;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, UInt8Type};
use datafusion::common::Result as DfResultAlias;
use datafusion::logical_expr::{
    ColumnarValue, HigherOrderFunctionArgs, HigherOrderReturnFieldArgs, HigherOrderSignature, HigherOrderUDF, HigherOrderUDFImpl,
    LambdaParametersProgress, ValueOrLambda, Volatility,
};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};
use crate::array_aggregate::{is_truth, min_max_lists, reduce_truth, sum_lists, sum_type, Truth};
use crate::array_build::{compact_lists, reduce_values, running_values, Reduce, Running};
use crate::array_sort::sort_lists;
use crate::array::without_low_cardinality;
use crate::func::{ch_type_of_field, result_field};

/// What a lambda function does with the lambda's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Truth(Truth),
    Sum,
    MinMax { max: bool },
    Sort { descending: bool },
    /// `arrayPartialSort(f, limit, arr)`: the first `limit` elements in the order of the
    /// lambda's results, the rest where ClickHouse's partial sort leaves them.
    PartialSort { descending: bool },
    /// The first (or last) element for which the lambda is true.
    Find { last: bool, found: Found },
    /// `arrayMap`: the lambda's results, as arrays of the lambda's ClickHouse type
    /// (DataFusion's `array_transform` would drop the type's metadata: `Array(Date)`
    /// would be `Array(Date32)`, `Array(UInt128)` `Array(Decimal(39, 0))`).
    Map,
    /// `arrayFilter`: the first array's elements where the lambda is true (UInt8 or Bool,
    /// which DataFusion's `array_filter` would not take).
    Filter,
    /// Running sums or differences of the lambda's results.
    Running(Running),
    /// Product or mean of the lambda's results.
    Reduce(Reduce),
    /// The first array's elements without those whose result equals the previous one's.
    Compact,
    /// `mapApply`: the lambda's `(key, value)` tuples as the entries of the result.
    MapApply,
    /// The first array cut before (`reverse`: after) each element for which the lambda
    /// is true.
    Split { reverse: bool },
    /// The first array with each element for which the lambda is false replaced by the
    /// previous (`reverse`: next) one for which it is true.
    Fill { reverse: bool },
}

/// What `arrayFirst`-like functions return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Found {
    /// The element, or the type's default when none matches.
    Element,
    /// The element, or NULL (`...OrNull`).
    ElementOrNull,
    /// Its 1-based position, or 0 (`...Index`).
    Index,
}

/// ClickHouse names of the functions that take a lambda here.
pub const LAMBDA_FUNCTIONS: &[&str] = &[
    "arrayMap",
    "arrayCount",
    "arrayExists",
    "arrayAll",
    "arraySum",
    "arrayMin",
    "arrayMax",
    "arraySort",
    "arrayReverseSort",
    "arrayFirst",
    "arrayLast",
    "arrayFirstIndex",
    "arrayLastIndex",
    "arrayFirstOrNull",
    "arrayLastOrNull",
    "arrayFilter",
    "arrayCumSum",
    "arrayCumSumNonNegative",
    "arrayDifference",
    "arrayProduct",
    "arrayAvg",
    "arrayCompact",
    "arraySplit",
    "arrayReverseSplit",
    "arrayFill",
    "arrayReverseFill",
    "arrayPartialSort",
    "arrayPartialReverseSort",
    "mapApply",
    "mapFilter",
    "mapExists",
    "mapAll",
    "mapSort",
    "mapReverseSort",
    "mapPartialSort",
    "mapPartialReverseSort",
    "arrayFold",
];

/// Lambda functions that take a limit between the lambda and the arrays.
pub const LIMIT_LAMBDA_FUNCTIONS: &[&str] = &["arrayPartialSort", "arrayPartialReverseSort", "mapPartialSort", "mapPartialReverseSort"];

/// Lambda functions over a map, whose lambda takes a key and a value.
pub const MAP_LAMBDA_FUNCTIONS: &[&str] =
    &["mapApply", "mapFilter", "mapExists", "mapAll", "mapSort", "mapReverseSort", "mapPartialSort", "mapPartialReverseSort"];

/// The name the lambda form of `function` is registered under.
pub fn lambda_name(function: &str) -> String {
    format!("{function}(lambda)")
}

/// ClickHouse's check that a lambda takes one parameter per array.
pub fn check_lambda_arity(function: &str, lambda_params: usize, arrays: usize) -> granary_common::Result<()> {
    if lambda_params == arrays {
        return Ok(());
    }
    Err(granary_common::Error::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("First argument for function {function} must be a function with {arrays} arguments, found a function with {lambda_params}"),
    ))
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct ChLambda {
    clickhouse_name: &'static str,
    name: String,
    kind: Kind,
    /// The argument is one map, whose keys and values are the lambda's two parameters.
    over_map: bool,
    signature: HigherOrderSignature,
}

impl ChLambda {
    fn truth_error(&self, found: &ChType) -> datafusion::common::DataFusionError {
        ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Expression for function {} must return UInt8 or Nullable(UInt8), found {found}", self.clickhouse_name),
        )
    }
}

fn argument_error(function: &str, index: usize, t: &ChType) -> datafusion::common::DataFusionError {
    ch_error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("Argument {} of function {function} must be Array. Found {t} instead", index + 1),
    )
}

impl ChLambda {
    /// The position of the first array argument (after the lambda, and the limit of
    /// `arrayPartialSort`).
    fn first_array(&self) -> usize {
        if matches!(self.kind, Kind::PartialSort { .. }) {
            2
        } else {
            1
        }
    }

    fn arrays<'a, L>(&self, fields: &'a [ValueOrLambda<FieldRef, L>]) -> DfResult<Vec<&'a FieldRef>> {
        let first = self.first_array();
        if !matches!(fields.first(), Some(ValueOrLambda::Lambda(_))) || fields.len() < first + 1 {
            return Err(ch_error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Function {} needs a lambda and at least one array", self.clickhouse_name),
            ));
        }
        if first == 2 {
            let limit_ok = matches!(&fields[1], ValueOrLambda::Value(f) if crate::args::is_integer(f.data_type()));
            if !limit_ok {
                let found = match &fields[1] {
                    ValueOrLambda::Value(f) => ch_type_of_field(f).to_string(),
                    ValueOrLambda::Lambda(_) => "a lambda".to_string(),
                };
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {found} of limit argument of function {} (must be UInt or Int)", self.clickhouse_name),
                ));
            }
        }
        if self.over_map {
            return match &fields[first..] {
                [ValueOrLambda::Value(field)] if matches!(field.data_type(), DataType::Map(..)) => Ok(vec![field]),
                _ => Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Function {} requires at least one argument of type Map", self.clickhouse_name),
                )),
            };
        }
        fields[first..]
            .iter()
            .enumerate()
            .map(|(i, f)| match f {
                ValueOrLambda::Value(field) if matches!(field.data_type(), DataType::List(_)) => Ok(field),
                ValueOrLambda::Value(field) => Err(argument_error(self.clickhouse_name, i + first, &ch_type_of_field(field))),
                ValueOrLambda::Lambda(_) => Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Function {} takes one lambda, as its first argument", self.clickhouse_name),
                )),
            })
            .collect()
    }

    fn result_type(&self, lambda: &Field, first_array: &Field) -> DfResult<ChType> {
        let body = without_low_cardinality(ch_type_of_field(lambda));
        let first = without_low_cardinality(ch_type_of_field(first_array));
        // While the query is planned a literal is still Int64 (`x -> 1`), and expressions
        // over it have provisional integer types (`x % 2` of UInt8 is not UInt8 yet); what
        // the lambda really returns is checked again when it has run.
        let check_truth = || {
            let plain = body.strip_nullable();
            if is_truth(plain) || matches!(plain, ChType::Nothing) || crate::args::is_integer(&plain.to_arrow()) {
                Ok(())
            } else {
                Err(self.truth_error(&body))
            }
        };
        match self.kind {
            Kind::Truth(how) => {
                check_truth()?;
                Ok(how.result_type())
            }
            Kind::Find { found, .. } => {
                check_truth()?;
                let element = crate::array::element_type(&first);
                Ok(match found {
                    Found::Element => element,
                    Found::ElementOrNull => element.into_nullable(),
                    Found::Index => ChType::UInt32,
                })
            }
            Kind::Sum => sum_type(&body),
            Kind::MinMax { .. } => Ok(body),
            Kind::Sort { .. } | Kind::PartialSort { .. } | Kind::Compact => Ok(first),
            Kind::Map => Ok(ChType::Array(Box::new(body))),
            Kind::MapApply => match body {
                ChType::Tuple(elements) if elements.len() == 2 => {
                    let mut elements = elements.into_iter().map(|(_, t)| t);
                    match (elements.next(), elements.next()) {
                        (Some(k), Some(v)) => Ok(ChType::Map(Box::new(k), Box::new(v))),
                        _ => Err(ch_error(ErrorCode::LOGICAL_ERROR, "a pair without two elements")),
                    }
                }
                other => Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Expected Array(Tuple(key, value)) type, got Array({other})"))),
            },
            Kind::Filter => {
                check_truth()?;
                Ok(first)
            }
            Kind::Running(how) => Ok(ChType::Array(Box::new(how.result_type(&body)?))),
            Kind::Reduce(how) => {
                how.check(&body)?;
                Ok(ChType::Float64)
            }
            Kind::Split { .. } => {
                check_truth()?;
                Ok(ChType::Array(Box::new(first)))
            }
            Kind::Fill { .. } => {
                check_truth()?;
                Ok(first)
            }
        }
    }
}

/// The arrays of one call, flattened: every array's elements of all rows, the offsets
/// of the rows (shared, as the arrays have equal lengths row by row) and each element's
/// row.
struct Flattened {
    values: Vec<ArrayRef>,
    offsets: Vec<i32>,
    rows: UInt32Array,
}

fn flatten(name: &str, lists: &[ArrayRef]) -> DfResult<Flattened> {
    let first = lists[0].as_list::<i32>();
    let base = first.value_offsets();
    for (k, other) in lists.iter().enumerate().skip(1) {
        let o = other.as_list::<i32>().value_offsets();
        for row in 0..first.len() {
            let (a, b) = (base[row + 1] - base[row], o[row + 1] - o[row]);
            if a != b {
                return Err(ch_error(
                    ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                    format!(
                        "Arrays passed to {name} must have equal size. Argument {} has size {b} which differs with the size of another argument, {a}",
                        k + 2
                    ),
                ));
            }
        }
    }
    let mut values = Vec::with_capacity(lists.len());
    for list in lists {
        let list = list.as_list::<i32>();
        let o = list.value_offsets();
        let (start, end) = (o[0] as usize, o[list.len()] as usize);
        values.push(list.values().slice(start, end - start));
    }
    let offsets: Vec<i32> = base.iter().map(|o| o - base[0]).collect();
    let mut rows: Vec<u32> = Vec::with_capacity(offsets.last().map_or(0, |o| *o as usize));
    for (row, w) in offsets.windows(2).enumerate() {
        rows.extend(std::iter::repeat_n(row as u32, (w[1] - w[0]) as usize));
    }
    Ok(Flattened { values, offsets, rows: UInt32Array::from(rows) })
}

impl HigherOrderUDFImpl for ChLambda {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &HigherOrderSignature {
        &self.signature
    }

    fn coerce_value_types(&self, arg_types: &[DataType]) -> DfResultAlias<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn lambda_parameters(&self, _step: usize, fields: &[ValueOrLambda<FieldRef, Option<FieldRef>>]) -> DfResultAlias<LambdaParametersProgress> {
        let arrays = self.arrays(fields)?;
        let params = arrays
            .iter()
            .flat_map(|f| match f.data_type() {
                DataType::List(item) => vec![Arc::clone(item)],
                DataType::Map(entries, _) => match entries.data_type() {
                    DataType::Struct(fields) => fields.iter().cloned().collect(),
                    other => vec![Arc::new(Field::new("", other.clone(), true))],
                },
                other => vec![Arc::new(Field::new("", other.clone(), true))],
            })
            .collect();
        Ok(LambdaParametersProgress::Complete(vec![params]))
    }

    fn return_field_from_args(&self, args: HigherOrderReturnFieldArgs) -> DfResultAlias<FieldRef> {
        let arrays = self.arrays(args.arg_fields)?;
        let Some(ValueOrLambda::Lambda(lambda)) = args.arg_fields.first() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{}: no lambda", self.clickhouse_name)));
        };
        let t = self.result_type(lambda, arrays[0])?;
        Ok(Arc::new(result_field(self.clickhouse_name, &t)))
    }

    fn invoke_with_args(&self, args: HigherOrderFunctionArgs) -> DfResultAlias<ColumnarValue> {
        let rows = args.number_rows;
        let mut lambda = None;
        let mut lists = Vec::new();
        for arg in args.args {
            match arg {
                ValueOrLambda::Lambda(l) => lambda = Some(l),
                ValueOrLambda::Value(v) => lists.push(v.into_array(rows)?),
            }
        }
        // The limit of `arrayPartialSort(f, limit, arr)` comes before the arrays.
        let limits = if self.first_array() == 2 && !lists.is_empty() {
            Some(datafusion::arrow::compute::cast(&lists.remove(0), &DataType::Int64)?)
        } else {
            None
        };
        let Some(lambda) = lambda else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{}: no lambda", self.clickhouse_name)));
        };
        if lists.is_empty() {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{}: no array", self.clickhouse_name)));
        }
        if self.over_map {
            lists = map_as_lists(&lists[0], self.clickhouse_name)?;
        }
        let flat = flatten(self.clickhouse_name, &lists)?;
        let elements = flat.rows.len();
        let getters: Vec<Box<dyn Fn() -> DfResultAlias<ArrayRef>>> = flat
            .values
            .iter()
            .map(|v| {
                let v = Arc::clone(v);
                Box::new(move || Ok(Arc::clone(&v))) as Box<dyn Fn() -> DfResultAlias<ArrayRef>>
            })
            .collect();
        let getter_refs: Vec<&dyn Fn() -> DfResultAlias<ArrayRef>> = getters.iter().map(|g| g.as_ref()).collect();
        let results = lambda
            .evaluate(&getter_refs, |captured| Ok(take_arrays(captured, &flat.rows, None)?))?
            .into_array(elements)?;
        // A literal body (`x -> 1`) is still Int64 here; ClickHouse types it UInt8.
        let results = match self.kind {
            Kind::Truth(_) | Kind::Find { .. } | Kind::Split { .. } | Kind::Fill { .. } | Kind::Filter if results.data_type() == &DataType::Int64 => {
                datafusion::arrow::compute::cast(&results, &DataType::Boolean)?
            }
            _ => results,
        };
        let check_truth = || {
            if matches!(results.data_type(), DataType::UInt8 | DataType::Boolean | DataType::Null) {
                return Ok(());
            }
            Err(self.truth_error(&ChType::from_arrow(results.data_type(), results.null_count() > 0)))
        };
        let out = match self.kind {
            Kind::Truth(how) => {
                check_truth()?;
                reduce_truth(&results, &flat.offsets, how)?
            }
            Kind::Find { last, found } => {
                check_truth()?;
                find_in_lists(&flat, &results, last, found, &args.return_field)?
            }
            Kind::Sum => {
                let t = ch_type_of_field(&args.return_field);
                sum_lists(&results, &flat.offsets, &t)?
            }
            Kind::MinMax { max } => {
                let field = Field::new("", results.data_type().clone(), args.return_field.is_nullable() || results.data_type() == &DataType::Null);
                min_max_lists(&results, &field, &flat.offsets, max)?
            }
            Kind::Sort { descending } if self.over_map => {
                let entries = entries_of(&flat)?;
                let field = Arc::new(Field::new("entries", entries.data_type().clone(), false));
                let sorted = sort_lists(&entries, &results, &flat.offsets, field, descending)?;
                sorted_map(&sorted, &args.return_field)?
            }
            Kind::Sort { descending } => {
                let DataType::List(item) = args.return_field.data_type() else {
                    return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns a list", self.clickhouse_name)));
                };
                sort_lists(&flat.values[0], &results, &flat.offsets, Arc::clone(item), descending)?
            }
            Kind::PartialSort { descending } => {
                let Some(limits) = &limits else {
                    return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{}: no limit", self.clickhouse_name)));
                };
                let limits = limits.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
                let limit = |row: usize| if limits.is_null(row) { 0 } else { limits.value(row) };
                if self.over_map {
                    let entries = entries_of(&flat)?;
                    let field = Arc::new(Field::new("entries", entries.data_type().clone(), false));
                    let sorted = crate::array_sort::partial_sort_lists(&entries, &results, &flat.offsets, &limit, field, descending, None)?;
                    sorted_map(&sorted, &args.return_field)?
                } else {
                    let item = list_item(&args.return_field, self.clickhouse_name)?;
                    crate::array_sort::partial_sort_lists(&flat.values[0], &results, &flat.offsets, &limit, item, descending, None)?
                }
            }
            Kind::MapApply => {
                let pairs = results
                    .as_struct_opt()
                    .filter(|pairs| pairs.num_columns() == 2)
                    .ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, format!("Expected Array(Tuple(key, value)) type, got Array({})", results.data_type())))?;
                let offsets = OffsetBuffer::new(flat.offsets.clone().into());
                crate::map_functions::map_from_columns(args.return_field.data_type(), Arc::clone(pairs.column(0)), Arc::clone(pairs.column(1)), offsets)?
            }
            Kind::Running(how) => {
                let element = crate::array::element_type(&ch_type_of_field(&args.return_field));
                let values = running_values(&results, &flat.offsets, how, &element)?;
                let item = list_item(&args.return_field, self.clickhouse_name)?;
                let values = if values.data_type() == item.data_type() { values } else { datafusion::arrow::compute::cast(&values, item.data_type())? };
                Arc::new(ListArray::try_new(item, OffsetBuffer::new(flat.offsets.clone().into()), values, None)?)
            }
            Kind::Reduce(how) => reduce_values(&results, &flat.offsets, how)?,
            Kind::Map => {
                let item = list_item(&args.return_field, self.clickhouse_name)?;
                let values = if results.data_type() == item.data_type() { results } else { datafusion::arrow::compute::cast(&results, item.data_type())? };
                Arc::new(ListArray::try_new(item, OffsetBuffer::new(flat.offsets.clone().into()), values, None)?)
            }
            Kind::Filter => {
                check_truth()?;
                let is_true = truth_values(&results);
                let mut indices: Vec<u32> = Vec::new();
                let mut offsets: Vec<i32> = vec![0];
                for w in flat.offsets.windows(2) {
                    indices.extend((w[0] as u32..w[1] as u32).filter(|i| is_true[*i as usize]));
                    offsets.push(crate::regexp::list_offset(indices.len())?);
                }
                if self.over_map {
                    let indices = UInt32Array::from(indices);
                    let keys = datafusion::arrow::compute::take(flat.values[0].as_ref(), &indices, None)?;
                    let values = datafusion::arrow::compute::take(flat.values[1].as_ref(), &indices, None)?;
                    let offsets = OffsetBuffer::new(offsets.into());
                    return Ok(ColumnarValue::Array(crate::map_functions::map_from_columns(args.return_field.data_type(), keys, values, offsets)?));
                }
                let item = list_item(&args.return_field, self.clickhouse_name)?;
                let values = datafusion::arrow::compute::take(flat.values[0].as_ref(), &UInt32Array::from(indices), None)?;
                let values = if values.data_type() == item.data_type() { values } else { datafusion::arrow::compute::cast(&values, item.data_type())? };
                Arc::new(ListArray::try_new(item, OffsetBuffer::new(offsets.into()), values, None)?)
            }
            Kind::Compact => compact_lists(&flat.values[0], &results, &flat.offsets, list_item(&args.return_field, self.clickhouse_name)?)?,
            Kind::Split { reverse } => {
                check_truth()?;
                split_lists(&flat, &results, reverse, &args.return_field, self.clickhouse_name)?
            }
            Kind::Fill { reverse } => {
                check_truth()?;
                fill_lists(&flat, &results, reverse, &args.return_field, self.clickhouse_name)?
            }
        };
        Ok(ColumnarValue::Array(out))
    }
}

/// A map column as its keys and its values, two lists under the map's offsets.
fn map_as_lists(map: &ArrayRef, name: &str) -> DfResult<Vec<ArrayRef>> {
    let map = map.as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {name} takes a Map")))?;
    let entries = map.entries();
    let list = |i: usize| -> DfResult<ArrayRef> {
        let field = Arc::new(Field::new("item", entries.column(i).data_type().clone(), true));
        Ok(Arc::new(ListArray::try_new(field, map.offsets().clone(), Arc::clone(entries.column(i)), None)?))
    };
    Ok(vec![list(0)?, list(1)?])
}

/// The flattened keys and values of a map lambda as one column of entries.
fn entries_of(flat: &Flattened) -> DfResult<ArrayRef> {
    let fields: Vec<Field> = ["keys", "values"].iter().zip(&flat.values).map(|(name, v)| Field::new(*name, v.data_type().clone(), true)).collect();
    Ok(Arc::new(datafusion::arrow::array::StructArray::try_new(fields.into(), flat.values.clone(), None)?))
}

/// A list of entries (sorted by [`sort_lists`]) as the map it holds.
fn sorted_map(sorted: &ArrayRef, return_field: &FieldRef) -> DfResult<ArrayRef> {
    let list = sorted.as_list::<i32>();
    let entries = list.values().as_struct();
    crate::map_functions::map_from_columns(return_field.data_type(), Arc::clone(entries.column(0)), Arc::clone(entries.column(1)), list.offsets().clone())
}

/// The item field of a list-typed return field.
fn list_item(return_field: &FieldRef, name: &str) -> DfResult<FieldRef> {
    match return_field.data_type() {
        DataType::List(item) => Ok(Arc::clone(item)),
        other => Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{name} returns {other}"))),
    }
}

/// Whether each of the lambda's results is true (NULL is not).
fn truth_values(results: &ArrayRef) -> Vec<bool> {
    match results.data_type() {
        DataType::UInt8 => results.as_primitive::<UInt8Type>().iter().map(|v| v.is_some_and(|v| v != 0)).collect(),
        DataType::Boolean => results.as_boolean().iter().map(|v| v == Some(true)).collect(),
        _ => vec![false; results.len()],
    }
}

/// `arraySplit` / `arrayReverseSplit`: each row's elements of the first array cut into
/// pieces before (`reverse`: after) the elements whose result is true; an empty row has
/// no pieces.
fn split_lists(flat: &Flattened, results: &ArrayRef, reverse: bool, return_field: &FieldRef, name: &str) -> DfResult<ArrayRef> {
    let is_true = truth_values(results);
    let outer_item = list_item(return_field, name)?;
    let inner_item = list_item(&outer_item, name)?;
    let mut inner_offsets: Vec<i32> = vec![0];
    let mut outer_offsets: Vec<i32> = vec![0];
    for w in flat.offsets.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        for i in start..end {
            let cut = if reverse { i + 1 < end && is_true[i] } else { i > start && is_true[i] };
            if cut {
                // The piece ends before `i` (reverse: after `i`).
                inner_offsets.push(if reverse { i as i32 + 1 } else { i as i32 });
            }
        }
        if end > start {
            inner_offsets.push(end as i32);
        }
        outer_offsets.push(crate::regexp::list_offset(inner_offsets.len() - 1)?);
    }
    let values = &flat.values[0];
    let values = if values.data_type() == inner_item.data_type() { Arc::clone(values) } else { datafusion::arrow::compute::cast(values, inner_item.data_type())? };
    let inner = ListArray::try_new(inner_item, OffsetBuffer::new(inner_offsets.into()), values, None)?;
    Ok(Arc::new(ListArray::try_new(outer_item, OffsetBuffer::new(outer_offsets.into()), Arc::new(inner), None)?))
}

/// `arrayFill` / `arrayReverseFill`: each element whose result is false replaced by the
/// last (`reverse`: next) element before (after) it whose result is true; the first
/// (`reverse`: last) element of a row always stays.
fn fill_lists(flat: &Flattened, results: &ArrayRef, reverse: bool, return_field: &FieldRef, name: &str) -> DfResult<ArrayRef> {
    let is_true = truth_values(results);
    let item = list_item(return_field, name)?;
    let mut indices: Vec<u32> = vec![0; is_true.len()];
    for w in flat.offsets.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        if start == end {
            continue;
        }
        if reverse {
            let mut kept = end - 1;
            for i in (start..end).rev() {
                if i == end - 1 || is_true[i] {
                    kept = i;
                }
                indices[i] = kept as u32;
            }
        } else {
            let mut kept = start;
            for i in start..end {
                if i == start || is_true[i] {
                    kept = i;
                }
                indices[i] = kept as u32;
            }
        }
    }
    let values = datafusion::arrow::compute::take(flat.values[0].as_ref(), &UInt32Array::from(indices), None)?;
    let values = if values.data_type() == item.data_type() { values } else { datafusion::arrow::compute::cast(&values, item.data_type())? };
    Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::new(flat.offsets.clone().into()), values, None)?))
}

/// Where the lambda's `results` are first (`last`: last) true in each row's elements.
fn find_in_lists(flat: &Flattened, results: &ArrayRef, last: bool, found: Found, return_field: &FieldRef) -> DfResult<ArrayRef> {
    let is_true: Vec<bool> = match results.data_type() {
        DataType::UInt8 => results.as_primitive::<UInt8Type>().iter().map(|v| v.is_some_and(|v| v != 0)).collect(),
        DataType::Boolean => results.as_boolean().iter().map(|v| v == Some(true)).collect(),
        _ => vec![false; results.len()],
    };
    let positions = flat.offsets.windows(2).map(|w| {
        let (start, end) = (w[0] as usize, w[1] as usize);
        let mut range = start..end;
        let hit = if last { range.rfind(|&i| is_true[i]) } else { range.find(|&i| is_true[i]) };
        hit.map(|i| (i, i - start))
    });
    if found == Found::Index {
        let indexes: UInt32Array = positions.map(|p| p.map_or(0, |(_, within)| within as u32 + 1)).collect();
        return Ok(Arc::new(indexes));
    }
    let take_at: UInt32Array = positions.map(|p| p.map(|(i, _)| i as u32)).collect();
    let elements = datafusion::arrow::compute::take(flat.values[0].as_ref(), &take_at, None)?;
    if found == Found::Element && !return_field.is_nullable() {
        return crate::func::defaults_at_nulls(&elements);
    }
    Ok(elements)
}

fn define(clickhouse_name: &'static str, kind: Kind) -> HigherOrderUDF {
    HigherOrderUDF::new_from_impl(ChLambda {
        clickhouse_name,
        name: lambda_name(clickhouse_name),
        kind,
        over_map: MAP_LAMBDA_FUNCTIONS.contains(&clickhouse_name),
        signature: HigherOrderSignature::variadic_any(Volatility::Immutable),
    })
}

/// `arrayFold(lambda, arr1, ..., init)`: the accumulator starts as `init` and becomes
/// the lambda's result over it and each position's elements in turn.
#[derive(Debug, PartialEq, Eq, Hash)]
struct ArrayFold {
    name: String,
    signature: HigherOrderSignature,
}

impl ArrayFold {
    const CLICKHOUSE_NAME: &'static str = "arrayFold";

    /// The array fields and the accumulator field of a call.
    fn arguments<'a, L>(&self, fields: &'a [ValueOrLambda<FieldRef, L>]) -> DfResult<(Vec<&'a FieldRef>, &'a FieldRef)> {
        let name = Self::CLICKHOUSE_NAME;
        if !matches!(fields.first(), Some(ValueOrLambda::Lambda(_))) || fields.len() < 3 {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Function {name} requires as arguments a lambda function, at least one array and an accumulator")));
        }
        let values: Vec<&FieldRef> = fields[1..]
            .iter()
            .map(|f| match f {
                ValueOrLambda::Value(field) => Ok(field),
                ValueOrLambda::Lambda(_) => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {name} takes one lambda, as its first argument"))),
            })
            .collect::<DfResult<_>>()?;
        let Some((accumulator, arrays)) = values.split_last() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{name}: no accumulator")));
        };
        for (i, field) in arrays.iter().enumerate() {
            if !matches!(field.data_type(), DataType::List(_)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Argument {} of function {name} must be of type Array, found {} instead", i + 2, ch_type_of_field(field)),
                ));
            }
        }
        Ok((arrays.to_vec(), accumulator))
    }
}

impl HigherOrderUDFImpl for ArrayFold {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &HigherOrderSignature {
        &self.signature
    }

    fn coerce_value_types(&self, arg_types: &[DataType]) -> DfResultAlias<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn lambda_parameters(&self, _step: usize, fields: &[ValueOrLambda<FieldRef, Option<FieldRef>>]) -> DfResultAlias<LambdaParametersProgress> {
        let (arrays, accumulator) = self.arguments(fields)?;
        let mut params = vec![Arc::clone(accumulator)];
        params.extend(arrays.iter().map(|f| match f.data_type() {
            DataType::List(item) => Arc::clone(item),
            other => Arc::new(Field::new("", other.clone(), true)),
        }));
        Ok(LambdaParametersProgress::Complete(vec![params]))
    }

    fn return_field_from_args(&self, args: HigherOrderReturnFieldArgs) -> DfResultAlias<FieldRef> {
        let (_, accumulator) = self.arguments(args.arg_fields)?;
        let Some(ValueOrLambda::Lambda(lambda)) = args.arg_fields.first() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{}: no lambda", Self::CLICKHOUSE_NAME)));
        };
        let (body, acc) = (without_low_cardinality(ch_type_of_field(lambda)), ch_type_of_field(accumulator));
        // While the query is planned integer literals are still Int64 (`acc + 1`); what
        // the lambda returns is cast to the accumulator's type when it has run.
        if !same_but_int_literals(&body, &acc) {
            return Err(ch_error(
                ErrorCode::TYPE_MISMATCH,
                format!(
                    "Return type of lambda function must be the same as the accumulator type, inferred return type of lambda: {body}, inferred type of accumulator: {acc}"
                ),
            ));
        }
        Ok(Arc::new(result_field(Self::CLICKHOUSE_NAME, &acc)))
    }

    fn invoke_with_args(&self, args: HigherOrderFunctionArgs) -> DfResultAlias<ColumnarValue> {
        let name = Self::CLICKHOUSE_NAME;
        let rows = args.number_rows;
        let mut lambda = None;
        let mut values = Vec::new();
        for arg in args.args {
            match arg {
                ValueOrLambda::Lambda(l) => lambda = Some(l),
                ValueOrLambda::Value(v) => values.push(v.into_array(rows)?),
            }
        }
        let (Some(lambda), Some(mut accumulator)) = (lambda, values.pop()) else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{name}: no lambda or accumulator")));
        };
        if values.is_empty() {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{name}: no array")));
        }
        let acc_type = args.return_field.data_type().clone();
        if accumulator.data_type() != &acc_type {
            accumulator = datafusion::arrow::compute::cast(&accumulator, &acc_type)?;
        }
        let flat = flatten(name, &values)?;
        let longest = flat.offsets.windows(2).map(|w| (w[1] - w[0]) as usize).max().unwrap_or(0);
        let mut active: Vec<u32> = Vec::with_capacity(rows);
        for position in 0..longest {
            // The rows whose arrays have an element at `position`, and those elements.
            active.clear();
            active.extend(flat.offsets.windows(2).enumerate().filter(|(_, w)| (w[1] - w[0]) as usize > position).map(|(row, _)| row as u32));
            let rows_taken = UInt32Array::from(active.clone());
            let elements = UInt32Array::from(active.iter().map(|row| (flat.offsets[*row as usize] as usize + position) as u32).collect::<Vec<_>>());
            let mut params = vec![datafusion::arrow::compute::take(accumulator.as_ref(), &rows_taken, None)?];
            for v in &flat.values {
                params.push(datafusion::arrow::compute::take(v.as_ref(), &elements, None)?);
            }
            let getters: Vec<Box<dyn Fn() -> DfResultAlias<ArrayRef>>> = params
                .into_iter()
                .map(|p| Box::new(move || Ok(Arc::clone(&p))) as Box<dyn Fn() -> DfResultAlias<ArrayRef>>)
                .collect();
            let getter_refs: Vec<&dyn Fn() -> DfResultAlias<ArrayRef>> = getters.iter().map(|g| g.as_ref()).collect();
            let results = lambda.evaluate(&getter_refs, |captured| Ok(take_arrays(captured, &rows_taken, None)?))?.into_array(active.len())?;
            let results = if results.data_type() == &acc_type { results } else { datafusion::arrow::compute::cast(&results, &acc_type)? };
            // Every row keeps its accumulator, or takes its new one if it was active.
            let mut next = active.iter().enumerate().peekable();
            let picks: Vec<(usize, usize)> = (0..rows)
                .map(|row| match next.peek() {
                    Some((k, r)) if **r as usize == row => {
                        let k = *k;
                        next.next();
                        (1, k)
                    }
                    _ => (0, row),
                })
                .collect();
            accumulator = datafusion::arrow::compute::interleave(&[accumulator.as_ref(), results.as_ref()], &picks)?;
        }
        Ok(ColumnarValue::Array(accumulator))
    }
}

/// Whether two types are equal but where one has an integer the other's planned
/// integer literal (`Int64`) stands for, at any depth of arrays, tuples and Nullable.
fn same_but_int_literals(a: &ChType, b: &ChType) -> bool {
    let integer = |t: &ChType| crate::args::is_integer(&t.to_arrow()) && !matches!(t, ChType::Decimal(..));
    match (a, b) {
        (ChType::Array(x), ChType::Array(y)) | (ChType::Nullable(x), ChType::Nullable(y)) => same_but_int_literals(x, y),
        (ChType::Tuple(x), ChType::Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|((_, x), (_, y))| same_but_int_literals(x, y)),
        (ChType::Int64, other) | (other, ChType::Int64) if integer(other) => true,
        _ => a == b,
    }
}

/// Every lambda form, for registration.
pub(crate) fn functions() -> Vec<HigherOrderUDF> {
    vec![
        HigherOrderUDF::new_from_impl(ArrayFold { name: lambda_name(ArrayFold::CLICKHOUSE_NAME), signature: HigherOrderSignature::variadic_any(Volatility::Immutable) }),
        define("arrayCount", Kind::Truth(Truth::Count)),
        define("arrayExists", Kind::Truth(Truth::Exists)),
        define("arrayAll", Kind::Truth(Truth::All)),
        define("arraySum", Kind::Sum),
        define("arrayMin", Kind::MinMax { max: false }),
        define("arrayMax", Kind::MinMax { max: true }),
        define("arraySort", Kind::Sort { descending: false }),
        define("arrayReverseSort", Kind::Sort { descending: true }),
        define("arrayFirst", Kind::Find { last: false, found: Found::Element }),
        define("arrayLast", Kind::Find { last: true, found: Found::Element }),
        define("arrayFirstOrNull", Kind::Find { last: false, found: Found::ElementOrNull }),
        define("arrayLastOrNull", Kind::Find { last: true, found: Found::ElementOrNull }),
        define("arrayFirstIndex", Kind::Find { last: false, found: Found::Index }),
        define("arrayLastIndex", Kind::Find { last: true, found: Found::Index }),
        define("arrayMap", Kind::Map),
        define("arrayFilter", Kind::Filter),
        define("arrayCumSum", Kind::Running(Running::CumSum)),
        define("arrayCumSumNonNegative", Kind::Running(Running::CumSumNonNegative)),
        define("arrayDifference", Kind::Running(Running::Difference)),
        define("arrayProduct", Kind::Reduce(Reduce::Product)),
        define("arrayAvg", Kind::Reduce(Reduce::Avg)),
        define("arrayCompact", Kind::Compact),
        define("arraySplit", Kind::Split { reverse: false }),
        define("arrayReverseSplit", Kind::Split { reverse: true }),
        define("arrayFill", Kind::Fill { reverse: false }),
        define("arrayReverseFill", Kind::Fill { reverse: true }),
        define("arrayPartialSort", Kind::PartialSort { descending: false }),
        define("arrayPartialReverseSort", Kind::PartialSort { descending: true }),
        define("mapApply", Kind::MapApply),
        define("mapFilter", Kind::Filter),
        define("mapExists", Kind::Truth(Truth::Exists)),
        define("mapAll", Kind::Truth(Truth::All)),
        define("mapSort", Kind::Sort { descending: false }),
        define("mapReverseSort", Kind::Sort { descending: true }),
        define("mapPartialSort", Kind::PartialSort { descending: false }),
        define("mapPartialReverseSort", Kind::PartialSort { descending: true }),
    ]
}
