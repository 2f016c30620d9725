//! `groupUniqArray([max_size])(x)`: the distinct values in the order of ClickHouse's hash
//! set, which is the order ClickHouse returns them in.
//!
//! ClickHouse keeps numbers (and Date, DateTime, IPv4, Enum) in a `HashSet` hashed with
//! `intHashCRC32` of their bytes (floats and IPv4: `intHash64`; one-byte values in a
//! table indexed by the byte, so they come out in ascending unsigned order),
//! 16 cells at first, and other values as bytes in a set with
//! the CRC32 string hash, 8 cells at first; both grow four-fold while below 2^23 cells,
//! when more than half full, moving keys as `HashTable::resize` does. The zero key (0, or
//! the empty string) lives outside the cells and comes first. This module keeps the same
//! table, so the order is ClickHouse's for numbers, Decimal, strings and FixedString; values of
//! other types are keyed by a canonical encoding of their own, so their order may differ.
//! Merging inserts the other state's values in its order, as ClickHouse does. NULLs are
//! skipped; with `max_size`, values past that many are ignored.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility};
use datafusion::arrow::row::{RowConverter, SortField};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ch_type_of_field, result_field};
use crate::topk::string_hash_crc32;
use crate::uniq::{fmix64, single_keys};

#[derive(Debug, Clone)]
struct Entry {
    key: Vec<u8>,
    hash: u64,
    value: ScalarValue,
}

/// ClickHouse's `HashSet` with `HashTableGrower` (see the module docs); cells hold
/// indexes into `entries`.
#[derive(Debug, Clone)]
struct UniqSet {
    cells: Vec<Option<usize>>,
    degree: u8,
    entries: Vec<Entry>,
    zero: Option<ScalarValue>,
    /// One-byte keys: ClickHouse iterates them in the order of the byte.
    by_byte: bool,
}

impl UniqSet {
    fn new(degree: u8, by_byte: bool) -> Self {
        UniqSet { cells: vec![None; 1 << degree], degree, entries: Vec::new(), zero: None, by_byte }
    }

    fn len(&self) -> usize {
        self.entries.len() + usize::from(self.zero.is_some())
    }

    fn mask(&self) -> usize {
        self.cells.len() - 1
    }

    /// The cell holding `key`, or the empty cell where it would go.
    fn find(&self, key: &[u8], hash: u64) -> usize {
        let mut i = hash as usize & self.mask();
        while let Some(e) = self.cells[i] {
            if self.entries[e].key == key {
                break;
            }
            i = (i + 1) & self.mask();
        }
        i
    }

    /// Inserts a value keyed by `key` (None: the zero key).
    fn insert(&mut self, key: Option<(Vec<u8>, u64)>, value: impl FnOnce() -> DfResult<ScalarValue>) -> DfResult<()> {
        let Some((key, hash)) = key else {
            if self.zero.is_none() {
                self.zero = Some(value()?);
            }
            return Ok(());
        };
        let i = self.find(&key, hash);
        if self.cells[i].is_some() {
            return Ok(());
        }
        self.cells[i] = Some(self.entries.len());
        self.entries.push(Entry { key, hash, value: value()? });
        if self.len() > 1 << (self.degree - 1) {
            self.resize();
        }
        Ok(())
    }

    fn resize(&mut self) {
        let old_size = self.cells.len();
        self.degree += if self.degree >= 23 { 1 } else { 2 };
        self.cells.resize(1 << self.degree, None);
        let mut i = 0;
        while i < self.cells.len() && (i < old_size || self.cells[i].is_some()) {
            if let Some(e) = self.cells[i] {
                let entry = &self.entries[e];
                if entry.hash as usize & self.mask() != i {
                    let place = self.find(&entry.key, entry.hash);
                    if self.cells[place].is_none() {
                        self.cells[place] = Some(e);
                        self.cells[i] = None;
                    }
                }
            }
            i += 1;
        }
    }

    /// The values in ClickHouse's iteration order: the zero key, then the cells; one-byte
    /// keys in the order of their byte.
    fn values(&self) -> Vec<ScalarValue> {
        let mut cells: Vec<usize> = self.cells.iter().flatten().copied().collect();
        if self.by_byte {
            cells.sort_by_key(|&e| self.entries[e].key[0]);
        }
        self.zero.iter().cloned().chain(cells.into_iter().map(|e| self.entries[e].value.clone())).collect()
    }
}

/// Each row's key (None for NULL; Some(None) for ClickHouse's zero key).
type RowKey = Option<Option<(Vec<u8>, u64)>>;

/// Whether values of `ty` are numbers in ClickHouse's numeric set, and their width.
fn number_width(ty: &ChType) -> Option<usize> {
    Some(match ty {
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Enum8(_) => 1,
        ChType::UInt16 | ChType::Int16 | ChType::Date | ChType::Enum16(_) => 2,
        ChType::UInt32 | ChType::Int32 | ChType::Date32 | ChType::DateTime(_) | ChType::IPv4 | ChType::Float32 => 4,
        ChType::UInt64 | ChType::Int64 | ChType::Float64 => 8,
        _ => return None,
    })
}

fn row_keys(array: &ArrayRef, ty: &ChType) -> DfResult<Vec<RowKey>> {
    // Integers are hashed with `intHashCRC32`, floats and IPv4 with `intHash64` of their
    // bits; one-byte values live in a table indexed by the value (see `UniqSet::values`).
    let number = |raw: u64, width: usize| -> Option<(Vec<u8>, u64)> {
        let hash = if width == 1 { raw } else { crate::topk::int_hash_crc32(raw) };
        (raw != 0).then(|| (raw.to_le_bytes()[..width].to_vec(), hash))
    };
    let float = |raw: u64, width: usize| -> Option<(Vec<u8>, u64)> { (raw != 0).then(|| (raw.to_le_bytes()[..width].to_vec(), fmix64(raw))) };
    Ok(match (ty, number_width(ty)) {
        (ChType::Float32, _) => {
            let floats = cast(array, &DataType::Float32)?;
            floats.as_primitive::<datafusion::arrow::datatypes::Float32Type>().iter().map(|v| v.map(|v| float(v.to_bits() as u64, 4))).collect()
        }
        (ChType::Float64, _) => {
            let floats = cast(array, &DataType::Float64)?;
            floats.as_primitive::<datafusion::arrow::datatypes::Float64Type>().iter().map(|v| v.map(|v| float(v.to_bits(), 8))).collect()
        }
        (ChType::IPv4, _) => single_keys(array, ty)?.into_iter().map(|k| k.map(|k| float(k & 0xFFFF_FFFF, 4))).collect(),
        (_, Some(width)) => single_keys(array, ty)?
            .into_iter()
            .map(|k| k.map(|k| number(if width == 8 { k } else { k & ((1u64 << (width * 8)) - 1) }, width)))
            .collect(),
        // ClickHouse keys a Decimal by its bytes at its width, like a string.
        (ChType::Decimal(precision, _), _) if matches!(array.data_type(), DataType::Decimal128(..)) => {
            let width = match precision {
                0..=9 => 4,
                10..=18 => 8,
                _ => 16,
            };
            array
                .as_primitive::<datafusion::arrow::datatypes::Decimal128Type>()
                .iter()
                .map(|v| v.map(|v| {
                    let bytes = v.to_le_bytes()[..width].to_vec();
                    let hash = string_hash_crc32(&bytes);
                    Some((bytes, hash))
                }))
                .collect()
        }
        (ChType::String | ChType::FixedString(_), _) => {
            let binary = cast(array, &DataType::Binary)?;
            binary.as_binary::<i32>().iter().map(|v| v.map(|b| (!b.is_empty()).then(|| (b.to_vec(), string_hash_crc32(b))))).collect()
        }
        _ => {
            let converter = RowConverter::new(vec![SortField::new(array.data_type().clone())])?;
            let rows = converter.convert_columns(&[Arc::clone(array)])?;
            (0..array.len()).map(|i| array.is_valid(i).then(|| Some((rows.row(i).as_ref().to_vec(), string_hash_crc32(rows.row(i).as_ref()))))).collect()
        }
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct GroupUniqArray {
    name: String,
    max_elems: Option<u64>,
    signature: Signature,
}

/// The `groupUniqArray` family for [`crate::parametric::FAMILIES`].
pub(crate) fn group_uniq_array_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    let bad = || ch_error(ErrorCode::BAD_ARGUMENTS, "Parameter for aggregate function groupUniqArray should be positive number");
    let max_elems = match params {
        [] => None,
        [ScalarValue::UInt64(Some(n))] if *n > 0 => Some(*n),
        [ScalarValue::Int64(Some(n))] if *n > 0 => Some(*n as u64),
        [_] => return Err(bad()),
        _ => {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Incorrect number of parameters for aggregate function groupUniqArray, should be 0 or 1"));
        }
    };
    Ok(AggregateUDF::new_from_impl(GroupUniqArray {
        name: crate::parametric::parametric_name("groupUniqArray", params),
        max_elems,
        signature: Signature::user_defined(Volatility::Immutable),
    }))
}

fn item_type(field: &FieldRef) -> ChType {
    ch_type_of_field(field).strip_nullable().base().strip_nullable().clone()
}

impl AggregateUDFImpl for GroupUniqArray {
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
        Err(ch_error(ErrorCode::LOGICAL_ERROR, "groupUniqArray: return_field is used"))
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        Arity::exact(1).check("groupUniqArray", arg_fields.len())?;
        Ok(Arc::new(result_field(&self.name, &ChType::Array(Box::new(item_type(&arg_fields[0]))))))
    }
    fn is_nullable(&self) -> bool {
        false
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        let item = args.input_fields.first().map_or(DataType::Null, |f| item_type(f).to_arrow());
        Ok(vec![Arc::new(Field::new(format_state_name(args.name, "values"), DataType::List(Arc::new(Field::new("item", item, true))), true))])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let item = args.expr_fields.first().map(item_type).unwrap_or(ChType::Nothing);
        let degree = if number_width(&item).is_some() { 4 } else { 3 };
        let by_byte = number_width(&item) == Some(1);
        Ok(Box::new(GroupUniqArrayAccumulator { set: UniqSet::new(degree, by_byte), item, max_elems: self.max_elems }))
    }
}

#[derive(Debug)]
struct GroupUniqArrayAccumulator {
    set: UniqSet,
    item: ChType,
    max_elems: Option<u64>,
}

impl GroupUniqArrayAccumulator {
    fn add(&mut self, values: &ArrayRef) -> DfResult<()> {
        let target = self.item.to_arrow();
        let values = if values.data_type() == &target || self.item == ChType::Nothing { Arc::clone(values) } else { cast(values, &target)? };
        for (row, key) in row_keys(&values, &self.item)?.into_iter().enumerate() {
            let Some(key) = key else { continue };
            if self.max_elems.is_some_and(|max| self.set.len() as u64 >= max) {
                return Ok(());
            }
            self.set.insert(key, || ScalarValue::try_from_array(&values, row))?;
        }
        Ok(())
    }
}

impl Accumulator for GroupUniqArrayAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        match values.first() {
            Some(v) => self.add(v),
            None => Ok(()),
        }
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let Some(states) = states.first() else { return Ok(()) };
        let lists = states.as_list::<i32>();
        for row in 0..lists.len() {
            if lists.is_valid(row) {
                self.add(&lists.value(row))?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let values: Vec<ScalarValue> = self.set.values();
        Ok(vec![ScalarValue::List(ScalarValue::new_list_nullable(&values, &self.item.to_arrow()))])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let values: Vec<ScalarValue> = self.set.values();
        let target = self.item.to_arrow();
        let array: ArrayRef = if values.is_empty() {
            datafusion::arrow::array::new_empty_array(&target)
        } else {
            cast(&ScalarValue::iter_to_array(values)?, &target)?
        };
        let field = self.item.to_arrow_field("item");
        let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths([array.len()]);
        Ok(ScalarValue::List(Arc::new(datafusion::arrow::array::ListArray::try_new(Arc::new(field), offsets, array, None)?)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.set.cells.capacity() * 16 + self.set.entries.capacity() * std::mem::size_of::<Entry>()
    }
}
