//! Statistics over values with ClickHouse's algorithms and state bytes: `entropy`
//! (counts per value), `boundingRatio` (slope between the leftmost and rightmost
//! points), `simpleLinearRegression` (least squares from running sums), `anyHeavy`
//! (the Misra-Gries heavy hitter with one counter) and `uniqUpTo(N)` (distinct values
//! counted up to N).
//!
//! `entropy` keys numbers by their value and other types by ClickHouse's 128-bit
//! SipHash of the value (`UniqVariadicHash<true>`), counted in a copy of ClickHouse's hash
//! map ([`CountTable`]) whose order its state bytes and result follow; `uniqUpTo` keys
//! values as ClickHouse does (see `UpToKey`).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, StructArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type};
use datafusion::common::ScalarValue;
use granary_common::hash::{city_hash64, SipHasher};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{illegal_argument, read_f64, read_u64, take, NativeState, NullHandling, Num, NumType, Spec};
use crate::states::{get_varuint, put_varuint};

/// ClickHouse's error for parameters given to a function that takes none.
pub(crate) fn no_params(name: &str, params: &[ScalarValue]) -> DfResult<()> {
    if params.is_empty() {
        Ok(())
    } else {
        Err(ch_error(ErrorCode::AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS, format!("Aggregate function {name} cannot have parameters")))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Entropy,
    BoundingRatio,
    SimpleLinearRegression,
    AnyHeavy,
}

#[derive(Debug)]
struct Plain {
    name: &'static str,
    kind: Kind,
}

fn plain(name: &'static str, kind: Kind, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params(name, params)?;
    Ok(Arc::new(Plain { name, kind }))
}

pub(crate) fn entropy(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("entropy", Kind::Entropy, params)
}
pub(crate) fn bounding_ratio(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("boundingRatio", Kind::BoundingRatio, params)
}
pub(crate) fn simple_linear_regression(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("simpleLinearRegression", Kind::SimpleLinearRegression, params)
}
pub(crate) fn any_heavy(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("anyHeavy", Kind::AnyHeavy, params)
}

/// A plain number argument (integers and floats; ClickHouse's `isNativeNumber`).
fn real_arg(function: &str, t: &ChType) -> DfResult<()> {
    match t {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64 => Ok(()),
        _ => Err(illegal_argument(function, t)),
    }
}

fn regression_type() -> ChType {
    ChType::Tuple(vec![("k".to_string(), ChType::Float64), ("b".to_string(), ChType::Float64)])
}

impl Spec for Plain {
    fn name(&self) -> &str {
        self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(if matches!(self.kind, Kind::BoundingRatio | Kind::SimpleLinearRegression) { 2 } else { 1 })
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        Ok(match self.kind {
            Kind::Entropy => ChType::Float64,
            Kind::BoundingRatio | Kind::SimpleLinearRegression => {
                for a in args {
                    real_arg(self.name, a).map_err(|e| match self.kind {
                        Kind::BoundingRatio => ch_error(
                            ErrorCode::BAD_ARGUMENTS,
                            "Illegal types of arguments of aggregate function boundingRatio, must have number representation.",
                        ),
                        _ => e,
                    })?;
                }
                if self.kind == Kind::BoundingRatio {
                    ChType::Float64
                } else {
                    regression_type()
                }
            }
            Kind::AnyHeavy => {
                if NumType::of(&args[0]).is_none() && !matches!(args[0], ChType::String) {
                    return Err(illegal_argument(self.name, &args[0]));
                }
                args[0].clone()
            }
        })
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(match self.kind {
            Kind::Entropy => {
                let key = EntropyKey::of(&args[0]);
                Box::new(Entropy { key, arg: args[0].clone(), counts: CountTable::new(matches!(key, EntropyKey::Number(_)), CountTable::INITIAL_DEGREE) })
            }
            Kind::BoundingRatio => Box::new(BoundingRatio { empty: true, left: (0.0, 0.0), right: (0.0, 0.0) }),
            Kind::SimpleLinearRegression => Box::new(Regression::default()),
            Kind::AnyHeavy => Box::new(AnyHeavy { ty: NumType::of(&args[0]), dt: args[0].to_arrow(), value: None, counter: 0 }),
        })
    }
}

// ------------------------------------------------------------------ entropy

/// How `entropy` keys values: numbers by their value at their width, others by a
/// 128-bit hash.
#[derive(Debug, Clone, Copy)]
enum EntropyKey {
    Number(NumType),
    Hash,
}

impl EntropyKey {
    fn of(t: &ChType) -> EntropyKey {
        match NumType::of(t) {
            Some(ty) => EntropyKey::Number(ty),
            None => EntropyKey::Hash,
        }
    }

    fn width(self) -> usize {
        match self {
            EntropyKey::Number(ty) => ty.width(),
            EntropyKey::Hash => 16,
        }
    }
}

/// ClickHouse's `HashMapWithStackMemory<Key, UInt64, Hash, 4>` as `entropy` uses it: 16
/// cells at first, linear probing, four-fold growth (then two-fold from 2^23 cells) when
/// more than half full, keys moved as `HashTable::resize` moves them, the zero key outside
/// the cells. Its iteration order (zero key, then the cells) is the order of the state's
/// bytes and of the sum that makes the result.
#[derive(Debug, Clone)]
struct CountTable {
    /// Numbers hash by `intHashCRC32` of their bytes; 128-bit hashes by their low half.
    crc: bool,
    degree: u8,
    cells: Vec<Option<(u128, u64)>>,
    zero: Option<u64>,
    len: usize,
}

impl CountTable {
    const INITIAL_DEGREE: u8 = 4;

    fn new(crc: bool, degree: u8) -> CountTable {
        CountTable { crc, degree, cells: vec![None; 1 << degree], zero: None, len: 0 }
    }

    /// A table sized for `n` keys, as `HashTable::read` makes it (`HashTableGrower::set`).
    fn sized_for(crc: bool, n: u64) -> CountTable {
        let degree = if n <= 1 { Self::INITIAL_DEGREE } else { Self::INITIAL_DEGREE.max(((n - 1) as f64).log2() as u8 + 2) };
        CountTable::new(crc, degree)
    }

    fn hash(&self, key: u128) -> usize {
        (if self.crc { crate::topk::int_hash_crc32(key as u64) } else { key as u64 }) as usize
    }

    /// The cell holding `key`, or the empty cell where it would go.
    fn find(&self, key: u128, mut place: usize) -> usize {
        let mask = self.cells.len() - 1;
        while let Some((k, _)) = self.cells[place] {
            if k == key {
                break;
            }
            place = (place + 1) & mask;
        }
        place
    }

    fn add(&mut self, key: u128, n: u64) {
        if key == 0 {
            if self.zero.is_none() {
                self.len += 1;
            }
            *self.zero.get_or_insert(0) += n;
            return;
        }
        let place = self.find(key, self.hash(key) & (self.cells.len() - 1));
        if let Some((_, count)) = &mut self.cells[place] {
            *count += n;
            return;
        }
        self.cells[place] = Some((key, n));
        self.len += 1;
        if self.len > 1 << (self.degree - 1) {
            self.resize();
        }
    }

    fn resize(&mut self) {
        let old_size = self.cells.len();
        self.degree += if self.degree >= 23 { 1 } else { 2 };
        self.cells.resize(1 << self.degree, None);
        let mask = self.cells.len() - 1;
        // The old cells, then the run of cells after them that collisions pushed there.
        let mut i = 0;
        while i < self.cells.len() && (i < old_size || self.cells[i].is_some()) {
            if let Some((key, count)) = self.cells[i] {
                let home = self.hash(key) & mask;
                if home != i {
                    let place = self.find(key, home);
                    if self.cells[place].is_none() {
                        self.cells[place] = Some((key, count));
                        self.cells[i] = None;
                    }
                }
            }
            i += 1;
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u128, u64)> + '_ {
        self.zero.map(|n| (0, n)).into_iter().chain(self.cells.iter().flatten().copied())
    }
}

#[derive(Debug, Clone)]
struct Entropy {
    key: EntropyKey,
    arg: ChType,
    counts: CountTable,
}

impl Entropy {
    fn keys(&self, column: &ArrayRef) -> DfResult<Vec<u128>> {
        Ok(match self.key {
            EntropyKey::Number(ty) => {
                let mut bytes = Vec::with_capacity(column.len() * ty.width());
                for v in ty.values(column)? {
                    ty.write(v, &mut bytes);
                }
                bytes
                    .chunks_exact(ty.width())
                    .map(|chunk| {
                        let mut le = [0u8; 16];
                        le[..chunk.len()].copy_from_slice(chunk);
                        u128::from_le_bytes(le)
                    })
                    .collect()
            }
            EntropyKey::Hash => {
                let mut keys = Vec::with_capacity(column.len());
                for row in 0..column.len() {
                    let mut hasher = SipHasher::new();
                    crate::uniq::update_hash_with_value(&mut hasher, column, &self.arg, row)?;
                    let (low, high) = hasher.finish128();
                    keys.push(((high as u128) << 64) | low as u128);
                }
                keys
            }
        })
    }
}

impl NativeState for Entropy {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        for key in self.keys(&columns[0])? {
            self.counts.add(key, 1);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)?;
        let width = self.key.width();
        if n.saturating_mul(width as u64 + 8) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        // ClickHouse reads the other state into a table of its own and adds its keys in
        // that table's order.
        let mut other = CountTable::sized_for(self.counts.crc, n);
        for _ in 0..n {
            let mut le = [0u8; 16];
            le[..width].copy_from_slice(take(input, width)?);
            let count = read_u64(input)?;
            other.add(u128::from_le_bytes(le), count);
        }
        for (key, count) in other.iter() {
            self.counts.add(key, count);
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.counts.len as u64);
        let width = self.key.width();
        for (key, count) in self.counts.iter() {
            out.extend_from_slice(&key.to_le_bytes()[..width]);
            out.extend_from_slice(&count.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let total: u64 = self.counts.iter().map(|(_, n)| n).sum();
        let mut entropy = 0.0;
        for (_, count) in self.counts.iter() {
            let frequency = count as f64 / total as f64;
            entropy -= frequency * frequency.log2();
        }
        Ok(ScalarValue::Float64(Some(entropy)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.counts.cells.capacity() * std::mem::size_of::<Option<(u128, u64)>>()
    }
}

// ------------------------------------------------------------------ boundingRatio

pub(crate) fn floats(column: &ArrayRef) -> DfResult<Vec<f64>> {
    Ok(cast(column, &DataType::Float64)?.as_primitive::<Float64Type>().values().to_vec())
}

#[derive(Debug, Clone)]
struct BoundingRatio {
    empty: bool,
    left: (f64, f64),
    right: (f64, f64),
}

impl NativeState for BoundingRatio {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let (xs, ys) = (floats(&columns[0])?, floats(&columns[1])?);
        for (x, y) in xs.into_iter().zip(ys) {
            if self.empty {
                self.left = (x, y);
                self.right = (x, y);
                self.empty = false;
            } else if x < self.left.0 {
                self.left = (x, y);
            } else if x > self.right.0 {
                self.right = (x, y);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        // ClickHouse writes the points only when there are some.
        if take(input, 1)?[0] != 0 {
            return Ok(());
        }
        let (empty, left, right) = (false, (read_f64(input)?, read_f64(input)?), (read_f64(input)?, read_f64(input)?));
        if self.empty {
            *self = BoundingRatio { empty, left, right };
            return Ok(());
        }
        if left.0 < self.left.0 {
            self.left = left;
        }
        if right.0 > self.right.0 {
            self.right = right;
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.empty));
        if self.empty {
            return;
        }
        for v in [self.left.0, self.left.1, self.right.0, self.right.1] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let ratio = if self.empty { f64::NAN } else { (self.right.1 - self.left.1) / (self.right.0 - self.left.0) };
        Ok(ScalarValue::Float64(Some(ratio)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ simpleLinearRegression

#[derive(Debug, Clone, Default)]
struct Regression {
    count: u64,
    sum_x: f64,
    sum_y: f64,
    sum_xx: f64,
    sum_xy: f64,
}

impl NativeState for Regression {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let (xs, ys) = (floats(&columns[0])?, floats(&columns[1])?);
        for (x, y) in xs.into_iter().zip(ys) {
            self.count += 1;
            self.sum_x += x;
            self.sum_y += y;
            self.sum_xx += x * x;
            self.sum_xy += x * y;
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        self.count += read_u64(input)?;
        self.sum_x += read_f64(input)?;
        self.sum_y += read_f64(input)?;
        self.sum_xx += read_f64(input)?;
        self.sum_xy += read_f64(input)?;
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.count.to_le_bytes());
        for v in [self.sum_x, self.sum_y, self.sum_xx, self.sum_xy] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let n = self.count as f64;
        let divisor = self.sum_xx * n - self.sum_x * self.sum_x;
        let k = if divisor == 0.0 { f64::NAN } else { (self.sum_xy * n - self.sum_x * self.sum_y) / divisor };
        let b = if self.count == 0 { f64::NAN } else { (self.sum_y - k * self.sum_x) / n };
        let fields = vec![Arc::new(Field::new("k", DataType::Float64, false)), Arc::new(Field::new("b", DataType::Float64, false))];
        let columns: Vec<ArrayRef> = vec![ScalarValue::Float64(Some(k)).to_array()?, ScalarValue::Float64(Some(b)).to_array()?];
        Ok(ScalarValue::Struct(Arc::new(StructArray::try_new(fields.into(), columns, None)?)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ anyHeavy

#[derive(Debug, Clone, PartialEq)]
enum Heavy {
    Number(Num),
    Text(Vec<u8>),
}

#[derive(Debug, Clone)]
struct AnyHeavy {
    /// None: a String argument.
    ty: Option<NumType>,
    dt: DataType,
    value: Option<Heavy>,
    counter: u64,
}

impl AnyHeavy {
    fn push(&mut self, value: Heavy) {
        if self.value.as_ref() == Some(&value) {
            self.counter += 1;
        } else if self.counter == 0 {
            self.value = Some(value);
            self.counter = 1;
        } else {
            self.counter -= 1;
        }
    }
}

impl NativeState for AnyHeavy {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        match self.ty {
            Some(ty) => {
                for v in ty.values(&columns[0])? {
                    self.push(Heavy::Number(v));
                }
            }
            None => {
                let binary = cast(&columns[0], &DataType::Binary)?;
                for v in binary.as_binary::<i32>().iter() {
                    self.push(Heavy::Text(v.unwrap_or_default().to_vec()));
                }
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let value = match self.ty {
            Some(ty) => match take(input, 1)?[0] {
                0 => None,
                _ => Some(Heavy::Number(ty.read(input)?)),
            },
            None => {
                let size = i32::from_le_bytes(take(input, 4)?.try_into().map_err(|_| crate::native_state::truncated())?);
                if size <= 0 {
                    None
                } else {
                    let bytes = take(input, size as usize)?;
                    Some(Heavy::Text(bytes.strip_suffix(&[0]).unwrap_or(bytes).to_vec()))
                }
            }
        };
        let counter = read_u64(input)?;
        let Some(value) = value else { return Ok(()) };
        // ClickHouse's merge of two heavy-hitter candidates: the one with the larger
        // counter wins by the difference.
        if self.value.as_ref() == Some(&value) {
            self.counter += counter;
        } else if self.value.is_none() || self.counter < counter {
            self.value = Some(value);
            self.counter = counter - self.counter;
        } else {
            self.counter -= counter;
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        match (&self.value, self.ty) {
            (Some(Heavy::Number(v)), Some(ty)) => {
                out.push(1);
                ty.write(*v, out);
            }
            (_, Some(_)) => out.push(0),
            (Some(Heavy::Text(bytes)), None) => {
                out.extend_from_slice(&(bytes.len() as i32 + 1).to_le_bytes());
                out.extend_from_slice(bytes);
                out.push(0);
            }
            (_, None) => out.extend_from_slice(&(-1i32).to_le_bytes()),
        }
        out.extend_from_slice(&self.counter.to_le_bytes());
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        match (&self.value, self.ty) {
            (Some(Heavy::Number(v)), Some(ty)) => ty.scalar(*v, &self.dt),
            (Some(Heavy::Text(bytes)), None) => ScalarValue::Utf8(Some(String::from_utf8_lossy(bytes).into_owned())).cast_to(&self.dt).map_err(Into::into),
            (_, Some(ty)) => ty.scalar(ty.zero(), &self.dt),
            (_, None) => ScalarValue::Utf8(Some(String::new())).cast_to(&self.dt).map_err(Into::into),
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ uniqUpTo

/// ClickHouse's largest `uniqUpTo` threshold.
const MAX_UNIQ_UP_TO: u64 = 100;

#[derive(Debug)]
struct UniqUpToSpec {
    name: String,
    threshold: u8,
}

pub(crate) fn uniq_up_to(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let too_large = || ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Too large parameter for aggregate function uniqUpTo. Maximum: {MAX_UNIQ_UP_TO}"));
    let threshold = match params {
        [] => 5,
        [ScalarValue::UInt64(Some(n))] if *n <= MAX_UNIQ_UP_TO => *n,
        [ScalarValue::UInt64(Some(_)) | ScalarValue::Int64(Some(_))] => return Err(too_large()),
        [_] => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Parameter for aggregate function uniqUpTo must be an unsigned integer")),
        _ => return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function uniqUpTo requires one parameter or less")),
    };
    Ok(Arc::new(UniqUpToSpec { name: crate::parametric::parametric_name("uniqUpTo", params), threshold: threshold as u8 }))
}

/// The `uniqUpTo` family for [`crate::parametric::FAMILIES`].
pub(crate) fn uniq_up_to_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(uniq_up_to, params)
}

/// How `uniqUpTo` keeps a value: ClickHouse's `AggregateFunctionUniqUpTo<T>` keeps numbers
/// up to 64 bits, Int128, dates and UUID as themselves (their bytes), strings as their
/// `CityHash64` and anything else (Decimal, IPs, other wide integers, several arguments,
/// tuples, arrays, maps) as `UniqVariadicHash`.
#[derive(Debug, Clone)]
enum UpToKey {
    Number(NumType),
    /// The value's own bytes (what `updateHashWithValue` of a fixed-size value hashes).
    Raw { ty: ChType, width: usize },
    Text,
    Hash(Arc<crate::uniq::RowHasher>),
}

impl UpToKey {
    fn of(args: &[ChType]) -> DfResult<UpToKey> {
        if let [arg] = args {
            if let Some(ty) = NumType::of(arg) {
                return Ok(UpToKey::Number(ty));
            }
            match arg {
                ChType::String | ChType::FixedString(_) => return Ok(UpToKey::Text),
                // Of the wide integers ClickHouse keeps only Int128 as itself.
                ChType::Uuid | ChType::Int128 => return Ok(UpToKey::Raw { ty: arg.clone(), width: 16 }),
                _ => {}
            }
        }
        Ok(UpToKey::Hash(Arc::new(crate::uniq::RowHasher::variadic(args.to_vec()))))
    }

    fn width(&self) -> usize {
        match self {
            UpToKey::Number(ty) => ty.width(),
            UpToKey::Raw { width, .. } => *width,
            UpToKey::Text | UpToKey::Hash(_) => 8,
        }
    }

    /// The key of every row, as the bytes the state writes.
    fn keys(&self, columns: &[ArrayRef]) -> DfResult<Vec<Vec<u8>>> {
        Ok(match self {
            UpToKey::Number(ty) => ty
                .values(&columns[0])?
                .into_iter()
                .map(|v| {
                    let mut bytes = Vec::with_capacity(8);
                    ty.write(v, &mut bytes);
                    bytes
                })
                .collect(),
            UpToKey::Raw { ty, .. } => (0..columns[0].len())
                .map(|row| {
                    let mut bytes = Vec::new();
                    crate::uniq::update_hash_with_value(&mut bytes, &columns[0], ty, row)?;
                    Ok(bytes)
                })
                .collect::<DfResult<_>>()?,
            UpToKey::Text => {
                let binary = cast(&columns[0], &DataType::Binary)?;
                binary.as_binary::<i32>().iter().map(|v| city_hash64(v.unwrap_or_default()).to_le_bytes().to_vec()).collect()
            }
            UpToKey::Hash(hasher) => hasher.variadic_hashes(columns)?.into_iter().map(|h| h.unwrap_or(0).to_le_bytes().to_vec()).collect(),
        })
    }
}

impl Spec for UniqUpToSpec {
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
        UpToKey::of(args)?;
        Ok(ChType::UInt64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        Ok(Box::new(UniqUpTo { key: UpToKey::of(args)?, threshold: self.threshold, count: 0, values: Vec::new() }))
    }
}

#[derive(Debug, Clone)]
struct UniqUpTo {
    key: UpToKey,
    threshold: u8,
    /// Distinct values seen, up to `threshold + 1`.
    count: u8,
    /// The keys' bytes, as the state writes them.
    values: Vec<Vec<u8>>,
}

impl UniqUpTo {
    fn insert(&mut self, value: Vec<u8>) {
        if self.count > self.threshold || self.values.contains(&value) {
            return;
        }
        if self.count < self.threshold {
            self.values.push(value);
        }
        self.count += 1;
    }
}

impl NativeState for UniqUpTo {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        if self.count > self.threshold {
            return Ok(());
        }
        for key in self.key.keys(columns)? {
            if self.count > self.threshold {
                break;
            }
            self.insert(key);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let count = take(input, 1)?[0];
        if count > self.threshold {
            self.count = self.count.max(count.min(self.threshold.saturating_add(1)));
            return Ok(());
        }
        let width = self.key.width();
        for _ in 0..count {
            self.insert(take(input, width)?.to_vec());
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.push(self.count);
        if self.count <= self.threshold {
            for v in &self.values {
                out.extend_from_slice(v);
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(self.count as u64)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.iter().map(|v| v.capacity() + 24).sum::<usize>()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::StringArray;

    use crate::native_state::state_hex as hex;

    fn strings(values: &[&str]) -> ArrayRef {
        Arc::new(StringArray::from(values.to_vec()))
    }

    /// Keys as chdb writes them: `entropyState(toString(number % 3))` over `numbers(10)`
    /// (key of '0' last), `uniqUpToState(3)(toString(number % 3))`.
    #[test]
    fn string_keys_as_clickhouse() {
        let mut entropy = entropy(&[]).unwrap().new_state(&[ChType::String]).unwrap();
        entropy.add(&[strings(&["0"])]).unwrap();
        assert_eq!(hex(entropy.as_ref()), "01ADDF864E8EE5D47DB8518C4A051D02640100000000000000");
        let mut up_to = uniq_up_to(&[ScalarValue::UInt64(Some(3))]).unwrap().new_state(&[ChType::String]).unwrap();
        up_to.add(&[strings(&["0", "1", "2", "0"])]).unwrap();
        assert_eq!(hex(up_to.as_ref()), "03128345AA2BC97190F150D642CEC1649E77A76BB39D207BF2");
    }

    /// chdb's `entropyState(number % 5)` over `numbers(20)`: the zero key first, then the
    /// cells in CRC32 order (4 before 2 and 3).
    #[test]
    fn entropy_hash_map_order() {
        let mut state = entropy(&[]).unwrap().new_state(&[ChType::UInt8]).unwrap();
        state.add(&[Arc::new(datafusion::arrow::array::UInt8Array::from_iter_values((0..20).map(|n| n % 5))) as ArrayRef]).unwrap();
        assert_eq!(hex(state.as_ref()), "05000400000000000000010400000000000000040400000000000000020400000000000000030400000000000000");
        // Growing past 8 keys moves them as ClickHouse's resize does.
        let mut table = CountTable::new(true, CountTable::INITIAL_DEGREE);
        for key in 1..=40u128 {
            table.add(key, 1);
        }
        assert_eq!(table.degree, 8);
        assert_eq!(table.iter().count(), 40);
    }

    /// The heavy hitter of [1, 2, 3, 3, 3, 1] is 3 with a counter of 2 (chdb's state).
    #[test]
    fn any_heavy_counter() {
        let mut state = any_heavy(&[]).unwrap().new_state(&[ChType::UInt8]).unwrap();
        state.add(&[Arc::new(datafusion::arrow::array::UInt8Array::from(vec![1, 2, 3, 3, 3, 1])) as ArrayRef]).unwrap();
        assert_eq!(hex(state.as_ref()), "01030200000000000000");
    }
}
