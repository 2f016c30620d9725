//! The scalar-function adapter: one generic [`ScalarUDFImpl`] ([`ChUdf`]) driven by a
//! description ([`ScalarDef`]) so that each of the ~300 ClickHouse functions is a few
//! lines: a name, an arity, a return-type rule and a vectorized kernel.
//!
//! What the adapter does for every function, once:
//! * argument count check with code 42 (DataFusion's own signature machinery is
//!   bypassed with `Signature::user_defined` + identity coercion, because its errors
//!   are strings and would lose the ClickHouse code);
//! * ClickHouse's *default implementation for NULLs* ([`Nulls::Default`]): a `NULL`
//!   literal argument makes the result `Nullable(Nothing)` NULL; nullable arguments make
//!   the result `Nullable(T)` with NULL where any argument is NULL, and the kernel runs
//!   on the arrays as they are (kernels skip null slots, they never fail on them); a
//!   result that cannot be Nullable (Array, Map, Tuple) is computed on the type's default
//!   value where an argument is NULL, as ClickHouse does (`splitByChar(',', NULL-row)` is
//!   `['']`), and an Arrow list/map/struct argument never makes a result Nullable;
//! * constant folding: when every argument is a scalar the kernel runs on one-row
//!   arrays and the result is handed back as a scalar, which is what DataFusion's
//!   `ConstEvaluator` needs to fold `toDate('2024-01-01')` at plan time.
//!
//! Result types are expressed as [`ChType`]s and turned into Arrow fields with
//! [`ChType::to_arrow_field`], so `Date` vs `Date32`, `UUID` vs `FixedString(16)` etc.
//! are carried in field metadata and `toTypeName` can show them.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{new_null_array, Array, ArrayRef};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::config::ConfigOptions;
use datafusion::common::{internal_err, ScalarValue};
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use granary_types::ChType;

use crate::literals::{is_query_literal, narrow};
use crate::args::{must_be_constant, scalar_i128, scalar_str, Arity, DfResult};
use crate::tz::SessionTz;

/// How a function treats NULL arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nulls {
    /// ClickHouse's default: NULL in, NULL out; `Nullable` arguments give a `Nullable`
    /// result. The kernel sees the argument arrays with their nulls and may ignore them.
    Default,
    /// The function looks at NULLs itself (isNull, ifNull, coalesce, toTypeName, ...);
    /// its return rule sees the real argument fields.
    Custom,
}

/// What the return-type rule sees.
pub(crate) struct RetCtx<'a> {
    pub name: &'a str,
    /// Argument fields. Under [`Nulls::Default`] these are the non-nullable versions.
    pub fields: Vec<FieldRef>,
    pub scalars: &'a [Option<&'a ScalarValue>],
}

impl RetCtx<'_> {
    pub fn arg_count(&self) -> usize {
        self.fields.len()
    }
    pub fn dt(&self, i: usize) -> &DataType {
        self.fields[i].data_type()
    }
    pub fn field(&self, i: usize) -> &Field {
        self.fields[i].as_ref()
    }
    pub fn ch(&self, i: usize) -> ChType {
        ch_type_of_field(&self.fields[i])
    }
    /// The value of argument `i` when it is a literal.
    pub fn scalar(&self, i: usize) -> Option<&ScalarValue> {
        self.scalars.get(i).copied().flatten()
    }
    /// A constant string argument; ClickHouse requires these to be constants.
    pub fn const_str(&self, i: usize, what: &str) -> DfResult<&str> {
        self.scalar(i).and_then(scalar_str).ok_or_else(|| must_be_constant(self.name, i, what))
    }
    /// A constant integer argument.
    pub fn const_int(&self, i: usize, what: &str) -> DfResult<i128> {
        self.scalar(i).and_then(scalar_i128).ok_or_else(|| must_be_constant(self.name, i, what))
    }
    /// The type of argument `i` as it will be once query literals have ClickHouse's types:
    /// while the SQL is planned an integer literal is still `Int64` (see
    /// [`crate::literals`]), which rules that refuse signed types must not reject.
    pub fn literal_ch(&self, i: usize) -> ChType {
        match self.scalar(i) {
            Some(s @ ScalarValue::Int64(Some(_))) => narrow(s).map_or_else(|| self.ch(i), |n| ChType::from_arrow(&n.data_type(), false)),
            _ => self.ch(i),
        }
    }
}

/// What the kernel sees.
pub(crate) struct ExecCtx<'a> {
    pub name: &'a str,
    pub args: &'a [ColumnarValue],
    pub fields: &'a [FieldRef],
    /// Rows to produce (1 when every argument is a constant).
    pub len: usize,
    pub ret: &'a FieldRef,
    pub config: &'a ConfigOptions,
}

impl ExecCtx<'_> {
    pub fn array(&self, i: usize) -> DfResult<ArrayRef> {
        self.args[i].to_array(self.len)
    }
    pub fn dt(&self, i: usize) -> &DataType {
        self.fields[i].data_type()
    }
    pub fn ch(&self, i: usize) -> ChType {
        ch_type_of_field(&self.fields[i])
    }
    pub fn ret_ch(&self) -> ChType {
        ch_type_of_field(self.ret)
    }
    pub fn ret_type(&self) -> &DataType {
        self.ret.data_type()
    }
    pub fn scalar(&self, i: usize) -> Option<&ScalarValue> {
        match self.args.get(i) {
            Some(ColumnarValue::Scalar(s)) => Some(s),
            _ => None,
        }
    }
    pub fn const_str(&self, i: usize, what: &str) -> DfResult<&str> {
        self.scalar(i).and_then(scalar_str).ok_or_else(|| must_be_constant(self.name, i, what))
    }
    pub fn const_int(&self, i: usize, what: &str) -> DfResult<i128> {
        self.scalar(i).and_then(scalar_i128).ok_or_else(|| must_be_constant(self.name, i, what))
    }
    /// The session (server) time zone.
    pub fn session_tz(&self) -> DfResult<SessionTz> {
        SessionTz::from_config(self.config)
    }
}

pub(crate) type RetFn = dyn Fn(&RetCtx) -> DfResult<ChType> + Send + Sync;
pub(crate) type ExecFn = dyn Fn(&ExecCtx) -> DfResult<ArrayRef> + Send + Sync;
pub(crate) type SimplifyFn = dyn Fn(Vec<Expr>, &SimplifyContext) -> DfResult<ExprSimplifyResult> + Send + Sync;

/// The description of one scalar function.
pub(crate) struct ScalarDef {
    pub name: &'static str,
    pub aliases: Vec<String>,
    pub arity: Arity,
    pub nulls: Nulls,
    pub volatility: Volatility,
    pub ret: Box<RetFn>,
    pub exec: Box<ExecFn>,
    pub simplify: Option<Box<SimplifyFn>>,
    /// The result field holds NULLs whatever its ClickHouse type (see `__scalar_tuple`).
    pub nullable_field: bool,
    /// The kernel reads `Utf8View` arguments itself (Parquet's strings), without a cast.
    pub takes_string_views: bool,
}

impl ScalarDef {
    pub fn new(
        name: &'static str,
        arity: Arity,
        ret: impl Fn(&RetCtx) -> DfResult<ChType> + Send + Sync + 'static,
        exec: impl Fn(&ExecCtx) -> DfResult<ArrayRef> + Send + Sync + 'static,
    ) -> Self {
        ScalarDef {
            name,
            aliases: Vec::new(),
            arity,
            nulls: Nulls::Default,
            volatility: Volatility::Immutable,
            ret: Box::new(ret),
            exec: Box::new(exec),
            simplify: None,
            nullable_field: false,
            takes_string_views: false,
        }
    }
    pub fn takes_string_views(mut self) -> Self {
        self.takes_string_views = true;
        self
    }
    pub fn nullable_field(mut self) -> Self {
        self.nullable_field = true;
        self
    }
    pub fn custom_nulls(mut self) -> Self {
        self.nulls = Nulls::Custom;
        self
    }
    pub fn volatile(mut self) -> Self {
        self.volatility = Volatility::Volatile;
        self
    }
    pub fn stable(mut self) -> Self {
        self.volatility = Volatility::Stable;
        self
    }
    pub fn simplify(mut self, f: impl Fn(Vec<Expr>, &SimplifyContext) -> DfResult<ExprSimplifyResult> + Send + Sync + 'static) -> Self {
        self.simplify = Some(Box::new(f));
        self
    }
    pub fn build(self) -> ScalarUDF {
        ScalarUDF::new_from_impl(ChUdf { signature: Signature::user_defined(self.volatility), def: self })
    }
}

/// The [`ScalarUDFImpl`] behind every Granary scalar function.
pub(crate) struct ChUdf {
    def: ScalarDef,
    signature: Signature,
}

impl fmt::Debug for ChUdf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChUdf({})", self.def.name)
    }
}

// Functions are identified by name: the registry holds one definition per name.
impl PartialEq for ChUdf {
    fn eq(&self, other: &Self) -> bool {
        self.def.name == other.def.name
    }
}
impl Eq for ChUdf {}
impl Hash for ChUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.def.name.hash(state)
    }
}

/// Field metadata key marking a result as `Nullable` even when the field says
/// otherwise. DataFusion folds constant sub-expressions into literals, and a literal's
/// field is non-nullable unless its value is NULL; the metadata survives folding, so
/// `toTypeName(toNullable(1))` and `toUInt8(toNullable(1))` keep ClickHouse's
/// `Nullable` types.
pub const NULLABLE_METADATA_KEY: &str = "granary.nullable";

/// Whether a field holds a ClickHouse `Nullable` type (see [`NULLABLE_METADATA_KEY`]).
pub fn is_nullable_field(field: &Field) -> bool {
    field.is_nullable() || field.metadata().get(NULLABLE_METADATA_KEY).is_some_and(|v| v == "1")
}

/// The ClickHouse type of a result field: [`ChType::from_field`], plus the
/// `Nullable` marker of folded constants.
pub fn ch_type_of_field(field: &Field) -> ChType {
    let t = ChType::from_field(field);
    if !field.is_nullable() && is_nullable_field(field) {
        t.into_nullable()
    } else {
        t
    }
}

/// The Arrow field of a ClickHouse result type, with the `Nullable` marker.
pub(crate) fn result_field(name: &str, t: &ChType) -> Field {
    let field = t.to_arrow_field(name);
    if t.is_nullable() && field.data_type() != &DataType::Null {
        let mut metadata = field.metadata().clone();
        metadata.insert(NULLABLE_METADATA_KEY.to_string(), "1".to_string());
        field.with_metadata(metadata)
    } else {
        field
    }
}

fn any_null_type(fields: &[FieldRef]) -> bool {
    fields.iter().any(|f| f.data_type() == &DataType::Null)
}

impl ChUdf {
    fn compute_return(&self, fields: &[FieldRef], scalars: &[Option<&ScalarValue>]) -> DfResult<FieldRef> {
        let def = &self.def;
        def.arity.check(def.name, fields.len())?;
        match def.nulls {
            Nulls::Custom => {
                let ctx = RetCtx { name: def.name, fields: fields.to_vec(), scalars };
                let t = (def.ret)(&ctx)?;
                let field = result_field(def.name, &t);
                Ok(Arc::new(if def.nullable_field { field.with_nullable(true) } else { field }))
            }
            Nulls::Default => {
                // A NULL literal argument: the result is NULL of type Nullable(Nothing).
                // Constant-parameter arguments (time zones, scales) are never NULL.
                if any_null_type(fields) {
                    return Ok(Arc::new(Field::new(def.name, DataType::Null, true)));
                }
                // An Arrow list, map or struct field may be nullable, but ClickHouse's
                // Array and Map values never are and a Tuple only when its type says
                // `Nullable(Tuple(..))`: only those make a result Nullable.
                let nullable = fields.iter().any(|f| match f.data_type() {
                    DataType::List(_) | DataType::LargeList(_) | DataType::Map(..) => false,
                    DataType::Struct(_) => ch_type_of_field(f).is_nullable(),
                    _ => is_nullable_field(f),
                });
                let stripped = fields.iter().map(|f| Arc::new(strip_nullable(f))).collect();
                let ctx = RetCtx { name: def.name, fields: stripped, scalars };
                let t = (def.ret)(&ctx)?;
                let t = if nullable { t.into_nullable() } else { t };
                Ok(Arc::new(result_field(def.name, &t)))
            }
        }
    }
}

impl ScalarUDFImpl for ChUdf {
    fn name(&self) -> &str {
        self.def.name
    }

    fn aliases(&self) -> &[String] {
        &self.def.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        // No implicit coercion: each function checks its own argument types in
        // `return_field_from_args`, where a ClickHouse error code survives. Kernels read
        // `Utf8`: a view (a Parquet column) is cast to it.
        let plain = granary_types::plain_arguments(arg_types);
        if self.def.takes_string_views {
            return Ok(arg_types.iter().zip(plain).map(|(t, p)| if t == &DataType::Utf8View { t.clone() } else { p }).collect());
        }
        Ok(plain)
    }

    fn return_type(&self, arg_types: &[DataType]) -> DfResult<DataType> {
        let fields: Vec<FieldRef> = arg_types.iter().map(|t| Arc::new(Field::new("", t.clone(), true))).collect();
        let scalars = vec![None; fields.len()];
        Ok(self.compute_return(&fields, &scalars)?.data_type().clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DfResult<FieldRef> {
        if args.arg_fields.iter().any(|f| is_query_literal(f)) {
            let narrowed: Vec<Option<ScalarValue>> = args
                .arg_fields
                .iter()
                .zip(args.scalar_arguments)
                .map(|(f, s)| s.filter(|_| is_query_literal(f)).and_then(|s| narrow(s)))
                .collect();
            let fields: Vec<FieldRef> = args
                .arg_fields
                .iter()
                .zip(&narrowed)
                .map(|(f, n)| match n {
                    Some(n) => Arc::new(Field::new(f.name(), n.data_type(), false)),
                    None => Arc::clone(f),
                })
                .collect();
            let scalars: Vec<Option<&ScalarValue>> =
                args.scalar_arguments.iter().zip(&narrowed).map(|(s, n)| n.as_ref().or(*s)).collect();
            return self.compute_return(&fields, &scalars);
        }
        self.compute_return(args.arg_fields, args.scalar_arguments)
    }

    fn invoke_with_args(&self, mut args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let def = &self.def;
        // Query literals arrive as Int64; the kernel sees ClickHouse's type for them, as
        // the return type did (see `crate::literals`).
        if args.arg_fields.iter().any(|f| is_query_literal(f)) {
            for (i, field) in args.arg_fields.iter_mut().enumerate() {
                if !is_query_literal(field) {
                    continue;
                }
                if let Some(ColumnarValue::Scalar(s)) = args.args.get(i) {
                    if let Some(n) = narrow(s) {
                        *field = Arc::new(Field::new(field.name(), n.data_type(), false));
                        args.args[i] = ColumnarValue::Scalar(n);
                    }
                }
            }
        }
        // Volatile functions (rand, generateUUIDv4) need a value per row even when
        // every argument is a constant.
        let all_scalar = def.volatility != Volatility::Volatile
            && args.args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let len = if all_scalar { 1 } else { args.number_rows };
        let ret = &args.return_field;
        // A result type that cannot be inside Nullable (Array, Map, Tuple): ClickHouse runs
        // the function on the default value where an argument is NULL (`splitByChar(',', x)`
        // is `['']` for a NULL `x`), so the kernel sees defaults there and the result keeps
        // no NULLs. Other results are NULL where an argument is.
        let result_holds_nulls = match ret.data_type() {
            DataType::List(_) | DataType::LargeList(_) | DataType::Map(..) => false,
            DataType::Struct(_) => ch_type_of_field(ret).is_nullable(),
            _ => true,
        };

        if def.nulls == Nulls::Default {
            if ret.data_type() == &DataType::Null {
                return Ok(ColumnarValue::Scalar(ScalarValue::Null));
            }
            let null_scalar = args.args.iter().any(|a| matches!(a, ColumnarValue::Scalar(s) if s.is_null()));
            if null_scalar && result_holds_nulls {
                // A NULL constant argument nulls the whole result.
                let out = new_null_array(ret.data_type(), len);
                return finish(out, all_scalar);
            }
            if !result_holds_nulls {
                for a in args.args.iter_mut() {
                    match a {
                        ColumnarValue::Scalar(s) if s.is_null() => *s = ScalarValue::new_default(&s.data_type())?,
                        ColumnarValue::Array(array) if array.logical_null_count() > 0 => *array = defaults_at_nulls(array)?,
                        _ => {}
                    }
                }
            }
        }

        let ctx = ExecCtx {
            name: def.name,
            args: &args.args,
            fields: &args.arg_fields,
            len,
            ret,
            config: args.config_options.as_ref(),
        };
        let mut out = (def.exec)(&ctx)?;
        if out.len() != len {
            return internal_err!("{} produced {} rows instead of {len}", def.name, out.len());
        }
        if out.data_type() != ret.data_type() {
            // Nested fields differ only in names or metadata (the ClickHouse type of an
            // element, which input columns do not always carry): relabel.
            if !out.data_type().equals_datatype(ret.data_type()) {
                return internal_err!("{} produced {} instead of {}", def.name, out.data_type(), ret.data_type());
            }
            out = datafusion::arrow::compute::cast(&out, ret.data_type())?;
        }
        if def.nulls == Nulls::Default && result_holds_nulls {
            let mut nulls: Option<NullBuffer> = out.logical_nulls();
            for a in args.args.iter() {
                if let ColumnarValue::Array(a) = a {
                    nulls = NullBuffer::union(nulls.as_ref(), a.logical_nulls().as_ref());
                }
            }
            if nulls.as_ref().map(|n| n.null_count()) != out.logical_nulls().map(|n| n.null_count()) {
                out = with_nulls(&out, nulls)?;
            }
        }
        finish(out, all_scalar)
    }

    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> DfResult<ExprSimplifyResult> {
        match &self.def.simplify {
            Some(f) => f(args, info),
            None => Ok(ExprSimplifyResult::Original(args)),
        }
    }

    fn is_strict(&self) -> bool {
        self.def.nulls == Nulls::Default
    }
}

fn finish(out: ArrayRef, all_scalar: bool) -> DfResult<ColumnarValue> {
    if all_scalar {
        // Nested values are wrapped as they are: `try_from_array` rebuilds their fields and
        // drops the element metadata (`Array(Date)`, `Array(Nothing)`) the plan promised.
        use datafusion::arrow::array::AsArray;
        let scalar = match out.data_type() {
            DataType::List(_) if out.len() == 1 => ScalarValue::List(Arc::new(out.as_list::<i32>().clone())),
            DataType::LargeList(_) if out.len() == 1 => ScalarValue::LargeList(Arc::new(out.as_list::<i64>().clone())),
            DataType::Struct(_) if out.len() == 1 => ScalarValue::Struct(Arc::new(out.as_struct().clone())),
            DataType::Map(..) if out.len() == 1 => ScalarValue::Map(Arc::new(out.as_map().clone())),
            _ => ScalarValue::try_from_array(&out, 0)?,
        };
        Ok(ColumnarValue::Scalar(scalar))
    } else {
        Ok(ColumnarValue::Array(out))
    }
}

/// `array` with the type's default value (0, '', []) in place of each NULL.
pub(crate) fn defaults_at_nulls(array: &ArrayRef) -> DfResult<ArrayRef> {
    let valid = datafusion::arrow::compute::is_not_null(array.as_ref())?;
    let default = ScalarValue::new_default(array.data_type())?.to_scalar()?;
    Ok(datafusion::arrow::compute::kernels::zip::zip(&valid, array, &default)?)
}

/// The field without nullability (and without the `Nullable` marker).
pub(crate) fn strip_nullable(f: &Field) -> Field {
    let mut field = f.clone().with_nullable(false);
    if field.metadata().contains_key(NULLABLE_METADATA_KEY) {
        let mut metadata = field.metadata().clone();
        metadata.remove(NULLABLE_METADATA_KEY);
        field = field.with_metadata(metadata);
    }
    field
}

/// The same array with a different validity bitmap.
pub(crate) fn with_nulls(array: &ArrayRef, nulls: Option<NullBuffer>) -> DfResult<ArrayRef> {
    let data = array.to_data().into_builder().nulls(nulls).build()?;
    Ok(datafusion::arrow::array::make_array(data))
}

/// A registered scalar function by name, for functions built from others (tuple
/// arithmetic runs `plus` per element, `tumble` runs `toStartOfInterval`).
pub(crate) fn registered_scalar(name: &str) -> DfResult<Arc<ScalarUDF>> {
    crate::registered()
        .0
        .iter()
        .find(|f| f.name() == name)
        .cloned()
        .ok_or_else(|| granary_common::Error::new(granary_common::ErrorCode::UNKNOWN_FUNCTION, format!("Unknown function {name}")).into_datafusion())
}

/// The result field of `udf` for these argument fields (and constant values).
pub(crate) fn call_return_field(udf: &ScalarUDF, fields: &[FieldRef], scalars: &[Option<&ScalarValue>]) -> DfResult<FieldRef> {
    udf.return_field_from_args(ReturnFieldArgs { arg_fields: fields, scalar_arguments: scalars })
}

/// Runs `udf` on whole columns (or constants) of `rows` rows; gives the result and its field.
pub(crate) fn call_scalar(
    udf: &ScalarUDF,
    args: Vec<ColumnarValue>,
    fields: Vec<FieldRef>,
    rows: usize,
    config: &ConfigOptions,
) -> DfResult<(ArrayRef, FieldRef)> {
    let scalars: Vec<Option<&ScalarValue>> = args
        .iter()
        .map(|a| match a {
            ColumnarValue::Scalar(s) => Some(s),
            ColumnarValue::Array(_) => None,
        })
        .collect();
    let return_field = call_return_field(udf, &fields, &scalars)?;
    let out = udf.invoke_with_args(ScalarFunctionArgs {
        args,
        arg_fields: fields,
        number_rows: rows,
        return_field: Arc::clone(&return_field),
        config_options: Arc::new(config.clone()),
    })?;
    Ok((out.to_array(rows)?, return_field))
}
