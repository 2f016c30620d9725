//! `dictGet*`, `dictHas`, `joinGet`, `joinGetOrNull`: key lookups as vectorized UDFs.
//!
//! The dictionary or table name and the attribute name are constant strings; the result
//! type is the attribute's, found in the catalog while planning. Names arrive qualified
//! (`db.name`): the query layer qualifies unqualified names with the current database
//! before planning (see granary-query's `lookups` module), because a UDF does not know it.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt8Array};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{Catalog, Table};
use granary_types::ChType;

use crate::definition::Layout;
use crate::dictionary::{Dictionary, DictionaryRegistry, Missing};

type DfResult<T> = std::result::Result<T, DataFusionError>;

/// What the lookup functions need: the catalog (names to tables) and the dictionaries.
pub struct LookupEnv {
    pub catalog: Arc<Catalog>,
    pub registry: Arc<DictionaryRegistry>,
}

impl LookupEnv {
    /// The table (dictionary or Join table) a lookup names, as the query layer qualified
    /// it: `db.name`, or a bare name for a dictionary of the configuration files. A
    /// configuration dictionary whose definition failed gives that error.
    fn table(&self, name: &str) -> Result<Option<Arc<Table>>> {
        match name.split_once('.') {
            Some((database, object)) => Ok(self.catalog.table(database, object).ok()),
            None => match self.registry.config_dictionary(name) {
                Some(entry) => match entry.error() {
                    Some(e) => Err(e),
                    None => Ok(entry.table().cloned()),
                },
                None => Ok(self.catalog.table("default", name).ok()),
            },
        }
    }

    /// The dictionary a function names, with its table.
    fn dictionary(&self, name: &str) -> Result<(Arc<Table>, Arc<Dictionary>)> {
        let not_found = || Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary (`{name}`) not found"));
        let table = self.table(name)?.filter(|t| t.meta.dictionary.is_some()).ok_or_else(not_found)?;
        let dictionary = self.registry.get(&table.meta.uuid).ok_or_else(not_found)?;
        Ok((table, dictionary))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `dictGet[Type]`, `dictGet[Type]OrDefault`, `dictGetOrNull`.
    DictGet { missing: MissingKind },
    DictHas,
    /// `joinGet`, `joinGetOrNull`.
    JoinGet { or_null: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MissingKind {
    Default,
    OrDefault,
    OrNull,
}

/// Names of the typed variants: `dictGetString`, `dictGetUInt64OrDefault`, ...
const TYPED: [&str; 15] =
    ["UInt8", "UInt16", "UInt32", "UInt64", "Int8", "Int16", "Int32", "Int64", "Float32", "Float64", "Date", "DateTime", "UUID", "String", "IPv4"];

/// Every lookup function, bound to `env`.
pub fn lookup_functions(env: Arc<LookupEnv>) -> Vec<ScalarUDF> {
    let mut specs: Vec<(String, Kind, Option<&'static str>)> = vec![
        ("dictGet".into(), Kind::DictGet { missing: MissingKind::Default }, None),
        ("dictGetOrDefault".into(), Kind::DictGet { missing: MissingKind::OrDefault }, None),
        ("dictGetOrNull".into(), Kind::DictGet { missing: MissingKind::OrNull }, None),
        ("dictHas".into(), Kind::DictHas, None),
        ("joinGet".into(), Kind::JoinGet { or_null: false }, None),
        ("joinGetOrNull".into(), Kind::JoinGet { or_null: true }, None),
    ];
    for t in TYPED {
        specs.push((format!("dictGet{t}"), Kind::DictGet { missing: MissingKind::Default }, Some(t)));
        specs.push((format!("dictGet{t}OrDefault"), Kind::DictGet { missing: MissingKind::OrDefault }, Some(t)));
    }
    let mut functions: Vec<ScalarUDF> = specs
        .into_iter()
        .map(|(name, kind, typed)| {
            ScalarUDF::new_from_impl(LookupUdf { name, kind, typed, signature: Signature::user_defined(Volatility::Stable), env: env.clone() })
        })
        .collect();
    for (name, walk) in [
        ("dictGetHierarchy", Walk::Ancestors),
        ("dictIsIn", Walk::IsIn),
        ("dictGetChildren", Walk::Children),
        ("dictGetDescendants", Walk::Descendants),
    ] {
        functions.push(ScalarUDF::new_from_impl(HierarchyUdf { name, walk, signature: Signature::user_defined(Volatility::Stable), env: env.clone() }));
    }
    functions
}

/// Names of functions whose first argument names a dictionary / Join table.
pub fn is_lookup_function(name: &str) -> bool {
    name.starts_with("dictGet") || name == "dictHas" || name == "dictIsIn" || name == "joinGet" || name == "joinGetOrNull"
}

struct LookupUdf {
    name: String,
    kind: Kind,
    /// The `<Type>` of `dictGet<Type>`: the attribute must have exactly this type.
    typed: Option<&'static str>,
    signature: Signature,
    env: Arc<LookupEnv>,
}

impl std::fmt::Debug for LookupUdf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LookupUdf").field("name", &self.name).finish()
    }
}

impl PartialEq for LookupUdf {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for LookupUdf {}
impl Hash for LookupUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

/// A resolved call: the table and, for attribute lookups, the attribute's field.
struct Target {
    table: Arc<Table>,
    attribute: Option<FieldRef>,
}

impl LookupUdf {
    fn is_join(&self) -> bool {
        matches!(self.kind, Kind::JoinGet { .. })
    }

    fn what(&self) -> &'static str {
        if self.is_join() {
            "Join table"
        } else {
            "Dictionary"
        }
    }

    fn resolve(&self, name: &str, attribute: Option<&str>) -> Result<Target> {
        let not_found = || Error::new(ErrorCode::BAD_ARGUMENTS, format!("{} (`{name}`) not found", self.what()));
        // joinGet names a table, and a missing one is an unknown table as in ClickHouse.
        let missing = || match self.is_join() {
            true if name.contains('.') => Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table {name} does not exist")),
            true => Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table default.{name} does not exist")),
            false => not_found(),
        };
        let table = self.env.table(name)?.ok_or_else(missing)?;
        let is_dictionary = table.meta.dictionary.is_some();
        let engine_ok = if self.is_join() { table.engine.engine_name() == "Join" } else { is_dictionary };
        if !engine_ok {
            return Err(if self.is_join() {
                Error::new(ErrorCode::INCOMPATIBLE_TYPE_OF_JOIN, format!("Table {name} should have engine StorageJoin"))
            } else {
                not_found()
            });
        }
        let lookup = table.engine.key_lookup().ok_or_else(not_found)?;
        let attribute = match attribute {
            None => None,
            Some(a) => Some(lookup.value_field(a).ok_or_else(|| {
                if self.is_join() {
                    Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no column {a} in table {name}"))
                } else {
                    Error::new(ErrorCode::BAD_ARGUMENTS, format!("No such attribute '{a}'"))
                }
            })?),
        };
        Ok(Target { table, attribute })
    }

    /// (object name, attribute name, index of the first key argument).
    fn constant_names(&self, scalars: &[Option<&ScalarValue>]) -> Result<(String, Option<String>, usize)> {
        let text = |i: usize, what: &str| -> Result<String> {
            match scalars.get(i).copied().flatten() {
                Some(ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s))) => Ok(s.clone()),
                _ => Err(Error::new(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type of argument {} ({what}) of function {}: it must be a constant string", i + 1, self.name),
                )),
            }
        };
        let name = text(0, "dictionary name")?;
        match self.kind {
            Kind::DictHas => Ok((name, None, 1)),
            _ => Ok((name, Some(text(1, "attribute name")?), 2)),
        }
    }

    /// Arguments a call takes: a range dictionary's lookups add the point in the range.
    fn arity(&self, range: bool) -> usize {
        let base = match self.kind {
            Kind::DictGet { missing: MissingKind::OrDefault } => 4,
            Kind::DictGet { .. } => 3,
            Kind::DictHas => 2,
            Kind::JoinGet { .. } => 3,
        };
        base + usize::from(range)
    }

    /// Checked before the dictionary is known (either arity may be right) and after.
    fn check_arity(&self, n: usize, range: Option<bool>) -> Result<()> {
        let ok = match (self.kind, range) {
            (Kind::JoinGet { .. }, _) => n >= 3,
            (_, Some(range)) => n == self.arity(range),
            (_, None) => n == self.arity(false) || n == self.arity(true),
        };
        if ok {
            return Ok(());
        }
        let expected = match range {
            Some(range) => format!(" should be {}", self.arity(range)),
            None => String::new(),
        };
        Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Number of arguments for function {} doesn't match: passed {n}{expected}", self.name)))
    }

    fn return_field(&self, arg_fields: &[FieldRef], scalars: &[Option<&ScalarValue>]) -> Result<FieldRef> {
        self.check_arity(arg_fields.len(), None)?;
        let (name, attribute, _) = self.constant_names(scalars)?;
        let target = self.resolve(&name, attribute.as_deref())?;
        if !self.is_join() {
            self.check_arity(arg_fields.len(), Some(is_range_dictionary(&target.table)))?;
        }
        let Some(field) = target.attribute else {
            return Ok(Arc::new(ChType::UInt8.to_arrow_field(&self.name)));
        };
        let ch_type = ChType::from_field(&field);
        if let Some(expected) = self.typed {
            if ch_type.strip_nullable().to_string() != expected {
                return Err(Error::new(
                    ErrorCode::TYPE_MISMATCH,
                    format!("Function {} dictionary attribute has different type {} expected {expected}", self.name, ch_type),
                ));
            }
        }
        let or_null = matches!(self.kind, Kind::DictGet { missing: MissingKind::OrNull } | Kind::JoinGet { or_null: true });
        let ch_type = if or_null { ch_type.into_nullable() } else { ch_type };
        Ok(Arc::new(result_field(&self.name, &ch_type)))
    }

    fn invoke(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalars: Vec<Option<ScalarValue>> =
            args.args.iter().map(|a| if let ColumnarValue::Scalar(s) = a { Some(s.clone()) } else { None }).collect();
        let scalar_refs: Vec<Option<&ScalarValue>> = scalars.iter().map(Option::as_ref).collect();
        let (name, attribute, first_key) = self.constant_names(&scalar_refs)?;
        let target = self.resolve(&name, attribute.as_deref())?;
        let all_scalar = args.args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = if all_scalar { 1 } else { args.number_rows };
        let lookup = target.table.engine.key_lookup().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "lookup vanished"))?;
        let key_fields = lookup.key_fields();
        let range = !self.is_join() && is_range_dictionary(&target.table);
        if !self.is_join() {
            self.check_arity(args.args.len(), Some(range))?;
        }
        let or_default = usize::from(matches!(self.kind, Kind::DictGet { missing: MissingKind::OrDefault }));
        let key_end = args.args.len() - or_default - usize::from(range);
        let key_args: Vec<ArrayRef> = args.args[first_key..key_end].iter().map(|a| a.to_array(rows)).collect::<DfResult<_>>()?;
        let points = if range { Some(args.args[key_end].to_array(rows)?) } else { None };

        let (values, found) = if let Some(uuid) = target.table.meta.dictionary.as_ref().map(|_| &target.table.meta.uuid) {
            let dictionary = self.env.registry.get(uuid).ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary (`{name}`) not found")))?;
            let loaded = dictionary.current().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("Dictionary (`{name}`) is not loaded")))?;
            dictionary.query_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let found_rows = if dictionary.definition.layout == Layout::IpTrie {
                // Addresses are looked up as given (IPv4 or IPv6 forms), not cast to the
                // key's String type.
                let (addresses, fields) = unwrap_single_tuple(key_args, &args.arg_fields[first_key..key_end]);
                dictionary.rows_of_arguments(&loaded, &addresses, Some(&fields), points.as_ref())?
            } else {
                let keys = self.convert_keys(key_args, &key_fields)?;
                dictionary.rows(&loaded, &keys, points.as_ref())?
            };
            match (&self.kind, &attribute) {
                (Kind::DictHas, _) => {
                    let found: BooleanArray = found_rows.iter().map(|r| Some(r.is_some())).collect();
                    (Arc::new(found.clone()) as ArrayRef, found)
                }
                (Kind::DictGet { missing }, Some(attribute)) => {
                    let index = dictionary.definition.attribute_index(attribute).ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("No such attribute '{attribute}'")))?;
                    let field = dictionary.definition.schema.field(index).clone();
                    match missing {
                        MissingKind::Default => dictionary.get(&loaded, &found_rows, index, Missing::Default)?,
                        MissingKind::OrNull => dictionary.get(&loaded, &found_rows, index, Missing::Null)?,
                        MissingKind::OrDefault => {
                            let defaults = args.args[args.args.len() - 1].to_array(rows)?;
                            let defaults = convert(&defaults, field.data_type(), "default value")?;
                            dictionary.get(&loaded, &found_rows, index, Missing::Values(&defaults))?
                        }
                    }
                }
                _ => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "dictionary lookup without attribute")),
            }
        } else {
            let keys = self.convert_keys(key_args, &key_fields)?;
            let attribute = attribute.as_deref().unwrap_or_default();
            let (values, found) = lookup.lookup(&keys, attribute)?;
            if matches!(self.kind, Kind::JoinGet { or_null: false }) {
                // ClickHouse's joinGet gives the type's default for a missing key.
                let default = ScalarValue::new_default(values.data_type())?.to_scalar()?;
                (arrow::compute::kernels::zip::zip(&found, &values, &default)?, found)
            } else {
                (values, found)
            }
        };
        let values = if matches!(self.kind, Kind::DictHas) {
            let found: UInt8Array = found.iter().map(|f| Some(u8::from(f == Some(true)))).collect();
            Arc::new(found) as ArrayRef
        } else {
            values
        };
        let values = if values.data_type() != args.return_field.data_type() { convert(&values, args.return_field.data_type(), "result")? } else { values };
        if all_scalar {
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(values.as_ref(), 0)?));
        }
        Ok(ColumnarValue::Array(values))
    }

    /// Converts the key arguments to the key types: a dictionary's simple key from any
    /// integer or numeric string (erroring on values that do not fit, as ClickHouse does),
    /// a composite key from a tuple or from separate arguments; `joinGet` keys must match
    /// exactly.
    fn convert_keys(&self, mut args: Vec<ArrayRef>, key_fields: &[FieldRef]) -> Result<Vec<ArrayRef>> {
        if args.len() == 1 && key_fields.len() > 1 {
            if let Some(tuple) = args[0].as_struct_opt() {
                args = tuple.columns().to_vec();
            }
        } else if args.len() == 1 && key_fields.len() == 1 {
            if let Some(tuple) = args[0].as_struct_opt() {
                if tuple.num_columns() == 1 {
                    args = tuple.columns().to_vec();
                }
            }
        }
        if args.len() != key_fields.len() {
            return Err(Error::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Function {}: the key has {} columns, but {} were given", self.name, key_fields.len(), args.len()),
            ));
        }
        args.iter()
            .zip(key_fields)
            .enumerate()
            .map(|(i, (arg, field))| {
                if self.is_join() && !same_type(arg.data_type(), field.data_type()) {
                    return Err(Error::new(
                        ErrorCode::TYPE_MISMATCH,
                        format!(
                            "Type mismatch in joinGet key {i}: found type {}, while the needed type is {}",
                            ChType::from_arrow(arg.data_type(), false),
                            ChType::from_field(field)
                        ),
                    ));
                }
                convert(arg, field.data_type(), "key")
            })
            .collect()
    }
}

/// The field of a result of type `t`, marked `Nullable` in its metadata so that the type
/// survives DataFusion folding a constant call into a (non-nullable) literal.
fn result_field(name: &str, t: &ChType) -> arrow::datatypes::Field {
    let field = t.to_arrow_field(name);
    if t.is_nullable() {
        let mut metadata = field.metadata().clone();
        metadata.insert(granary_types::NULLABLE_METADATA_KEY.to_string(), "1".to_string());
        field.with_metadata(metadata)
    } else {
        field
    }
}

/// A single-element tuple argument as its element (ClickHouse accepts `tuple(ip)` keys).
fn unwrap_single_tuple(args: Vec<ArrayRef>, fields: &[FieldRef]) -> (Vec<ArrayRef>, Vec<FieldRef>) {
    if let ([arg], [field]) = (args.as_slice(), fields) {
        if let (Some(tuple), DataType::Struct(members)) = (arg.as_struct_opt(), field.data_type()) {
            if tuple.num_columns() == 1 {
                return (tuple.columns().to_vec(), members.iter().cloned().collect());
            }
        }
    }
    (args, fields.to_vec())
}

fn is_range_dictionary(table: &Table) -> bool {
    table.meta.dictionary.as_ref().is_some_and(|d| d.range.is_some())
}

fn same_type(a: &DataType, b: &DataType) -> bool {
    a == b || matches!((a, b), (DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8, DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8))
}

/// Casts without silently wrapping: a value that does not fit is an error.
fn convert(array: &ArrayRef, to: &DataType, what: &str) -> Result<ArrayRef> {
    if array.data_type() == to {
        return Ok(array.clone());
    }
    let options = CastOptions { safe: false, ..Default::default() };
    cast_with_options(array, to, &options).map_err(|e| {
        Error::new(
            ErrorCode::CANNOT_CONVERT_TYPE,
            format!("Value in column {} cannot be safely converted into type {} ({what}): {e}", ChType::from_arrow(array.data_type(), false), ChType::from_arrow(to, false)),
        )
    })
}

impl ScalarUDFImpl for LookupUdf {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        Ok(granary_types::plain_arguments(arg_types))
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DfResult<DataType> {
        Err(DataFusionError::Internal(format!("{}: return type comes from return_field_from_args", self.name)))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DfResult<FieldRef> {
        self.return_field(args.arg_fields, args.scalar_arguments).map_err(Error::into_datafusion)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        self.invoke(args).map_err(Error::into_datafusion)
    }
}

/// `dictionary('name')`: a dictionary's rows as a table (like `SELECT * FROM name`).
#[derive(Debug)]
pub struct DictionaryTableFunction {
    pub catalog: Arc<Catalog>,
    pub registry: Arc<DictionaryRegistry>,
}

impl datafusion::catalog::TableFunctionImpl for DictionaryTableFunction {
    fn call_with_args(&self, args: datafusion::catalog::TableFunctionArgs) -> DfResult<Arc<dyn datafusion::catalog::TableProvider>> {
        let name = match args.exprs() {
            [datafusion::logical_expr::Expr::Literal(ScalarValue::Utf8(Some(name)) | ScalarValue::Utf8View(Some(name)), _)] => name.clone(),
            _ => {
                return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Table function 'dictionary' requires one argument: the dictionary name").into())
            }
        };
        if !name.contains('.') {
            if let Some(entry) = self.registry.config_dictionary(&name) {
                if let Some(e) = entry.error() {
                    return Err(e.into());
                }
                if let Some(table) = entry.table() {
                    return Ok(Arc::new(granary_storage::EngineTableProvider::new(table.clone())));
                }
            }
        }
        let current = args.session().config().options().catalog.default_schema.clone();
        let (database, object) = name.split_once('.').unwrap_or((current.as_str(), name.as_str()));
        let table = self
            .catalog
            .table(database, object)
            .ok()
            .filter(|t| t.meta.dictionary.is_some())
            .ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary ({}) not found", quote_name(database, object))))?;
        Ok(Arc::new(granary_storage::EngineTableProvider::new(table)))
    }
}

fn quote_name(database: &str, name: &str) -> String {
    format!("`{database}.{name}`")
}

/// Which walk of a hierarchy a function makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Walk {
    /// `dictGetHierarchy(dict, key)`: the key and its ancestors.
    Ancestors,
    /// `dictIsIn(dict, key, ancestor)`.
    IsIn,
    /// `dictGetChildren(dict, key)`.
    Children,
    /// `dictGetDescendants(dict, key[, level])`.
    Descendants,
}

/// The hierarchy functions of dictionaries with a `HIERARCHICAL` attribute.
struct HierarchyUdf {
    name: &'static str,
    walk: Walk,
    signature: Signature,
    env: Arc<LookupEnv>,
}

impl std::fmt::Debug for HierarchyUdf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HierarchyUdf").field("name", &self.name).finish()
    }
}

impl PartialEq for HierarchyUdf {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for HierarchyUdf {}
impl Hash for HierarchyUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl HierarchyUdf {
    fn check_arity(&self, n: usize) -> Result<()> {
        let expected = match self.walk {
            Walk::Ancestors | Walk::Children => 2,
            Walk::IsIn => 3,
            Walk::Descendants if n == 2 || n == 3 => return Ok(()),
            Walk::Descendants => {
                return Err(Error::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!("Illegal arguments size of function {}. Expects 2 or 3 arguments size. Actual size {n}", self.name),
                ))
            }
        };
        if n == expected {
            return Ok(());
        }
        Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Number of arguments for function {} doesn't match: passed {n}, should be {expected}", self.name)))
    }

    /// The dictionary named by the first argument, checked to support this walk.
    fn dictionary(&self, name: Option<&ScalarValue>) -> Result<(Arc<Table>, Arc<Dictionary>)> {
        let name = match name {
            Some(ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s))) => s,
            _ => {
                return Err(Error::new(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type of argument 1 (dictionary name) of function {}: it must be a constant string", self.name),
                ))
            }
        };
        let (table, dictionary) = self.env.dictionary(name)?;
        let definition = &dictionary.definition;
        let uuid = if definition.database.is_empty() { crate::config_files::CONFIG_DICTIONARY_UUID } else { table.meta.uuid.as_str() };
        let described = format!("{} ({uuid})", definition.full_name());
        if definition.hierarchical.is_none() {
            return Err(Error::new(ErrorCode::UNSUPPORTED_METHOD, format!("Dictionary {described} does not support hierarchy")));
        }
        if definition.layout == Layout::RangeHashed {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Hierarchical attributes not supported by {described} dictionary")));
        }
        if matches!(self.walk, Walk::Children | Walk::Descendants) && definition.key_order == crate::definition::KeyOrder::None {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Method getHierarchicalIndex is not supported for {described} dictionary")));
        }
        Ok((table, dictionary))
    }

    /// The `level` of `dictGetDescendants`: a constant unsigned integer (0: every level).
    /// While planning, a constant expression (`toUInt8(1)`) has no value yet
    /// (`argument` None): its type is checked, its value when the function runs.
    fn level(&self, argument: Option<&ScalarValue>, field: Option<&FieldRef>, planning: bool) -> Result<usize> {
        if self.walk == Walk::Children {
            return Ok(1);
        }
        let Some(field) = field else { return Ok(0) };
        let unsigned_type = matches!(field.data_type(), DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64);
        if planning && argument.is_none() && unsigned_type {
            return Ok(0);
        }
        let value = match argument {
            Some(ScalarValue::UInt8(Some(v))) => Some(u64::from(*v)),
            Some(ScalarValue::UInt16(Some(v))) => Some(u64::from(*v)),
            Some(ScalarValue::UInt32(Some(v))) => Some(u64::from(*v)),
            Some(ScalarValue::UInt64(Some(v))) => Some(*v),
            // An integer literal, before it is given its ClickHouse type (unsigned when
            // it is not negative).
            Some(ScalarValue::Int64(Some(v))) => u64::try_from(*v).ok(),
            _ => None,
        };
        let Some(value) = value else {
            let actual = if field.data_type().is_floating() || matches!(field.data_type(), DataType::Utf8 | DataType::Utf8View) {
                format!(". Actual type {}", ChType::from_field(field))
            } else {
                String::new()
            };
            return Err(Error::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Illegal type of third argument of function {}. Expected const unsigned integer{actual}", self.name),
            ));
        };
        Ok(usize::try_from(value).unwrap_or(usize::MAX))
    }

    fn return_field(&self, arg_fields: &[FieldRef], scalars: &[Option<&ScalarValue>]) -> Result<FieldRef> {
        self.check_arity(arg_fields.len())?;
        self.dictionary(scalars[0])?;
        if self.walk == Walk::Descendants {
            self.level(scalars.get(2).copied().flatten(), arg_fields.get(2), true)?;
        }
        let t = match self.walk {
            Walk::IsIn => ChType::UInt8,
            _ => ChType::Array(Box::new(ChType::UInt64)),
        };
        Ok(Arc::new(t.to_arrow_field(self.name)))
    }

    fn invoke(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        self.check_arity(args.args.len())?;
        let scalar = |i: usize| match args.args.get(i) {
            Some(ColumnarValue::Scalar(s)) => Some(s.clone()),
            _ => None,
        };
        let (_, dictionary) = self.dictionary(scalar(0).as_ref())?;
        let all_scalar = args.args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = if all_scalar { 1 } else { args.number_rows };
        let loaded = dictionary.current().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("Dictionary {} is not loaded", dictionary.definition.name)))?;
        let hierarchy = loaded.hierarchy.as_ref().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "a hierarchical dictionary was loaded without its hierarchy"))?;
        dictionary.query_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let keys_of = |i: usize| -> Result<Vec<u64>> {
            let keys = convert(&args.args[i].to_array(rows)?, &DataType::UInt64, "key")?;
            // A NULL key reads as the default key, 0, as ClickHouse reads the nested
            // values of a Nullable column.
            Ok(keys.as_primitive::<arrow::datatypes::UInt64Type>().iter().map(|k| k.unwrap_or(0)).collect())
        };
        let keys = keys_of(1)?;
        let result: ArrayRef = match self.walk {
            Walk::IsIn => {
                let flags = hierarchy.is_in(&keys, &keys_of(2)?);
                Arc::new(flags.into_iter().map(|f| Some(u8::from(f))).collect::<UInt8Array>())
            }
            walk => {
                let arrays = match walk {
                    Walk::Ancestors => hierarchy.hierarchy(&keys),
                    _ => hierarchy.descendants(&keys, self.level(scalar(2).as_ref(), args.arg_fields.get(2), false)?),
                };
                let DataType::List(item) = args.return_field.data_type() else {
                    return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("{} returns an array", self.name)));
                };
                let offsets = std::iter::once(0).chain(arrays.offsets.iter().map(|&o| o as i32));
                let offsets = arrow::buffer::OffsetBuffer::new(offsets.collect::<Vec<i32>>().into());
                let values = Arc::new(arrow::array::UInt64Array::from(arrays.elements)) as ArrayRef;
                Arc::new(arrow::array::ListArray::try_new(item.clone(), offsets, values, None)?)
            }
        };
        if all_scalar {
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(result.as_ref(), 0)?));
        }
        Ok(ColumnarValue::Array(result))
    }
}

impl ScalarUDFImpl for HierarchyUdf {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        Ok(granary_types::plain_arguments(arg_types))
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DfResult<DataType> {
        Err(DataFusionError::Internal(format!("{}: return type comes from return_field_from_args", self.name)))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DfResult<FieldRef> {
        self.return_field(args.arg_fields, args.scalar_arguments).map_err(Error::into_datafusion)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        self.invoke(args).map_err(Error::into_datafusion)
    }
}
