//! Sums with ClickHouse's arithmetic and state bytes: `sumKahan` (compensated, four
//! lanes per batch as ClickHouse's `addMany`), `sumWithOverflow` (in the argument's own
//! type, wrapping), `deltaSum` and `deltaSumTimestamp` (the sum of increases of a
//! counter, with ClickHouse's rules for merging states of neighbouring ranges),
//! `avgWeighted` and `sumCount` (ClickHouse's `AvgFraction` state).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, StructArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Field, Float64Type};
use datafusion::common::ScalarValue;
use granary_types::ChType;

use granary_common::ErrorCode;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{illegal_argument, read_f64, read_u64, take, NativeState, NullHandling, Num, NumType, Spec};
use crate::states::{get_varuint, put_varuint};

/// A spec for functions without parameters, differing only in behaviour.
#[derive(Debug)]
struct Plain {
    name: &'static str,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    SumKahan,
    SumWithOverflow,
    DeltaSum,
    DeltaSumTimestamp,
}

pub(crate) fn sum_kahan(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("sumKahan", Kind::SumKahan, params)
}
pub(crate) fn sum_with_overflow(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("sumWithOverflow", Kind::SumWithOverflow, params)
}
pub(crate) fn delta_sum(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("deltaSum", Kind::DeltaSum, params)
}
pub(crate) fn delta_sum_timestamp(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    plain("deltaSumTimestamp", Kind::DeltaSumTimestamp, params)
}

fn plain(name: &'static str, kind: Kind, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    crate::value_stats::no_params(name, params)?;
    Ok(Arc::new(Plain { name, kind }))
}

/// The number type of argument `t` of `function` where it must be a plain number.
fn number_arg(function: &str, t: &ChType) -> DfResult<NumType> {
    match t {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64 => {
            NumType::of(t).ok_or_else(|| illegal_argument(function, t))
        }
        _ => Err(illegal_argument(function, t)),
    }
}

impl Spec for Plain {
    fn name(&self) -> &str {
        self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(if self.kind == Kind::DeltaSumTimestamp { 2 } else { 1 })
    }
    fn nulls(&self) -> NullHandling {
        match self.kind {
            Kind::SumKahan | Kind::SumWithOverflow => NullHandling::NullableResult,
            Kind::DeltaSum | Kind::DeltaSumTimestamp => NullHandling::DefaultResult,
        }
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if let (Kind::SumKahan | Kind::SumWithOverflow, Some((precision, scale))) = (self.kind, decimal_arg(&args[0])) {
            // ClickHouse sums Decimals as Decimals: sumKahan in Decimal128, sumWithOverflow
            // in the argument's own type.
            return Ok(ChType::Decimal(if self.kind == Kind::SumKahan { 38 } else { precision }, scale));
        }
        number_arg(self.name, &args[0])?;
        if self.kind == Kind::DeltaSumTimestamp {
            let ts = &args[1];
            // ClickHouse instantiates it for these timestamp types only.
            let timestamp_ok = matches!(
                ts,
                ChType::UInt32 | ChType::Int32 | ChType::UInt64 | ChType::Int64 | ChType::Float32 | ChType::Float64 | ChType::Date | ChType::DateTime(_)
            );
            if !timestamp_ok {
                return Err(illegal_argument(self.name, ts));
            }
        }
        Ok(match self.kind {
            Kind::SumKahan => ChType::Float64,
            _ => args[0].clone(),
        })
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let result = self.result(args)?;
        if let ChType::Decimal(precision, scale) = result {
            return Ok(Box::new(DecimalSum { width: decimal_width(precision), precision, scale, sum: 0 }));
        }
        let value = number_arg(self.name, &args[0])?;
        let dt = args[0].to_arrow();
        Ok(match self.kind {
            Kind::SumKahan => Box::new(KahanState::default()),
            Kind::SumWithOverflow => Box::new(OverflowSum { ty: value, dt, sum: value.zero() }),
            Kind::DeltaSum => Box::new(DeltaSum { ty: value, dt, sum: value.zero(), first: value.zero(), last: value.zero(), seen: false }),
            Kind::DeltaSumTimestamp => {
                let ts = NumType::of(&args[1]).ok_or_else(|| illegal_argument(self.name, &args[1]))?;
                Box::new(DeltaSumTimestamp {
                    ty: value,
                    ts_ty: ts,
                    dt,
                    sum: value.zero(),
                    first: value.zero(),
                    last: value.zero(),
                    first_ts: ts.zero(),
                    last_ts: ts.zero(),
                    seen: false,
                })
            }
        })
    }
}

// ------------------------------------------------------------------ sumKahan

/// Precision and scale of a Decimal that fits 128 bits.
fn decimal_arg(t: &ChType) -> Option<(u8, u8)> {
    match t {
        ChType::Decimal(precision, scale) if *precision <= 38 => Some((*precision, *scale)),
        _ => None,
    }
}

/// The bytes of ClickHouse's Decimal of `precision` digits: Decimal32, 64 or 128.
fn decimal_width(precision: u8) -> usize {
    match precision {
        0..=9 => 4,
        10..=18 => 8,
        _ => 16,
    }
}

/// A sum of Decimals in the result's Decimal type, wrapping at its width.
#[derive(Debug, Clone)]
struct DecimalSum {
    width: usize,
    precision: u8,
    scale: u8,
    sum: i128,
}

impl DecimalSum {
    fn wrap(&self, v: i128) -> i128 {
        match self.width {
            4 => v as i32 as i128,
            8 => v as i64 as i128,
            _ => v,
        }
    }
}

impl NativeState for DecimalSum {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = columns[0].as_primitive_opt::<Decimal128Type>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("Decimal sum over {}", columns[0].data_type())))?;
        // Wrapping is modular, so the batch adds up in i128 and wraps once.
        let total = values.values().iter().fold(0i128, |acc, v| acc.wrapping_add(*v));
        self.sum = self.wrap(self.sum.wrapping_add(total));
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let mut le = [0u8; 16];
        let bytes = take(input, self.width)?;
        le[..self.width].copy_from_slice(bytes);
        // Sign-extends the narrower Decimals.
        let shift = 128 - 8 * self.width as u32;
        let other = (i128::from_le_bytes(le) << shift) >> shift;
        self.sum = self.wrap(self.sum.wrapping_add(other));
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.sum.to_le_bytes()[..self.width]);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::Decimal128(Some(self.sum), self.precision, self.scale as i8))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

#[derive(Debug, Default, Clone)]
struct KahanState {
    sum: f64,
    compensation: f64,
}

fn kahan_add(value: f64, sum: &mut f64, compensation: &mut f64) {
    let compensated = value - *compensation;
    let new_sum = *sum + compensated;
    *compensation = (new_sum - *sum) - compensated;
    *sum = new_sum;
}

/// ClickHouse's `mergeImpl`; the expression's order is what makes it exact.
fn kahan_merge(to_sum: &mut f64, to_compensation: &mut f64, from_sum: f64, from_compensation: f64) {
    let raw_sum = *to_sum + from_sum;
    let rhs_compensated = raw_sum - *to_sum;
    let compensations = ((from_sum - rhs_compensated) + (*to_sum - (raw_sum - rhs_compensated))) + *to_compensation + from_compensation;
    *to_sum = raw_sum + compensations;
    *to_compensation = compensations - (*to_sum - raw_sum);
}

impl NativeState for KahanState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let floats = cast(&columns[0], &DataType::Float64)?;
        let values = floats.as_primitive::<Float64Type>().values();
        // ClickHouse's addMany: four lanes over the whole runs of four, merged in order,
        // then the rest one by one.
        const LANES: usize = 4;
        let mut sums = [0.0f64; LANES];
        let mut compensations = [0.0f64; LANES];
        let whole = values.len() / LANES * LANES;
        for chunk in values[..whole].chunks_exact(LANES) {
            for lane in 0..LANES {
                kahan_add(chunk[lane], &mut sums[lane], &mut compensations[lane]);
            }
        }
        for lane in 0..LANES {
            kahan_merge(&mut self.sum, &mut self.compensation, sums[lane], compensations[lane]);
        }
        for v in &values[whole..] {
            kahan_add(*v, &mut self.sum, &mut self.compensation);
        }
        Ok(())
    }
    fn add_grouped(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let floats = cast(&columns[0], &DataType::Float64)?;
        for v in floats.as_primitive::<Float64Type>().values() {
            kahan_add(*v, &mut self.sum, &mut self.compensation);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let sum = read_f64(input)?;
        let compensation = read_f64(input)?;
        kahan_merge(&mut self.sum, &mut self.compensation, sum, compensation);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.sum.to_le_bytes());
        out.extend_from_slice(&self.compensation.to_le_bytes());
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::Float64(Some(self.sum + self.compensation)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ sumWithOverflow

#[derive(Debug, Clone)]
struct OverflowSum {
    ty: NumType,
    dt: DataType,
    sum: Num,
}

impl NativeState for OverflowSum {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = self.ty.values(&columns[0])?;
        if !self.ty.is_float() {
            // Wrapping is modular, so the batch adds up in i128 and wraps once.
            let total = values.iter().fold(0i128, |acc, v| match v {
                Num::Int(i) => acc.wrapping_add(*i),
                Num::Float(_) => acc,
            });
            self.sum = self.ty.add(self.sum, Num::Int(total));
            return Ok(());
        }
        // ClickHouse's addMany over floats: 128 bytes of lanes, then the rest in order.
        let lanes = 128 / self.ty.width();
        let mut partial = vec![self.ty.zero(); lanes];
        let whole = values.len() / lanes * lanes;
        for (i, v) in values[..whole].iter().enumerate() {
            partial[i % lanes] = self.ty.add(partial[i % lanes], *v);
        }
        let mut total = self.ty.zero();
        for p in partial {
            total = self.ty.add(total, p);
        }
        for v in &values[whole..] {
            total = self.ty.add(total, *v);
        }
        self.sum = self.ty.add(self.sum, total);
        Ok(())
    }
    fn add_grouped(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        for v in self.ty.values(&columns[0])? {
            self.sum = self.ty.add(self.sum, v);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let other = self.ty.read(input)?;
        self.sum = self.ty.add(self.sum, other);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.ty.write(self.sum, out);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        self.ty.scalar(self.sum, &self.dt)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ deltaSum

#[derive(Debug, Clone)]
struct DeltaSum {
    ty: NumType,
    dt: DataType,
    sum: Num,
    first: Num,
    last: Num,
    seen: bool,
}

impl NativeState for DeltaSum {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        for value in self.ty.values(&columns[0])? {
            if self.seen && self.last < value {
                self.sum = self.ty.add(self.sum, self.ty.sub(value, self.last));
            }
            self.last = value;
            if !self.seen {
                self.first = value;
                self.seen = true;
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let sum = self.ty.read(input)?;
        let first = self.ty.read(input)?;
        let last = self.ty.read(input)?;
        let seen = crate::native_state::take(input, 1)?[0] != 0;
        // ClickHouse's rules: states are taken to be in time order; a later state
        // starting lower is a counter reset. Equal ends add nothing of the right side.
        if self.seen && seen && self.last < first {
            self.sum = self.ty.add(self.sum, self.ty.add(sum, self.ty.sub(first, self.last)));
            self.last = last;
        } else if self.seen && seen && first < self.last {
            self.sum = self.ty.add(self.sum, sum);
            self.last = last;
        } else if seen && !self.seen {
            (self.sum, self.first, self.last, self.seen) = (sum, first, last, true);
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.ty.write(self.sum, out);
        self.ty.write(self.first, out);
        self.ty.write(self.last, out);
        out.push(u8::from(self.seen));
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        self.ty.scalar(self.sum, &self.dt)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ deltaSumTimestamp

#[derive(Debug, Clone)]
struct DeltaSumTimestamp {
    ty: NumType,
    ts_ty: NumType,
    dt: DataType,
    sum: Num,
    first: Num,
    last: Num,
    first_ts: Num,
    last_ts: Num,
    seen: bool,
}

impl NativeState for DeltaSumTimestamp {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = self.ty.values(&columns[0])?;
        let stamps = self.ts_ty.values(&columns[1])?;
        for (value, ts) in values.into_iter().zip(stamps) {
            if self.seen && self.last < value {
                self.sum = self.ty.add(self.sum, self.ty.sub(value, self.last));
            }
            self.last = value;
            self.last_ts = ts;
            if !self.seen {
                self.first = value;
                self.first_ts = ts;
                self.seen = true;
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let sum = self.ty.read(input)?;
        let first = self.ty.read(input)?;
        let first_ts = self.ts_ty.read(input)?;
        let last = self.ty.read(input)?;
        let last_ts = self.ts_ty.read(input)?;
        let seen = crate::native_state::take(input, 1)?[0] != 0;
        if !seen {
            return Ok(());
        }
        if !self.seen {
            *self = DeltaSumTimestamp { sum, first, last, first_ts, last_ts, seen, ..self.clone() };
            return Ok(());
        }
        // ClickHouse's order of two states by their time ranges; equal ranges keep the
        // state with the larger first value, so the result does not depend on the order.
        let self_before = self.last_ts < first_ts || (self.last_ts == first_ts && (self.last_ts < last_ts || self.first_ts < self.last_ts));
        let other_before = last_ts < self.first_ts || (last_ts == self.first_ts && (last_ts < self.last_ts || first_ts < last_ts));
        if self_before {
            if first > self.last {
                self.sum = self.ty.add(self.sum, self.ty.sub(first, self.last));
            }
            self.sum = self.ty.add(self.sum, sum);
            self.last = last;
            self.last_ts = last_ts;
        } else if other_before {
            if self.first > last {
                self.sum = self.ty.add(self.sum, self.ty.sub(self.first, last));
            }
            self.sum = self.ty.add(self.sum, sum);
            self.first = first;
            self.first_ts = first_ts;
        } else if self.first < first {
            self.first = first;
            self.last = last;
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.ty.write(self.sum, out);
        self.ty.write(self.first, out);
        self.ts_ty.write(self.first_ts, out);
        self.ty.write(self.last, out);
        self.ts_ty.write(self.last_ts, out);
        out.push(u8::from(self.seen));
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        self.ty.scalar(self.sum, &self.dt)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ avgWeighted, sumCount

/// How ClickHouse accumulates a number class (its `NearestFieldType`): UInt64, Int64 or
/// Float64. Unsigned counts are written as VarUInt, the others in 8 little-endian bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field64 {
    Unsigned,
    Signed,
    Float,
}

/// A value accumulated in a [`Field64`]: the bits of an integer, or a float.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Acc {
    Int(u64),
    Float(f64),
}

impl Field64 {
    fn of(t: NumType) -> Field64 {
        match t {
            NumType::Int { signed: false, .. } => Field64::Unsigned,
            NumType::Int { signed: true, .. } => Field64::Signed,
            NumType::Float32 | NumType::Float64 => Field64::Float,
        }
    }
    fn zero(self) -> Acc {
        if self == Field64::Float {
            Acc::Float(0.0)
        } else {
            Acc::Int(0)
        }
    }
    /// ClickHouse's `static_cast` of `v` to this type (floats truncate toward zero).
    fn convert(self, v: Num) -> Acc {
        match (self, v) {
            (Field64::Float, v) => Acc::Float(v.as_f64()),
            (Field64::Unsigned, Num::Float(f)) => Acc::Int(f as u64),
            (Field64::Signed, Num::Float(f)) => Acc::Int(f as i64 as u64),
            (_, Num::Int(i)) => Acc::Int(i as u64),
        }
    }
    fn add(self, a: Acc, b: Acc) -> Acc {
        match (a, b) {
            (Acc::Int(x), Acc::Int(y)) => Acc::Int(x.wrapping_add(y)),
            (x, y) => Acc::Float(self.as_f64(x) + self.as_f64(y)),
        }
    }
    fn mul(self, a: Acc, b: Acc) -> Acc {
        match (a, b) {
            (Acc::Int(x), Acc::Int(y)) => Acc::Int(x.wrapping_mul(y)),
            (x, y) => Acc::Float(self.as_f64(x) * self.as_f64(y)),
        }
    }
    fn as_f64(self, v: Acc) -> f64 {
        match (self, v) {
            (_, Acc::Float(f)) => f,
            (Field64::Signed, Acc::Int(i)) => i as i64 as f64,
            (_, Acc::Int(i)) => i as f64,
        }
    }
    fn write(self, v: Acc, out: &mut Vec<u8>) {
        match v {
            Acc::Int(i) => out.extend_from_slice(&i.to_le_bytes()),
            Acc::Float(f) => out.extend_from_slice(&f.to_le_bytes()),
        }
    }
    fn read(self, input: &mut &[u8]) -> DfResult<Acc> {
        Ok(match self {
            Field64::Float => Acc::Float(read_f64(input)?),
            _ => Acc::Int(read_u64(input)?),
        })
    }
    /// A denominator or count: VarUInt when unsigned, as ClickHouse's `AvgFraction` writes it.
    fn write_count(self, v: Acc, out: &mut Vec<u8>) {
        match (self, v) {
            (Field64::Unsigned, Acc::Int(i)) => put_varuint(out, i),
            _ => self.write(v, out),
        }
    }
    fn read_count(self, input: &mut &[u8]) -> DfResult<Acc> {
        match self {
            Field64::Unsigned => Ok(Acc::Int(get_varuint(input)?)),
            _ => self.read(input),
        }
    }
    fn scalar(self, v: Acc) -> ScalarValue {
        match (self, v) {
            (_, Acc::Float(f)) => ScalarValue::Float64(Some(f)),
            (Field64::Signed, Acc::Int(i)) => ScalarValue::Int64(Some(i as i64)),
            (_, Acc::Int(i)) => ScalarValue::UInt64(Some(i)),
        }
    }
    fn ch_type(self) -> ChType {
        match self {
            Field64::Unsigned => ChType::UInt64,
            Field64::Signed => ChType::Int64,
            Field64::Float => ChType::Float64,
        }
    }
}

/// The number type of a plain number argument (Bool counts as UInt8, as in ClickHouse).
fn plain_number(t: &ChType) -> Option<NumType> {
    match t {
        ChType::Bool => NumType::of(t),
        _ => number_arg("", t).ok(),
    }
}

fn is_wide_int(t: &ChType) -> bool {
    matches!(t, ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256)
}

#[derive(Debug)]
struct AvgWeighted;

pub(crate) fn avg_weighted(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    crate::value_stats::no_params("avgWeighted", params)?;
    Ok(Arc::new(AvgWeighted))
}

impl AvgWeighted {
    fn types(args: &[ChType]) -> DfResult<(NumType, NumType)> {
        match (plain_number(&args[0]), plain_number(&args[1])) {
            (Some(value), Some(weight)) => Ok((value, weight)),
            // ClickHouse also takes wide integers (as Float64) and pairs of Decimals.
            _ if args.iter().all(|a| plain_number(a).is_some() || is_wide_int(a)) || args.iter().all(|a| decimal_arg(a).is_some()) => {
                Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("avgWeighted over {} and {} is not supported yet", args[0], args[1])))
            }
            _ => Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Types {} and {} are non-conforming as arguments for aggregate function avgWeighted", args[0], args[1]),
            )),
        }
    }
}

impl Spec for AvgWeighted {
    fn name(&self) -> &str {
        "avgWeighted"
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        Self::types(args)?;
        Ok(ChType::Float64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let (value, weight) = Self::types(args)?;
        // Every plain number widens to 8 bytes, so ClickHouse's numerator takes the
        // weight's type (`MaxFieldType` keeps the second of equal sizes).
        let field = Field64::of(weight);
        Ok(Box::new(AvgWeightedState { value, weight, field, numerator: field.zero(), denominator: field.zero() }))
    }
}

#[derive(Debug, Clone)]
struct AvgWeightedState {
    value: NumType,
    weight: NumType,
    field: Field64,
    numerator: Acc,
    denominator: Acc,
}

impl NativeState for AvgWeightedState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = self.value.values(&columns[0])?;
        let weights = self.weight.values(&columns[1])?;
        let f = self.field;
        for (v, w) in values.into_iter().zip(weights) {
            let w = f.convert(w);
            self.numerator = f.add(self.numerator, f.mul(f.convert(v), w));
            self.denominator = f.add(self.denominator, w);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let f = self.field;
        let numerator = f.read(input)?;
        let denominator = f.read_count(input)?;
        self.numerator = f.add(self.numerator, numerator);
        self.denominator = f.add(self.denominator, denominator);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.field.write(self.numerator, out);
        self.field.write_count(self.denominator, out);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::Float64(Some(self.field.as_f64(self.numerator) / self.field.as_f64(self.denominator))))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

#[derive(Debug)]
struct SumCount;

pub(crate) fn sum_count(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    crate::value_stats::no_params("sumCount", params)?;
    Ok(Arc::new(SumCount))
}

impl Spec for SumCount {
    fn name(&self) -> &str {
        "sumCount"
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        // ClickHouse's sumCount returns (0, 0) when only NULLs came, with no flag.
        NullHandling::Skip
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let sum = match decimal_arg(&args[0]) {
            Some((_, scale)) => ChType::Decimal(38, scale),
            None => Field64::of(plain_number(&args[0]).ok_or_else(|| illegal_argument("sumCount", &args[0]))?).ch_type(),
        };
        Ok(ChType::Tuple(vec![("1".to_string(), sum), ("2".to_string(), ChType::UInt64)]))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        if let Some((_, scale)) = decimal_arg(&args[0]) {
            return Ok(Box::new(SumCountState { sum: Sum::Decimal(DecimalSum { width: 16, precision: 38, scale, sum: 0 }), count: 0 }));
        }
        let value = plain_number(&args[0]).ok_or_else(|| illegal_argument("sumCount", &args[0]))?;
        let field = Field64::of(value);
        Ok(Box::new(SumCountState { sum: Sum::Number { value, field, sum: field.zero() }, count: 0 }))
    }
}

#[derive(Debug, Clone)]
enum Sum {
    Number { value: NumType, field: Field64, sum: Acc },
    Decimal(DecimalSum),
}

#[derive(Debug, Clone)]
struct SumCountState {
    sum: Sum,
    count: u64,
}

impl SumCountState {
    fn add_rows(&mut self, columns: &[ArrayRef], lanes: bool) -> DfResult<()> {
        self.count += columns[0].len() as u64;
        let Sum::Number { value, field, sum } = &mut self.sum else {
            if let Sum::Decimal(d) = &mut self.sum {
                d.add(columns)?;
            }
            return Ok(());
        };
        let values = value.values(&columns[0])?;
        if *field != Field64::Float || !lanes {
            for v in values {
                *sum = field.add(*sum, field.convert(v));
            }
            return Ok(());
        }
        // ClickHouse's avg adds a block at once with sum's addMany: 128 bytes of Float64
        // lanes over the whole runs, then the rest in order, then onto the state.
        const LANES: usize = 16;
        let floats: Vec<f64> = values.iter().map(|v| v.as_f64()).collect();
        let mut partial = [0.0f64; LANES];
        let whole = floats.len() / LANES * LANES;
        for (i, v) in floats[..whole].iter().enumerate() {
            partial[i % LANES] += v;
        }
        let mut total = partial.iter().fold(0.0, |acc, p| acc + p);
        for v in &floats[whole..] {
            total += v;
        }
        *sum = field.add(*sum, Acc::Float(total));
        Ok(())
    }
}

impl NativeState for SumCountState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        self.add_rows(columns, true)
    }
    fn add_grouped(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        self.add_rows(columns, false)
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        match &mut self.sum {
            Sum::Number { field, sum, .. } => {
                let other = field.read(input)?;
                *sum = field.add(*sum, other);
            }
            Sum::Decimal(d) => d.merge(input)?,
        }
        self.count = self.count.wrapping_add(get_varuint(input)?);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        match &self.sum {
            Sum::Number { field, sum, .. } => field.write(*sum, out),
            Sum::Decimal(d) => d.write(out),
        }
        put_varuint(out, self.count);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let sum = match &self.sum {
            Sum::Number { field, sum, .. } => field.scalar(*sum),
            Sum::Decimal(d) => d.finish()?,
        };
        let fields = vec![Arc::new(Field::new("1", sum.data_type(), false)), Arc::new(Field::new("2", DataType::UInt64, false))];
        let columns: Vec<ArrayRef> = vec![sum.to_array()?, ScalarValue::UInt64(Some(self.count)).to_array()?];
        Ok(ScalarValue::Struct(Arc::new(StructArray::try_new(fields.into(), columns, None)?)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Float64Array, UInt8Array};

    use crate::native_state::state_hex as hex;

    /// chdb's `hex(avgWeightedState(x, w))`: a UInt8 weight makes a UInt64 numerator (the
    /// Int32 value cast to it) and a VarUInt denominator; an Int64 weight 8-byte both.
    #[test]
    fn avg_weighted_states_as_clickhouse() {
        let spec = avg_weighted(&[]).unwrap();
        let mut state = spec.new_state(&[ChType::Int32, ChType::UInt8]).unwrap();
        let xs: ArrayRef = Arc::new(datafusion::arrow::array::Int32Array::from(vec![1, 3, 5]));
        let ws: ArrayRef = Arc::new(UInt8Array::from(vec![2, 4, 0]));
        state.add(&[xs, ws]).unwrap();
        assert_eq!(hex(state.as_ref()), "0E0000000000000006");
        let mut merged = spec.new_state(&[ChType::Int32, ChType::UInt8]).unwrap();
        let mut bytes = Vec::new();
        state.write(&mut bytes);
        merged.merge(&mut bytes.as_slice()).unwrap();
        merged.merge(&mut bytes.as_slice()).unwrap();
        assert_eq!(hex(merged.as_ref()), "1C000000000000000C");
        assert_eq!(merged.finish().unwrap(), ScalarValue::Float64(Some(14.0 / 6.0)));

        let mut signed = spec.new_state(&[ChType::Float64, ChType::Int64]).unwrap();
        let xs: ArrayRef = Arc::new(Float64Array::from(vec![1.5, -2.7]));
        let ws: ArrayRef = Arc::new(datafusion::arrow::array::Int64Array::from(vec![2, 3]));
        signed.add(&[xs, ws]).unwrap();
        assert_eq!(hex(signed.as_ref()), "FCFFFFFFFFFFFFFF0500000000000000");
    }

    /// chdb's `sumCount(number / 7)` over `numbers(1000)`: a block sums in 16 lanes.
    #[test]
    fn sum_count_lanes_as_clickhouse() {
        let spec = sum_count(&[]).unwrap();
        let mut state = spec.new_state(&[ChType::Float64]).unwrap();
        let xs: ArrayRef = Arc::new(Float64Array::from_iter_values((0..1000).map(|n| n as f64 / 7.0)));
        state.add(&[xs]).unwrap();
        let mut bytes = Vec::new();
        state.write(&mut bytes);
        let sum = f64::from_le_bytes(bytes[..8].try_into().unwrap());
        assert_eq!(format!("{sum}"), "71357.14285714286");
        assert_eq!(&bytes[8..], &[0xE8, 0x07]);
    }

    /// chdb's `hex(sumKahanState(number / 3))` over `numbers(10)`: four lanes, not one.
    #[test]
    fn kahan_lanes_as_clickhouse() {
        let mut state = KahanState::default();
        let xs: ArrayRef = Arc::new(Float64Array::from_iter_values((0..10).map(|n| n as f64 / 3.0)));
        state.add(&[xs]).unwrap();
        assert_eq!(hex(&state), "0000000000002E40000000000000D0BC");
    }

    /// chdb's `hex(deltaSumState(toUInt8(number % 7)))` over `numbers(20)`, and the merge
    /// of neighbouring ranges: [0, 2] then [4, 7] adds the gap, [4, 6] then [1, 2] is a reset.
    #[test]
    fn delta_sum_states_and_merges() {
        let spec = delta_sum(&[]).unwrap();
        let mut state = spec.new_state(&[ChType::UInt8]).unwrap();
        let xs: ArrayRef = Arc::new(UInt8Array::from_iter_values((0..20).map(|n| (n % 7) as u8)));
        state.add(&[xs]).unwrap();
        assert_eq!(hex(state.as_ref()), "11000501");
        let run = |values: &[u8]| {
            let mut s = spec.new_state(&[ChType::UInt8]).unwrap();
            s.add(&[Arc::new(UInt8Array::from(values.to_vec())) as ArrayRef]).unwrap();
            let mut out = Vec::new();
            s.write(&mut out);
            (s, out)
        };
        let (mut left, _) = run(&[0, 2]);
        let (_, right) = run(&[4, 7]);
        left.merge(&mut right.as_slice()).unwrap();
        assert_eq!(left.finish().unwrap(), ScalarValue::UInt8(Some(7)));
        let (mut left, _) = run(&[4, 6]);
        let (_, right) = run(&[1, 2]);
        left.merge(&mut right.as_slice()).unwrap();
        assert_eq!(left.finish().unwrap(), ScalarValue::UInt8(Some(3)));
    }
}
