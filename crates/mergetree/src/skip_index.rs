//! Data-skipping indexes (`INDEX name expr TYPE t GRANULARITY g`), as ClickHouse builds
//! and uses them.
//!
//! Every part written (INSERT, merge, mutation, column ALTER) gets one file per index,
//! `skp_idx_<name>.idx`, summarizing the index expression's values over each *index
//! granule* of `g` consecutive primary-key granules. A read, after partition and key
//! pruning, drops the granules of every index granule the query's condition cannot
//! match. A part without the file (written before `ADD INDEX`, or cleared) is read
//! whole, as in ClickHouse.
//!
//! Types and what they answer:
//! * `minmax`: the range of values; comparisons, `IN`, ranges, through DataFusion's
//!   `PruningPredicate` over a one-column schema standing for the index expression;
//! * `set(max_rows)`: the distinct values (none kept past `max_rows`, 0 = unlimited);
//!   the condition is evaluated over them, so anything deterministic of the expression;
//! * `bloom_filter([p])`: values hashed; `=`, `IN`, `has()` (array elements are indexed);
//! * `tokenbf_v1(bytes, hashes, seed)`: tokens (runs of ASCII alphanumerics and non-ASCII
//!   bytes); `=`, `LIKE` (tokens bounded on both sides), `hasToken`, `match` of a plain word;
//! * `ngrambf_v1(n, bytes, hashes, seed)`: n-grams of code points; `=`, `LIKE`, `match`
//!   of a plain string, `multiSearchAny`.
//!
//! Conservative by construction: a condition is walked through AND and OR only; anything
//! else (NOT, functions not listed, other columns, literals that do not convert exactly
//! to the index's type, dictionary-encoded expressions for minmax) keeps the granule.
//!
//! File layout (Granary's own; ClickHouse's `.idx` + `.cmrk` is not needed since an
//! index granule is found by its number): the arrays of `part::encode_arrays`, first a
//! `String` array of three values naming what was indexed (type with arguments,
//! expression, granularity; a file for an index dropped and re-added differently under
//! the same name is ignored), then per type: minmax `[min, max]` (one value per index
//! granule, NULL when it has no non-NULL value); set `[values, ends (UInt64), overflow
//! (Boolean)]`; bloom filters `[bytes (UInt8), ends (UInt64)]`, the filters of all index
//! granules one after the other (`bloom_filter`'s each start with its hash count).

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, StringArray, UInt64Array, UInt8Array};
use arrow::compute::{cast, concat};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use arrow::row::{RowConverter, SortField};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Column as LogicalColumn, ScalarValue};
use datafusion::logical_expr::{Operator, Volatility};
use datafusion::physical_expr::expressions::{BinaryExpr, CastExpr, Column, InListExpr, LikeExpr, Literal};
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};
use datafusion::physical_optimizer::pruning::{PruningPredicate, PruningPredicateBuilder, PruningStatistics};
use granary_common::{Error, ErrorCode, Result};
use granary_storage::fs::escape_for_file_name;
use granary_storage::{IndexMeta, TableMeta};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::keys::TableKeys;
use crate::part::encode_arrays;

/// Index files are `skp_idx_<name>.idx`, as ClickHouse names its.
pub const FILE_PREFIX: &str = "skp_idx_";

pub fn file_name(index: &str) -> String {
    format!("{FILE_PREFIX}{}.idx", escape_for_file_name(index))
}

/// The name of the column standing for the index expression in rewritten conditions.
const VALUE_COLUMN: &str = "__granary_skip_index_value";

/// ClickHouse's default false-positive rate of `bloom_filter`.
const DEFAULT_FALSE_POSITIVE: f64 = 0.025;

/// The second hash of a value derives from the first seed xor this.
const SECOND_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

#[derive(Debug, Clone, PartialEq)]
pub enum IndexKind {
    MinMax,
    Set { max_rows: u64 },
    BloomFilter { false_positive: f64 },
    TokenBf { size_bytes: u64, hashes: u64, seed: u64 },
    NgramBf { n: u64, size_bytes: u64, hashes: u64, seed: u64 },
}

impl IndexKind {
    /// Parses `type(args)` with ClickHouse's checks (codes and messages), without the
    /// "When validating" suffix.
    pub fn parse(type_full: &str) -> Result<IndexKind> {
        let text = type_full.trim();
        let (name, args) = match text.find('(') {
            Some(open) => {
                let inner = text[open + 1..].trim_end().strip_suffix(')').ok_or_else(|| Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse index type {text}")))?;
                let args = if inner.trim().is_empty() { Vec::new() } else { crate::keys::split_tuple(&format!("({inner})"))? };
                (text[..open].trim(), args)
            }
            None => (text, Vec::new()),
        };
        let unsigned = |a: &String| a.trim().parse::<u64>().ok();
        match name {
            "minmax" => Ok(IndexKind::MinMax),
            "set" => {
                if args.len() != 1 {
                    return Err(Error::new(ErrorCode::INCORRECT_QUERY, "Set index must have exactly one argument"));
                }
                let max_rows = unsigned(&args[0]).ok_or_else(|| Error::new(ErrorCode::INCORRECT_QUERY, "Set index argument must be positive integer"))?;
                Ok(IndexKind::Set { max_rows })
            }
            "bloom_filter" => {
                if args.len() > 1 {
                    return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "BloomFilter index cannot have more than one parameter"));
                }
                let false_positive = match args.first() {
                    Some(a) => a.trim().parse::<f64>().ok().filter(|p| *p > 0.0 && *p < 1.0).ok_or_else(|| {
                        Error::new(ErrorCode::BAD_ARGUMENTS, "The BloomFilter false positive must be a double number between 0 and 1")
                    })?,
                    None => DEFAULT_FALSE_POSITIVE,
                };
                Ok(IndexKind::BloomFilter { false_positive })
            }
            "tokenbf_v1" | "ngrambf_v1" => {
                let (short, expected) = if name == "tokenbf_v1" { ("tokenbf", 3) } else { ("ngrambf", 4) };
                if args.len() != expected {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("`{short}` index must have exactly {expected} arguments")));
                }
                let values =
                    args.iter().map(unsigned).collect::<Option<Vec<u64>>>().ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, "All parameters to *bf_v1 index must be unsigned integers"))?;
                let (n, rest) = if expected == 4 { (Some(values[0]), &values[1..]) } else { (None, &values[..]) };
                if n == Some(0) {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "ngram length must be at least 1"));
                }
                let (size_bytes, hashes, seed) = (rest[0], rest[1], rest[2]);
                if size_bytes == 0 {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "The size of bloom filter cannot be zero"));
                }
                if hashes == 0 {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "The number of hash functions for bloom filter cannot be zero"));
                }
                Ok(match n {
                    Some(n) => IndexKind::NgramBf { n, size_bytes, hashes, seed },
                    None => IndexKind::TokenBf { size_bytes, hashes, seed },
                })
            }
            "hypothesis" | "text" | "vector_similarity" | "sparse_grams" => Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Index type '{name}' is not supported"))),
            _ => Err(Error::new(
                ErrorCode::INCORRECT_QUERY,
                format!("Unknown Index type '{name}'. Available index types: hypothesis, text, vector_similarity, bloom_filter, sparse_grams, tokenbf_v1, ngrambf_v1, set, minmax"),
            )),
        }
    }

    /// The type without its arguments, as `EXPLAIN` describes it.
    pub fn name(&self) -> &'static str {
        match self {
            IndexKind::MinMax => "minmax",
            IndexKind::Set { .. } => "set",
            IndexKind::BloomFilter { .. } => "bloom_filter",
            IndexKind::TokenBf { .. } => "tokenbf_v1",
            IndexKind::NgramBf { .. } => "ngrambf_v1",
        }
    }

    fn is_bloom(&self) -> bool {
        matches!(self, IndexKind::BloomFilter { .. } | IndexKind::TokenBf { .. } | IndexKind::NgramBf { .. })
    }
}

/// One index of a table, planned over its columns.
#[derive(Debug, Clone)]
pub struct SkipIndex {
    pub meta: IndexMeta,
    pub kind: IndexKind,
    pub granularity: usize,
    expr: Arc<dyn PhysicalExpr>,
    /// `expr` as [`canonical`] writes it: how it is recognized inside a query's condition.
    expr_text: String,
    /// The table's columns, which `expr` reads.
    schema: SchemaRef,
    /// The expression's type.
    expr_type: DataType,
    /// What is indexed: the expression's values without dictionary encoding; for the
    /// bloom filters of an array expression, its elements'.
    value_type: DataType,
    over_elements: bool,
}

/// The table's indexes, in the order declared (the order reads apply them in).
#[derive(Debug, Clone, Default)]
pub struct SkipIndexes {
    pub indexes: Vec<SkipIndex>,
}

impl SkipIndexes {
    /// Plans `meta`'s indexes, with ClickHouse's checks of CREATE and ALTER ADD INDEX.
    pub fn new(meta: &TableMeta, schema: &SchemaRef, keys: &TableKeys) -> Result<SkipIndexes> {
        let mut indexes: Vec<SkipIndex> = Vec::with_capacity(meta.indices.len());
        for index in &meta.indices {
            if indexes.iter().any(|i| i.meta.name == index.name) {
                return Err(Error::new(ErrorCode::ILLEGAL_INDEX, format!("Duplicated index name {} is not allowed. Please use a different index name.", index.name)));
            }
            if index.granularity == 0 {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Index GRANULARITY must be a positive integer."));
            }
            indexes.push(SkipIndex::new(index, schema, keys)?);
        }
        Ok(SkipIndexes { indexes })
    }

    pub fn is_empty(&self) -> bool {
        self.indexes.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&SkipIndex> {
        self.indexes.iter().find(|i| i.meta.name == name)
    }
}

impl SkipIndex {
    fn new(meta: &IndexMeta, schema: &SchemaRef, keys: &TableKeys) -> Result<SkipIndex> {
        let validating = |e: Error| {
            let message = format!("{}: When validating secondary index `{}`", e.message(), meta.name);
            Error::new(e.code(), message)
        };
        let kind = IndexKind::parse(&meta.type_full).map_err(validating)?;
        let expr = keys.plan_expr(schema, &meta.expr).map_err(|e| {
            if e.message().contains("No field named") || e.message().contains("not found") {
                Error::new(ErrorCode::UNKNOWN_IDENTIFIER, format!("Missing columns while processing: '{}': {}", meta.expr, e.message()))
            } else {
                e
            }
        })?;
        if let Some(volatile) = volatile_part(&expr) {
            return Err(validating(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Expression must be deterministic but it contains non-deterministic part `{volatile}`: for secondary index '{}'", meta.name),
            )));
        }
        let field = expr.return_field(schema)?;
        let expr_type = field.data_type().clone();
        if matches!(kind, IndexKind::TokenBf { .. } | IndexKind::NgramBf { .. }) {
            let ch = granary_types::ChType::from_field(&field).to_string();
            let text_type = |t: &str| t == "String" || t.starts_with("FixedString(");
            let inner = ch.strip_prefix("LowCardinality(").or_else(|| ch.strip_prefix("Array(")).and_then(|t| t.strip_suffix(')'));
            if !(text_type(&ch) || inner.is_some_and(text_type)) {
                return Err(validating(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    "Ngram and token bloom filter indexes can only be used with column types `String`, `FixedString`, `LowCardinality(String)`, `LowCardinality(FixedString)`, `Array(String)` or `Array(FixedString)`",
                )));
            }
        }
        let plain = |t: &DataType| match t {
            DataType::Dictionary(_, value) => value.as_ref().clone(),
            other => other.clone(),
        };
        let (value_type, over_elements) = match (&expr_type, kind.is_bloom()) {
            (DataType::List(element) | DataType::LargeList(element), true) => (plain(element.data_type()), true),
            (other, _) => (plain(other), false),
        };
        Ok(SkipIndex {
            meta: meta.clone(),
            granularity: meta.granularity.max(1) as usize,
            kind,
            expr_text: canonical(&expr, schema),
            schema: schema.clone(),
            expr,
            expr_type,
            value_type,
            over_elements,
        })
    }

    /// `minmax GRANULARITY 1`, as `EXPLAIN indexes = 1` describes the index.
    pub fn description(&self) -> String {
        format!("{} GRANULARITY {}", self.kind.name(), self.meta.granularity)
    }

    fn header(&self) -> ArrayRef {
        Arc::new(StringArray::from(vec![self.meta.type_full.clone(), self.meta.expr.clone(), self.meta.granularity.to_string()]))
    }

    /// The values a granule adds to the index: the expression over its rows, without
    /// dictionary encoding, flattened for the bloom filters of arrays.
    fn values(&self, granule: &RecordBatch) -> Result<ArrayRef> {
        let values = self.expr.evaluate(granule)?.into_array(granule.num_rows())?;
        let values = match (self.over_elements, values.data_type()) {
            (true, DataType::List(_)) => {
                let list = values.as_list::<i32>();
                let offsets = list.value_offsets();
                let (start, end) = (offsets[0] as usize, offsets[list.len()] as usize);
                list.values().slice(start, end - start)
            }
            (true, DataType::LargeList(_)) => {
                let list = values.as_list::<i64>();
                let offsets = list.value_offsets();
                let (start, end) = (offsets[0] as usize, offsets[list.len()] as usize);
                list.values().slice(start, end - start)
            }
            _ => values,
        };
        Ok(if values.data_type() == &self.value_type { values } else { cast(&values, &self.value_type)? })
    }

    /// Starts the index of a new part.
    pub fn builder(&self) -> IndexBuilder<'_> {
        IndexBuilder { index: self, granules_in_current: 0, current: Current::default(), done: Done::default() }
    }

    /// Decodes the index file of a part; `None` when it indexes something else than
    /// this index (one dropped and added again under the same name).
    pub fn decode(&self, bytes: &[u8]) -> Result<Option<IndexData>> {
        let mut types = vec![DataType::Utf8];
        match self.kind {
            IndexKind::MinMax => types.extend([self.value_type.clone(), self.value_type.clone()]),
            IndexKind::Set { .. } => types.extend([self.value_type.clone(), DataType::UInt64, DataType::Boolean]),
            _ => types.extend([DataType::UInt8, DataType::UInt64]),
        }
        let n = bytes.get(0..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
        if n != Some(types.len()) {
            return Ok(None);
        }
        let mut pos = 4;
        let header = crate::encoding::decode_array(bytes, &mut pos, &DataType::Utf8)?;
        if header.as_ref() != self.header().as_ref() {
            return Ok(None);
        }
        let arrays = types[1..].iter().map(|t| crate::encoding::decode_array(bytes, &mut pos, t)).collect::<Result<Vec<_>>>()?;
        let ends = |a: &ArrayRef| -> Vec<usize> { a.as_primitive::<arrow::datatypes::UInt64Type>().values().iter().map(|&v| v as usize).collect() };
        Ok(Some(match self.kind {
            IndexKind::MinMax => IndexData::MinMax { min: arrays[0].clone(), max: arrays[1].clone() },
            IndexKind::Set { .. } => IndexData::Set { values: arrays[0].clone(), ends: ends(&arrays[1]), overflow: arrays[2].as_boolean().clone() },
            _ => IndexData::Bloom { bytes: arrays[0].as_primitive::<arrow::datatypes::UInt8Type>().values().to_vec(), ends: ends(&arrays[1]) },
        }))
    }
}

/// `expr` as text in which the query's form and the index's form of one expression are
/// equal: the SQL front end plans `a + b` as ClickHouse's `plus(a, b)`, the index's
/// planner as DataFusion's `a + CAST(b AS UInt64)`. Only the casts that widen an integer
/// operand of arithmetic go (they change no value).
fn canonical(expr: &Arc<dyn PhysicalExpr>, schema: &SchemaRef) -> String {
    let operand = |e: &Arc<dyn PhysicalExpr>| -> String {
        if let Some(c) = e.downcast_ref::<CastExpr>() {
            let widening = c.expr().data_type(schema).is_ok_and(|from| {
                from.is_integer() && c.cast_type().is_integer() && c.cast_type().primitive_width() >= from.primitive_width() && (from.is_signed_integer() <= c.cast_type().is_signed_integer())
            });
            if widening {
                return canonical(c.expr(), schema);
            }
        }
        canonical(e, schema)
    };
    if let Some(binary) = expr.downcast_ref::<BinaryExpr>() {
        let name = match binary.op() {
            Operator::Plus => Some("plus"),
            Operator::Minus => Some("minus"),
            Operator::Multiply => Some("multiply"),
            Operator::Divide => Some("divide"),
            Operator::Modulo => Some("modulo"),
            _ => None,
        };
        if let Some(name) = name {
            return format!("{name}({}, {})", operand(binary.left()), operand(binary.right()));
        }
    }
    if let Some(function) = expr.downcast_ref::<ScalarFunctionExpr>() {
        let args: Vec<String> = function.args().iter().map(operand).collect();
        return format!("{}({})", function.name(), args.join(", "));
    }
    expr.to_string()
}

/// A function call of `expr` that is not deterministic (`rand()`), as displayed.
fn volatile_part(expr: &Arc<dyn PhysicalExpr>) -> Option<String> {
    let mut found = None;
    let _ = expr.apply(|e| {
        if let Some(f) = e.downcast_ref::<ScalarFunctionExpr>() {
            if f.fun().signature().volatility == Volatility::Volatile {
                found = Some(format!("{}()", f.name()));
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    found
}

/// Row-format bytes of each value (the same for equal values of one type), with
/// floats' negative zero made positive so that `-0 = 0` holds in the hashes too.
fn value_rows(values: &ArrayRef) -> Result<(RowConverter, arrow::row::Rows)> {
    let values = match values.data_type() {
        DataType::Float64 => Arc::new(values.as_primitive::<arrow::datatypes::Float64Type>().unary::<_, arrow::datatypes::Float64Type>(|v| if v == 0.0 { 0.0 } else { v })) as ArrayRef,
        DataType::Float32 => Arc::new(values.as_primitive::<arrow::datatypes::Float32Type>().unary::<_, arrow::datatypes::Float32Type>(|v| if v == 0.0 { 0.0 } else { v })),
        _ => values.clone(),
    };
    let converter = RowConverter::new(vec![SortField::new(values.data_type().clone())])?;
    let rows = converter.convert_columns(&[values])?;
    Ok((converter, rows))
}

type HashPair = (u64, u64);

fn hash_pair(bytes: &[u8], seed: u64) -> HashPair {
    (xxh3_64_with_seed(bytes, seed), xxh3_64_with_seed(bytes, seed ^ SECOND_SEED) | 1)
}

fn bit_of(hash: HashPair, i: u64, bits: u64) -> u64 {
    hash.0.wrapping_add(i.wrapping_mul(hash.1)) % bits
}

fn set_bits(filter: &mut [u8], hash: HashPair, hashes: u64) {
    let bits = filter.len() as u64 * 8;
    for i in 0..hashes {
        let b = bit_of(hash, i, bits);
        filter[(b / 8) as usize] |= 1 << (b % 8);
    }
}

fn has_bits(filter: &[u8], hash: HashPair, hashes: u64) -> bool {
    let bits = filter.len() as u64 * 8;
    bits == 0 || (0..hashes).all(|i| {
        let b = bit_of(hash, i, bits);
        filter[(b / 8) as usize] & (1 << (b % 8)) != 0
    })
}

/// Tokens as ClickHouse's `SplitTokenExtractor` cuts them: runs of ASCII letters and
/// digits and of non-ASCII bytes.
pub fn tokens(text: &[u8]) -> Vec<&[u8]> {
    text.split(|b| b.is_ascii() && !b.is_ascii_alphanumeric()).filter(|t| !t.is_empty()).collect()
}

/// Length of the UTF-8 sequence a byte starts (1 for anything else).
fn utf8_len(byte: u8) -> usize {
    match byte {
        0xf0..=0xf7 => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// The n-grams (of code points) of `text`.
pub fn ngrams(text: &[u8], n: usize) -> Vec<&[u8]> {
    let mut starts = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        starts.push(pos);
        pos += utf8_len(text[pos]);
    }
    starts.push(text.len());
    if starts.len() <= n {
        return Vec::new();
    }
    (0..starts.len() - n).map(|i| &text[starts[i]..starts[i + n]]).collect()
}

/// A LIKE pattern's literal runs between wildcards, escapes resolved, each with
/// whether it touches a wildcard before and after it.
fn like_segments(pattern: &[u8]) -> Vec<(Vec<u8>, bool, bool)> {
    let mut segments = Vec::new();
    let mut current = Vec::new();
    let mut wildcard_before = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => {
                current.push(pattern[i + 1]);
                i += 2;
                continue;
            }
            b'%' | b'_' => {
                if !current.is_empty() {
                    segments.push((std::mem::take(&mut current), wildcard_before, true));
                }
                wildcard_before = true;
            }
            b => current.push(b),
        }
        i += 1;
    }
    if !current.is_empty() {
        segments.push((current, wildcard_before, false));
    }
    segments
}

/// The tokens a string matching LIKE `pattern` surely has whole, as ClickHouse's
/// `nextInStringLike` finds them: a token touching a wildcard may be part of a longer one.
pub fn like_tokens(pattern: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (segment, open_before, open_after) in like_segments(pattern) {
        let mut start = 0;
        for (i, &b) in segment.iter().enumerate().chain(std::iter::once((segment.len(), &b' '))) {
            if b.is_ascii() && !b.is_ascii_alphanumeric() {
                let bounded_before = start > 0 || !open_before;
                let bounded_after = i < segment.len() || !open_after;
                if i > start && bounded_before && bounded_after {
                    out.push(segment[start..i].to_vec());
                }
                start = i + 1;
            }
        }
    }
    out
}

/// The n-grams a string matching LIKE `pattern` surely has.
pub fn like_ngrams(pattern: &[u8], n: usize) -> Vec<Vec<u8>> {
    like_segments(pattern).iter().flat_map(|(segment, _, _)| ngrams(segment, n).into_iter().map(<[u8]>::to_vec).collect::<Vec<_>>()).collect()
}

/// A regular expression that is a plain string (no metacharacters), else None.
fn plain_regex(pattern: &str) -> Option<&str> {
    (!pattern.is_empty() && pattern.bytes().all(|b| b.is_ascii_alphanumeric() || b == b' ' || b == b'_' || b == b'-' || b >= 0x80)).then_some(pattern)
}

/// The index of one part being written, index granule after index granule.
pub struct IndexBuilder<'a> {
    index: &'a SkipIndex,
    granules_in_current: usize,
    current: Current,
    done: Done,
}

/// The index granule being built.
#[derive(Default)]
struct Current {
    minmax: Option<(ArrayRef, ArrayRef)>,
    /// Set: row bytes of the distinct values so far and the values themselves.
    seen: HashSet<Vec<u8>>,
    values: Vec<ArrayRef>,
    overflow: bool,
    /// bloom_filter: hashes of the distinct values; the others fill `filter` directly.
    hashes: HashSet<HashPair>,
    filter: Vec<u8>,
}

/// The index granules finished.
#[derive(Default)]
struct Done {
    mins: Vec<ArrayRef>,
    maxs: Vec<ArrayRef>,
    values: Vec<ArrayRef>,
    ends: Vec<u64>,
    overflow: Vec<bool>,
    bytes: Vec<u8>,
}

impl IndexBuilder<'_> {
    pub fn index_name(&self) -> &str {
        &self.index.meta.name
    }

    /// Adds one primary-key granule's rows.
    pub fn add_granule(&mut self, granule: &RecordBatch) -> Result<()> {
        let values = self.index.values(granule)?;
        let current = &mut self.current;
        match &self.index.kind {
            IndexKind::MinMax => current.minmax = crate::writer::merge_minmax(current.minmax.take(), &values)?,
            IndexKind::Set { max_rows } => {
                if !current.overflow && !values.is_empty() {
                    let (_, rows) = value_rows(&values)?;
                    let mut new = Vec::new();
                    for i in 0..rows.num_rows() {
                        if current.seen.insert(rows.row(i).as_ref().to_vec()) {
                            new.push(i as u32);
                        }
                    }
                    if *max_rows > 0 && current.seen.len() as u64 > *max_rows {
                        current.overflow = true;
                        current.seen.clear();
                        current.values.clear();
                    } else if !new.is_empty() {
                        current.values.push(arrow::compute::take(&values, &arrow::array::UInt32Array::from(new), None)?);
                    }
                }
            }
            IndexKind::BloomFilter { .. } => {
                if values.len() > values.null_count() {
                    let (_, rows) = value_rows(&values)?;
                    for i in (0..rows.num_rows()).filter(|&i| values.is_valid(i)) {
                        current.hashes.insert(hash_pair(rows.row(i).as_ref(), 0));
                    }
                }
            }
            IndexKind::TokenBf { size_bytes, hashes, seed } | IndexKind::NgramBf { size_bytes, hashes, seed, .. } => {
                if current.filter.is_empty() {
                    current.filter = vec![0; *size_bytes as usize];
                }
                let n = match self.index.kind {
                    IndexKind::NgramBf { n, .. } => Some(n as usize),
                    _ => None,
                };
                for_each_text(&values, |text| {
                    let pieces = match n {
                        Some(n) => ngrams(text, n),
                        None => tokens(text),
                    };
                    for piece in pieces {
                        set_bits(&mut current.filter, hash_pair(piece, *seed), *hashes);
                    }
                })?;
            }
        }
        self.granules_in_current += 1;
        if self.granules_in_current == self.index.granularity {
            self.close()?;
        }
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        let current = std::mem::take(&mut self.current);
        let done = &mut self.done;
        match &self.index.kind {
            IndexKind::MinMax => {
                let (min, max) = match current.minmax {
                    Some(mm) => mm,
                    None => (arrow::array::new_null_array(&self.index.value_type, 1), arrow::array::new_null_array(&self.index.value_type, 1)),
                };
                done.mins.push(min);
                done.maxs.push(max);
            }
            IndexKind::Set { .. } => {
                let count: usize = current.values.iter().map(|v| v.len()).sum();
                done.values.extend(current.values);
                done.ends.push(done.ends.last().copied().unwrap_or(0) + count as u64);
                done.overflow.push(current.overflow);
            }
            IndexKind::BloomFilter { false_positive } => {
                // The optimal size for the distinct values at the wanted rate.
                let n = current.hashes.len().max(1) as f64;
                let ln2 = std::f64::consts::LN_2;
                let bits = ((-n * false_positive.ln() / (ln2 * ln2)).ceil() as u64).clamp(64, 1 << 32).div_ceil(8) * 8;
                let hashes = ((bits as f64 / n) * ln2).round().clamp(1.0, 16.0) as u64;
                let mut filter = vec![0u8; (bits / 8) as usize];
                for hash in &current.hashes {
                    set_bits(&mut filter, *hash, hashes);
                }
                done.bytes.push(hashes as u8);
                done.bytes.extend_from_slice(&filter);
                done.ends.push(done.bytes.len() as u64);
            }
            IndexKind::TokenBf { size_bytes, .. } | IndexKind::NgramBf { size_bytes, .. } => {
                let filter = if current.filter.is_empty() { vec![0; *size_bytes as usize] } else { current.filter };
                done.bytes.extend_from_slice(&filter);
                done.ends.push(done.bytes.len() as u64);
            }
        }
        self.granules_in_current = 0;
        Ok(())
    }

    /// The index file's bytes.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        if self.granules_in_current > 0 {
            self.close()?;
        }
        let done = self.done;
        let concat_or_empty = |arrays: &[ArrayRef]| -> Result<ArrayRef> {
            Ok(match arrays.is_empty() {
                true => arrow::array::new_empty_array(&self.index.value_type),
                false => concat(&arrays.iter().map(|a| a.as_ref()).collect::<Vec<_>>())?,
            })
        };
        let mut arrays = vec![self.index.header()];
        match self.index.kind {
            IndexKind::MinMax => arrays.extend([concat_or_empty(&done.mins)?, concat_or_empty(&done.maxs)?]),
            IndexKind::Set { .. } => arrays.extend([
                concat_or_empty(&done.values)?,
                Arc::new(UInt64Array::from(done.ends)) as ArrayRef,
                Arc::new(BooleanArray::from(done.overflow)) as ArrayRef,
            ]),
            _ => arrays.extend([Arc::new(UInt8Array::from(done.bytes)) as ArrayRef, Arc::new(UInt64Array::from(done.ends)) as ArrayRef]),
        }
        encode_arrays(&arrays)
    }
}

/// Calls `f` with the bytes of every non-NULL value of a string-like array.
fn for_each_text(values: &ArrayRef, mut f: impl FnMut(&[u8])) -> Result<()> {
    match values.data_type() {
        DataType::Utf8 => values.as_string::<i32>().iter().flatten().for_each(|s| f(s.as_bytes())),
        DataType::LargeUtf8 => values.as_string::<i64>().iter().flatten().for_each(|s| f(s.as_bytes())),
        DataType::Utf8View => values.as_string_view().iter().flatten().for_each(|s| f(s.as_bytes())),
        DataType::Binary => values.as_binary::<i32>().iter().flatten().for_each(f),
        DataType::FixedSizeBinary(_) => values.as_fixed_size_binary().iter().flatten().for_each(f),
        other => return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Cannot build a text index over values of type {other}"))),
    }
    Ok(())
}

/// One part's index, decoded.
#[derive(Debug)]
pub enum IndexData {
    MinMax { min: ArrayRef, max: ArrayRef },
    Set { values: ArrayRef, ends: Vec<usize>, overflow: BooleanArray },
    Bloom { bytes: Vec<u8>, ends: Vec<usize> },
}

impl IndexData {
    pub fn granules(&self) -> usize {
        match self {
            IndexData::MinMax { min, .. } => min.len(),
            IndexData::Set { ends, .. } | IndexData::Bloom { ends, .. } => ends.len(),
        }
    }
}

/// What a condition asks of a bloom filter: AND and OR of atoms; an atom may match
/// when one of its alternatives has all its hashes in the filter (no alternative
/// without hashes: always).
#[derive(Debug, Clone)]
pub enum BloomTree {
    Unknown,
    And(Box<BloomTree>, Box<BloomTree>),
    Or(Box<BloomTree>, Box<BloomTree>),
    Atom(Vec<Vec<HashPair>>),
}

impl BloomTree {
    fn used(&self) -> bool {
        match self {
            BloomTree::Unknown => false,
            BloomTree::And(a, b) | BloomTree::Or(a, b) => a.used() || b.used(),
            BloomTree::Atom(_) => true,
        }
    }

    fn may_match(&self, has: &dyn Fn(HashPair) -> bool) -> bool {
        match self {
            BloomTree::Unknown => true,
            BloomTree::And(a, b) => a.may_match(has) && b.may_match(has),
            BloomTree::Or(a, b) => a.may_match(has) || b.may_match(has),
            BloomTree::Atom(alternatives) => alternatives.iter().any(|hashes| hashes.iter().all(|h| has(*h))),
        }
    }
}

/// A query's condition as one index can check it.
#[derive(Debug, Clone)]
pub enum IndexCondition {
    MinMax(Arc<PruningPredicate>),
    /// The condition over the one-column schema of the index's values.
    Set(Arc<dyn PhysicalExpr>, SchemaRef),
    Bloom(BloomTree),
}

impl SkipIndex {
    fn value_schema(&self) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new(VALUE_COLUMN, self.expr_type.clone(), true)]))
    }

    fn is_indexed(&self, expr: &Arc<dyn PhysicalExpr>) -> bool {
        canonical(expr, &self.schema) == self.expr_text
    }

    /// What of `filter` (over the table's columns) this index can check; `None` when
    /// nothing (the index is not used).
    pub fn condition(&self, filter: &Arc<dyn PhysicalExpr>) -> Option<IndexCondition> {
        match self.kind {
            IndexKind::MinMax | IndexKind::Set { .. } => {
                let (rewritten, used) = self.rewrite(filter);
                if !used {
                    return None;
                }
                if let IndexKind::Set { .. } = self.kind {
                    return Some(IndexCondition::Set(rewritten, self.value_schema()));
                }
                // Dictionary-encoded bounds are not compared: such granules are kept.
                if matches!(self.expr_type, DataType::Dictionary(..)) {
                    return None;
                }
                PruningPredicateBuilder::new().with_file_schema(self.value_schema()).build(rewritten).map(IndexCondition::MinMax)
            }
            _ => {
                let tree = self.bloom_tree(filter);
                tree.used().then_some(IndexCondition::Bloom(tree))
            }
        }
    }

    /// `filter` with the index expression replaced by the value column, through AND
    /// and OR; other conditions become `true` (they can only keep rows).
    fn rewrite(&self, filter: &Arc<dyn PhysicalExpr>) -> (Arc<dyn PhysicalExpr>, bool) {
        if let Some(binary) = filter.downcast_ref::<BinaryExpr>().filter(|b| matches!(b.op(), Operator::And | Operator::Or)) {
            let (left, l) = self.rewrite(binary.left());
            let (right, r) = self.rewrite(binary.right());
            return (Arc::new(BinaryExpr::new(left, *binary.op(), right)), l || r);
        }
        let value: Arc<dyn PhysicalExpr> = Arc::new(Column::new(VALUE_COLUMN, 0));
        let replaced = filter.clone().transform_down(|e| {
            if self.is_indexed(&e) {
                return Ok(Transformed::new(value.clone(), true, TreeNodeRecursion::Jump));
            }
            Ok(Transformed::no(e))
        });
        let always: Arc<dyn PhysicalExpr> = Arc::new(Literal::new(ScalarValue::Boolean(Some(true))));
        match replaced {
            Ok(t) if t.transformed => {
                let columns = datafusion::physical_expr::utils::collect_columns(&t.data);
                if columns.iter().all(|c| c.name() == VALUE_COLUMN) && volatile_part(&t.data).is_none() {
                    (t.data, true)
                } else {
                    (always, false)
                }
            }
            _ => (always, false),
        }
    }

    fn bloom_tree(&self, filter: &Arc<dyn PhysicalExpr>) -> BloomTree {
        if let Some(binary) = filter.downcast_ref::<BinaryExpr>() {
            match binary.op() {
                Operator::And => return BloomTree::And(Box::new(self.bloom_tree(binary.left())), Box::new(self.bloom_tree(binary.right()))),
                Operator::Or => return BloomTree::Or(Box::new(self.bloom_tree(binary.left())), Box::new(self.bloom_tree(binary.right()))),
                _ => {}
            }
        }
        self.bloom_atom(filter).map(BloomTree::Atom).unwrap_or(BloomTree::Unknown)
    }

    /// Whether `expr` is the index expression, perhaps under a cast the planner added
    /// to compare it with a literal of a wider type (the literal is converted back).
    fn indexed_side(&self, expr: &Arc<dyn PhysicalExpr>) -> bool {
        if self.is_indexed(expr) {
            return true;
        }
        // Integers compared with other integers are cast to a common integer or decimal
        // type: both hold every value exactly.
        let exact = |t: &DataType| t.is_integer() || matches!(t, DataType::Decimal128(_, 0) | DataType::Decimal256(_, 0));
        expr.downcast_ref::<CastExpr>().is_some_and(|c| self.is_indexed(c.expr()) && exact(c.cast_type()) && self.value_type.is_integer())
    }

    fn bloom_atom(&self, expr: &Arc<dyn PhysicalExpr>) -> Option<Vec<Vec<HashPair>>> {
        let literal = constant_value;
        if let Some(binary) = expr.downcast_ref::<BinaryExpr>() {
            // A function of ClickHouse's returning UInt8 is a condition as `f(..) != 0`.
            let zero = literal(binary.right()).is_some_and(|v| v.data_type().is_integer() && v == ScalarValue::new_zero(&v.data_type()).unwrap_or(ScalarValue::Null));
            if *binary.op() == Operator::NotEq && zero {
                return self.bloom_atom(binary.left());
            }
            if *binary.op() != Operator::Eq {
                return None;
            }
            let value = match (self.indexed_side(binary.left()), self.indexed_side(binary.right())) {
                (true, _) => literal(binary.right())?,
                (_, true) => literal(binary.left())?,
                _ => return None,
            };
            if self.over_elements {
                return None;
            }
            return Some(vec![self.equality_hashes(&value)?]);
        }
        if let Some(in_list) = expr.downcast_ref::<InListExpr>() {
            if in_list.negated() || !self.indexed_side(in_list.expr()) || self.over_elements {
                return None;
            }
            return in_list.list().iter().map(|e| self.equality_hashes(&literal(e)?)).collect();
        }
        if let Some(like) = expr.downcast_ref::<LikeExpr>() {
            if like.negated() || like.case_insensitive() || !self.is_indexed(like.expr()) {
                return None;
            }
            return Some(vec![self.like_hashes(&literal(like.pattern())?)?]);
        }
        let function = expr.downcast_ref::<ScalarFunctionExpr>()?;
        let args = function.args();
        let on_index = args.first().is_some_and(|a| self.is_indexed(a));
        if !on_index || args.len() != 2 {
            return None;
        }
        let argument = literal(&args[1])?;
        match function.name() {
            "equals" if !self.over_elements => Some(vec![self.equality_hashes(&argument)?]),
            "like" => Some(vec![self.like_hashes(&argument)?]),
            "has" if self.over_elements => Some(vec![self.equality_hashes(&argument)?]),
            "hasToken" if matches!(self.kind, IndexKind::TokenBf { .. }) => {
                let needle = string_of(&argument)?;
                let pieces = tokens(needle.as_bytes());
                // A needle of several tokens is an error of hasToken: nothing to check.
                (pieces.len() == 1).then(|| vec![self.text_hashes(pieces.iter().copied())])
            }
            "match" => {
                let pattern = plain_regex(&string_of(&argument)?)?.to_string();
                Some(vec![self.like_hashes(&ScalarValue::Utf8(Some(format!("%{pattern}%"))))?])
            }
            "multiSearchAny" if matches!(self.kind, IndexKind::NgramBf { .. }) => {
                let needles = match &argument {
                    ScalarValue::List(list) if list.len() == 1 => list.value(0),
                    _ => return None,
                };
                let mut alternatives = Vec::new();
                for i in 0..needles.len() {
                    let needle = string_of(&ScalarValue::try_from_array(&needles, i).ok()?)?;
                    alternatives.push(self.like_hashes(&ScalarValue::Utf8(Some(format!("%{}%", escape_like(&needle)))))?);
                }
                Some(alternatives)
            }
            _ => None,
        }
    }

    fn text_hashes<'b>(&self, pieces: impl Iterator<Item = &'b [u8]>) -> Vec<HashPair> {
        let seed = match self.kind {
            IndexKind::TokenBf { seed, .. } | IndexKind::NgramBf { seed, .. } => seed,
            _ => 0,
        };
        pieces.map(|p| hash_pair(p, seed)).collect()
    }

    /// The hashes a granule holding a value equal to `value` has.
    fn equality_hashes(&self, value: &ScalarValue) -> Option<Vec<HashPair>> {
        match self.kind {
            IndexKind::TokenBf { .. } => Some(self.text_hashes(tokens(string_of(value)?.as_bytes()).into_iter())),
            IndexKind::NgramBf { n, .. } => Some(self.text_hashes(ngrams(string_of(value)?.as_bytes(), n as usize).into_iter())),
            _ => {
                if value.is_null() {
                    return None;
                }
                let array = value.to_array().ok()?;
                let converted = cast(&array, &self.value_type).ok()?;
                // A literal that the index's type cannot hold exactly is not looked up.
                if converted.is_null(0) || cast(&converted, array.data_type()).ok()?.as_ref() != array.as_ref() {
                    return None;
                }
                let (_, rows) = value_rows(&converted).ok()?;
                Some(vec![hash_pair(rows.row(0).as_ref(), 0)])
            }
        }
    }

    fn like_hashes(&self, pattern: &ScalarValue) -> Option<Vec<HashPair>> {
        let pattern = string_of(pattern)?;
        match self.kind {
            IndexKind::TokenBf { .. } => Some(self.text_hashes(like_tokens(pattern.as_bytes()).iter().map(Vec::as_slice))),
            IndexKind::NgramBf { n, .. } => Some(self.text_hashes(like_ngrams(pattern.as_bytes(), n as usize).iter().map(Vec::as_slice))),
            _ => None,
        }
    }
}

/// The value of an expression without columns (a literal, perhaps cast by the planner).
fn constant_value(expr: &Arc<dyn PhysicalExpr>) -> Option<ScalarValue> {
    if let Some(literal) = expr.downcast_ref::<Literal>() {
        return Some(literal.value().clone());
    }
    if !datafusion::physical_expr::utils::collect_columns(expr).is_empty() || volatile_part(expr).is_some() {
        return None;
    }
    let batch = RecordBatch::try_new_with_options(Arc::new(Schema::empty()), Vec::new(), &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(1))).ok()?;
    match expr.evaluate(&batch).ok()? {
        datafusion::logical_expr::ColumnarValue::Scalar(value) => Some(value),
        datafusion::logical_expr::ColumnarValue::Array(array) => ScalarValue::try_from_array(&array, 0).ok(),
    }
}

fn string_of(value: &ScalarValue) -> Option<String> {
    match value {
        ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
        ScalarValue::Dictionary(_, inner) => string_of(inner),
        _ => None,
    }
}

fn escape_like(text: &str) -> String {
    text.chars().flat_map(|c| if matches!(c, '%' | '_' | '\\') { vec!['\\', c] } else { vec![c] }).collect()
}

impl IndexCondition {
    /// Per index granule of `data`, whether a row of it may match.
    pub fn may_match(&self, index: &SkipIndex, data: &IndexData) -> Vec<bool> {
        let granules = data.granules();
        match (self, data) {
            (IndexCondition::MinMax(predicate), IndexData::MinMax { min, max }) => {
                predicate.prune(&IndexStats { min, max }).unwrap_or_else(|_| vec![true; granules])
            }
            (IndexCondition::Set(condition, schema), IndexData::Set { values, ends, overflow }) => (0..granules)
                .map(|g| {
                    if overflow.value(g) {
                        return true;
                    }
                    let start = if g == 0 { 0 } else { ends[g - 1] };
                    set_may_match(condition, schema, &values.slice(start, ends[g] - start)).unwrap_or(true)
                })
                .collect(),
            (IndexCondition::Bloom(tree), IndexData::Bloom { bytes, ends }) => (0..granules)
                .map(|g| {
                    let start = if g == 0 { 0 } else { ends[g - 1] };
                    let filter = &bytes[start..ends[g]];
                    let (hashes, filter) = match index.kind {
                        IndexKind::TokenBf { hashes, .. } | IndexKind::NgramBf { hashes, .. } => (hashes, filter),
                        _ => match filter.split_first() {
                            Some((k, rest)) => (u64::from(*k), rest),
                            None => return true,
                        },
                    };
                    tree.may_match(&|h| has_bits(filter, h, hashes))
                })
                .collect(),
            _ => vec![true; granules],
        }
    }
}

/// Whether the condition holds for one of a granule's distinct values; errors keep it.
fn set_may_match(condition: &Arc<dyn PhysicalExpr>, schema: &SchemaRef, values: &ArrayRef) -> Result<bool> {
    if values.is_empty() {
        return Ok(false);
    }
    let target = schema.field(0).data_type();
    let values = if values.data_type() == target { values.clone() } else { cast(values, target)? };
    let batch = RecordBatch::try_new(schema.clone(), vec![values.clone()])?;
    let result = condition.evaluate(&batch)?.into_array(values.len())?;
    let result = result.as_boolean_opt().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "a condition that is not boolean"))?;
    Ok(result.true_count() > 0)
}

/// The bounds of each index granule as `PruningPredicate` statistics of the value column.
struct IndexStats<'a> {
    min: &'a ArrayRef,
    max: &'a ArrayRef,
}

impl PruningStatistics for IndexStats<'_> {
    fn min_values(&self, column: &LogicalColumn) -> Option<ArrayRef> {
        (column.name == VALUE_COLUMN).then(|| self.min.clone())
    }

    fn max_values(&self, column: &LogicalColumn) -> Option<ArrayRef> {
        (column.name == VALUE_COLUMN).then(|| self.max.clone())
    }

    fn num_containers(&self) -> usize {
        self.min.len()
    }

    fn null_counts(&self, _column: &LogicalColumn) -> Option<ArrayRef> {
        None
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        None
    }

    fn contained(&self, _column: &LogicalColumn, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}

/// What one index did to a read, for `EXPLAIN indexes = 1` (ClickHouse's `Skip` entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipIndexSelection {
    pub name: String,
    pub description: String,
    pub parts_before: usize,
    pub parts_after: usize,
    pub granules_before: u64,
    pub granules_after: u64,
}

/// The names of a `force_data_skipping_indices` / `ignore_data_skipping_indices` value:
/// identifiers separated by commas, quoted or not.
pub fn parse_index_names(text: &str) -> Result<Vec<String>> {
    let names: Vec<String> = text
        .split(',')
        .map(|n| {
            let n = n.trim();
            let unquoted = n.strip_prefix('"').and_then(|r| r.strip_suffix('"')).or_else(|| n.strip_prefix('`').and_then(|r| r.strip_suffix('`')));
            unquoted.unwrap_or(n).to_string()
        })
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse string ('{text}') into vector of identifiers")));
    }
    Ok(names)
}

/// Drops from `ranges` (the granules key pruning kept, part by part) those of index
/// granules that cannot match `filter`, index after index in declaration order, as the
/// query's settings allow; checks `force_data_skipping_indices`.
pub fn select(
    indexes: &SkipIndexes,
    filter: Option<&Arc<dyn PhysicalExpr>>,
    mut ranges: Vec<crate::reader::GranuleRange>,
    settings: Option<&granary_common::Settings>,
    table: &str,
) -> Result<(Vec<crate::reader::GranuleRange>, Vec<SkipIndexSelection>)> {
    let setting = |name: &str| settings.map(|s| s.get_str(name).to_string()).unwrap_or_default();
    if settings.is_some_and(|s| !s.get_bool("use_skip_indexes")) {
        return Ok((ranges, Vec::new()));
    }
    let forced = match setting("force_data_skipping_indices") {
        text if text.is_empty() => Vec::new(),
        text => parse_index_names(&text)?,
    };
    let ignored = match setting("ignore_data_skipping_indices") {
        text if text.is_empty() => Vec::new(),
        text => parse_index_names(&text)?,
    };
    let mut used: Vec<&str> = Vec::new();
    let mut selections = Vec::new();
    // An empty read has nothing to use an index on, and nothing to complain about.
    let reads_something = !ranges.is_empty();
    if let Some(filter) = filter {
        for index in indexes.indexes.iter().filter(|i| !ignored.contains(&i.meta.name)) {
            let Some(condition) = index.condition(filter) else {
                tracing::trace!(logger = %format_args!("{table} (SelectExecutor)"), "Index `{}` ({}) cannot check {filter}", index.meta.name, index.expr_text);
                continue;
            };
            used.push(&index.meta.name);
            let parts_before = count_parts(&ranges);
            let granules_before: u64 = ranges.iter().map(|r| r.granules.len() as u64).sum();
            let mut kept = Vec::with_capacity(ranges.len());
            let mut mask: Option<(Arc<crate::part::Part>, Option<Vec<bool>>)> = None;
            for range in ranges {
                if !mask.as_ref().is_some_and(|(p, _)| Arc::ptr_eq(p, &range.part)) {
                    let may_match = range.part.skip_index(index).map(|data| condition.may_match(index, &data));
                    mask = Some((range.part.clone(), may_match));
                }
                let Some((_, Some(may_match))) = &mask else {
                    kept.push(range);
                    continue;
                };
                let keep = |g: usize| may_match.get(g / index.granularity).copied().unwrap_or(true);
                let mut g = range.granules.start;
                while g < range.granules.end {
                    if !keep(g) {
                        g += 1;
                        continue;
                    }
                    let start = g;
                    while g < range.granules.end && keep(g) {
                        g += 1;
                    }
                    kept.push(crate::reader::GranuleRange { part: range.part.clone(), granules: start..g });
                }
            }
            ranges = kept;
            let granules_after: u64 = ranges.iter().map(|r| r.granules.len() as u64).sum();
            tracing::debug!(logger = %format_args!("{table} (SelectExecutor)"), "Index `{}` has dropped {}/{} granules.", index.meta.name, granules_before - granules_after, granules_before);
            selections.push(SkipIndexSelection {
                name: index.meta.name.clone(),
                description: index.description(),
                parts_before,
                parts_after: count_parts(&ranges),
                granules_before,
                granules_after,
            });
        }
    }
    if let Some(missing) = forced.iter().find(|name| reads_something && !used.contains(&name.as_str())) {
        return Err(Error::new(ErrorCode::INDEX_NOT_USED, format!("Index `{missing}` is not used and setting 'force_data_skipping_indices' contains it")));
    }
    Ok((ranges, selections))
}

fn count_parts(ranges: &[crate::reader::GranuleRange]) -> usize {
    let mut count = 0;
    let mut last: Option<&Arc<crate::part::Part>> = None;
    for r in ranges {
        if !last.is_some_and(|p| Arc::ptr_eq(p, &r.part)) {
            count += 1;
            last = Some(&r.part);
        }
    }
    count
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use arrow::array::UInt64Array;
    use granary_storage::{ColumnMeta, EngineMeta, TableMeta};
    use granary_types::ChType;

    fn table(indices: &[(&str, &str, &str, u64)]) -> (SchemaRef, TableKeys, SkipIndexes) {
        let meta = TableMeta {
            columns: vec![ColumnMeta::new("a", &ChType::UInt64), ColumnMeta::new("s", &ChType::String), ColumnMeta::new("arr", &ChType::parse("Array(String)").unwrap())],
            engine: EngineMeta { name: "MergeTree".into(), order_by: Some("tuple()".into()), ..Default::default() },
            indices: indices.iter().map(|(name, expr, type_full, granularity)| IndexMeta { name: name.to_string(), expr: expr.to_string(), type_full: type_full.to_string(), granularity: *granularity }).collect(),
            ..serde_json::from_str(r#"{"format_version":1,"uuid":"u","columns":[],"engine":{"name":"MergeTree"}}"#).unwrap()
        };
        let schema = meta.schema().unwrap();
        let keys = TableKeys::new(&meta, &schema).unwrap();
        let indexes = SkipIndexes::new(&meta, &schema, &keys).unwrap();
        (schema, keys, indexes)
    }

    /// A small xorshift generator: the tests need no crate for randomness.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, below: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % below
        }
    }

    /// Granules of rows whose values cluster by granule, so that indexes can skip.
    fn granules(schema: &SchemaRef, rng: &mut Rng, count: usize, rows: usize) -> Vec<RecordBatch> {
        (0..count)
            .map(|g| {
                let a: Vec<u64> = (0..rows).map(|_| g as u64 * 40 + rng.next(60)).collect();
                let s: Vec<String> = a.iter().map(|v| if v % 7 == 0 { format!("w{v} x-{}", rng.next(5)) } else { format!("w{v} x") }).collect();
                let DataType::List(item) = schema.field(2).data_type() else { panic!("arr is an array") };
                let mut arr = arrow::array::ListBuilder::new(arrow::array::StringBuilder::new()).with_field(item.clone());
                for v in &a {
                    arr.values().append_value(format!("e{}", v % 50));
                    arr.values().append_value(format!("f{}", v / 3));
                    arr.append(true);
                }
                RecordBatch::try_new(schema.clone(), vec![Arc::new(UInt64Array::from(a)), Arc::new(StringArray::from(s)), Arc::new(arr.finish())]).unwrap()
            })
            .collect()
    }

    fn matches(predicate: &Arc<dyn PhysicalExpr>, granule: &RecordBatch) -> bool {
        let result = predicate.evaluate(granule).unwrap().into_array(granule.num_rows()).unwrap();
        let result = cast(&result, &DataType::Boolean).unwrap();
        result.as_boolean().true_count() > 0
    }

    /// For every condition: a granule with a matching row is never dropped (no false
    /// negatives), and the conditions together drop something (the index is used).
    fn check(index_type: &str, expr: &str, granularity: u64, conditions: &[String]) {
        let (schema, keys, indexes) = table(&[("i", expr, index_type, granularity)]);
        let index = &indexes.indexes[0];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ granularity);
        let data = granules(&schema, &mut rng, 25, 16);
        let mut builder = index.builder();
        for g in &data {
            builder.add_granule(g).unwrap();
        }
        let decoded = index.decode(&builder.finish().unwrap()).unwrap().unwrap();
        assert_eq!(decoded.granules(), data.len().div_ceil(granularity as usize));
        let mut dropped = 0;
        for condition in conditions {
            let filter = keys.plan_predicate(&schema, condition).unwrap();
            // Conditions an index cannot check (minmax of `a + 1` on `a`) keep everything.
            let Some(planned) = index.condition(&filter) else { continue };
            let may_match = planned.may_match(index, &decoded);
            for (g, granule) in data.iter().enumerate() {
                let keep = may_match[g / granularity as usize];
                assert!(keep || !matches(&filter, granule), "{index_type}: granule {g} dropped for {condition}");
                dropped += usize::from(!keep);
            }
        }
        assert!(dropped > 0, "{index_type} on {expr} never dropped a granule");
    }

    fn values(rng: &mut Rng, count: usize, template: impl Fn(u64, u64) -> String) -> Vec<String> {
        (0..count).map(|_| template(rng.next(1100), rng.next(1100))).collect()
    }

    #[test]
    fn minmax_and_set_keep_every_matching_granule() {
        let mut rng = Rng(7);
        let conditions = values(&mut rng, 12, |v, w| {
            match v % 6 {
                0 => format!("a = {v}"),
                1 => format!("a > {v} AND a < {}", v + 30),
                2 => format!("a < {} OR a > {w}", v / 10),
                3 => format!("a IN ({v}, {w})"),
                4 => format!("a BETWEEN {v} AND {}", v + 5),
                _ => format!("a + 1 = {v} AND s != 'zzz'"),
            }
        });
        for granularity in [1, 3] {
            check("minmax", "a", granularity, &conditions);
            check("set(40)", "a", granularity, &conditions);
            check("set(0)", "a", granularity, &conditions);
        }
        check("minmax", "a + 1", 2, &values(&mut rng, 8, |v, _| format!("a + 1 > {v} AND a + 1 < {}", v + 10)));
        check("set(0)", "a", 1, &values(&mut rng, 8, |v, w| format!("a != {v} AND (a = {w} OR a = {})", w + 1)));
    }

    #[test]
    fn bloom_filters_keep_every_matching_granule() {
        let mut rng = Rng(11);
        for granularity in [1, 2] {
            check("bloom_filter", "a", granularity, &values(&mut rng, 12, |v, w| if v % 2 == 0 { format!("a = {v}") } else { format!("a IN ({v}, {w})") }));
            check("bloom_filter(0.01)", "s", granularity, &values(&mut rng, 12, |v, w| if v % 2 == 0 { format!("s = 'w{v} x'") } else { format!("s IN ('w{v} x', 'w{w} x-1')") }));
            check("bloom_filter", "arr", granularity, &values(&mut rng, 12, |v, _| format!("has(arr, 'f{}')", v / 3)));
            check(
                "tokenbf_v1(256, 3, 0)",
                "s",
                granularity,
                &values(&mut rng, 15, |v, w| match v % 5 {
                    0 => format!("s = 'w{v} x'"),
                    1 => format!("s LIKE '%x w{v}%' OR s LIKE 'w{w} %'"),
                    2 => format!("hasToken(s, 'w{v}')"),
                    3 => format!("match(s, 'w{v} x')"),
                    _ => format!("s LIKE '%x-{}' AND s LIKE 'w{w} %'", v % 5),
                }),
            );
            check(
                "ngrambf_v1(3, 512, 2, 7)",
                "s",
                granularity,
                &values(&mut rng, 15, |v, w| match v % 4 {
                    0 => format!("s = 'w{v} x'"),
                    1 => format!("s LIKE '%w{v} x%'"),
                    2 => format!("multiSearchAny(s, ['w{v} ', 'w{w} '])"),
                    _ => format!("s LIKE 'w{v}%' OR s LIKE '%{w} x-1'"),
                }),
            );
        }
    }

    #[test]
    fn tokens_and_like_patterns_are_cut_as_clickhouse_cuts_them() {
        assert_eq!(tokens(b"Hello, world! a-b_c"), vec![&b"Hello"[..], b"world", b"a", b"b", b"c"]);
        assert_eq!(like_tokens(b"%w1 %"), Vec::<Vec<u8>>::new());
        assert_eq!(like_tokens(b"abc def%"), vec![b"abc".to_vec()]);
        assert_eq!(like_tokens(b"%x abc def y%"), vec![b"abc".to_vec(), b"def".to_vec()]);
        assert_eq!(like_tokens(b"abc\\%def"), Vec::<Vec<u8>>::new().into_iter().chain([b"abc".to_vec(), b"def".to_vec()]).collect::<Vec<_>>());
        assert_eq!(ngrams("añbc".as_bytes(), 3), vec!["añb".as_bytes(), "ñbc".as_bytes()]);
        assert_eq!(like_ngrams(b"%abcd_ef%", 3), vec![b"abc".to_vec(), b"bcd".to_vec()]);
        assert!(ngrams(b"ab", 3).is_empty());
    }

    #[test]
    fn arguments_are_checked_as_clickhouse_checks_them() {
        let code = |t: &str| IndexKind::parse(t).unwrap_err().code();
        assert_eq!(code("set"), ErrorCode::INCORRECT_QUERY);
        assert_eq!(code("set('x')"), ErrorCode::INCORRECT_QUERY);
        assert_eq!(code("bloom_filter(2)"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(code("bloom_filter(0.1, 2)"), ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH);
        assert_eq!(code("tokenbf_v1(100)"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(code("ngrambf_v1(0, 100, 2, 0)"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(code("ngrambf_v1(3, 100, 2, -1)"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(code("foo"), ErrorCode::INCORRECT_QUERY);
        assert_eq!(IndexKind::parse("set(0)").unwrap(), IndexKind::Set { max_rows: 0 });
        assert_eq!(IndexKind::parse("minmax").unwrap(), IndexKind::MinMax);
        assert_eq!(IndexKind::parse("bloom_filter").unwrap(), IndexKind::BloomFilter { false_positive: DEFAULT_FALSE_POSITIVE });
    }

    #[test]
    fn a_file_of_another_definition_is_not_used() {
        let (schema, _, indexes) = table(&[("i", "a", "minmax", 1)]);
        let (_, _, other) = table(&[("i", "a", "minmax", 2)]);
        let mut builder = indexes.indexes[0].builder();
        builder.add_granule(&granules(&schema, &mut Rng(3), 1, 4)[0]).unwrap();
        let bytes = builder.finish().unwrap();
        assert!(indexes.indexes[0].decode(&bytes).unwrap().is_some());
        assert!(other.indexes[0].decode(&bytes).unwrap().is_none());
    }
}
