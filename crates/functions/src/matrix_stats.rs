//! `corrMatrix`, `covarSampMatrix`, `covarPopMatrix` (the statistic of every pair of
//! arguments, an `Array(Array(Float64))`) and `largestTriangleThreeBuckets`, with
//! ClickHouse's states.
//!
//! The matrices keep ClickHouse's naive moments for each pair `(i, j)`, `j <= i`, in
//! that order (`CovarMoments`: count, Σx, Σy, Σxy; `CorrMoments` adds Σx², Σy²), added
//! row by row, so the sums round as ClickHouse's do.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, ListArray, StructArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{read_f64, NativeState, Spec};
use crate::sample_stats::{is_number, Sample};
use crate::value_stats::{floats, no_params};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MatrixKind {
    Corr,
    CovarSamp,
    CovarPop,
}

#[derive(Debug)]
struct MatrixSpec {
    name: &'static str,
    kind: MatrixKind,
}

pub(crate) fn corr_matrix(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("corrMatrix", params)?;
    Ok(Arc::new(MatrixSpec { name: "corrMatrix", kind: MatrixKind::Corr }))
}
pub(crate) fn covar_samp_matrix(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("covarSampMatrix", params)?;
    Ok(Arc::new(MatrixSpec { name: "covarSampMatrix", kind: MatrixKind::CovarSamp }))
}
pub(crate) fn covar_pop_matrix(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("covarPopMatrix", params)?;
    Ok(Arc::new(MatrixSpec { name: "covarPopMatrix", kind: MatrixKind::CovarPop }))
}

fn float_matrix_type() -> ChType {
    ChType::Array(Box::new(ChType::Array(Box::new(ChType::Float64))))
}

impl Spec for MatrixSpec {
    fn name(&self) -> &str {
        self.name
    }
    fn arity(&self) -> Arity {
        Arity::at_least(1)
    }
    fn nulls(&self) -> crate::native_state::NullHandling {
        crate::native_state::NullHandling::DefaultResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if !args.iter().all(is_number) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {} only supports numerical types", self.name)));
        }
        Ok(float_matrix_type())
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let n = args.len();
        Ok(Box::new(Matrix { kind: self.kind, n, pairs: vec![[0.0; 6]; n * (n + 1) / 2] }))
    }
}

#[derive(Debug)]
struct Matrix {
    kind: MatrixKind,
    n: usize,
    /// The moments of pair (i, j), j <= i, at `i * (i + 1) / 2 + j`: count, Σx, Σy, Σxy,
    /// and for `corrMatrix` Σx², Σy².
    pairs: Vec<[f64; 6]>,
}

impl Matrix {
    fn fields(&self) -> usize {
        if self.kind == MatrixKind::Corr {
            6
        } else {
            4
        }
    }

    fn value(&self, m: &[f64; 6]) -> f64 {
        match self.kind {
            MatrixKind::CovarPop => (m[3] - m[1] * m[2] / m[0]) / m[0],
            MatrixKind::CovarSamp if m[0] == 0.0 => f64::NAN,
            MatrixKind::CovarSamp => (m[3] - m[1] * m[2] / m[0]) / (m[0] - 1.0),
            MatrixKind::Corr => (m[0] * m[3] - m[1] * m[2]) / ((m[0] * m[4] - m[1] * m[1]) * (m[0] * m[5] - m[2] * m[2])).sqrt(),
        }
    }
}

impl NativeState for Matrix {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = columns.iter().map(floats).collect::<DfResult<Vec<_>>>()?;
        let rows = values.first().map_or(0, Vec::len);
        for row in 0..rows {
            for i in 0..self.n {
                for j in 0..=i {
                    let (x, y) = (values[i][row], values[j][row]);
                    let m = &mut self.pairs[i * (i + 1) / 2 + j];
                    m[0] += 1.0;
                    m[1] += x;
                    m[2] += y;
                    m[3] += x * y;
                    m[4] += x * x;
                    m[5] += y * y;
                }
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let fields = self.fields();
        for m in self.pairs.iter_mut() {
            for v in m.iter_mut().take(fields) {
                *v += read_f64(input)?;
            }
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        for m in &self.pairs {
            for v in &m[..self.fields()] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let mut values = Vec::with_capacity(self.n * self.n);
        for i in 0..self.n {
            for j in 0..self.n {
                let at = if i < j { j * (j + 1) / 2 + i } else { i * (i + 1) / 2 + j };
                values.push(self.value(&self.pairs[at]));
            }
        }
        let row_type = Arc::new(Field::new_list_field(DataType::Float64, false));
        let rows = ListArray::try_new(
            Arc::clone(&row_type),
            OffsetBuffer::from_lengths(std::iter::repeat_n(self.n, self.n)),
            Arc::new(datafusion::arrow::array::Float64Array::from(values)),
            None,
        )?;
        let matrix = ListArray::try_new(Arc::new(Field::new_list_field(DataType::List(row_type), false)), OffsetBuffer::from_lengths([self.n]), Arc::new(rows), None)?;
        Ok(ScalarValue::List(Arc::new(matrix)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.pairs.capacity() * 48
    }
}

// ------------------------------------------------------------------ largestTriangleThreeBuckets

#[derive(Debug)]
struct LttbSpec {
    name: String,
    buckets: u64,
}

pub(crate) fn largest_triangle_three_buckets(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let name = crate::parametric::parametric_name("largestTriangleThreeBuckets", params);
    let buckets = match params {
        [] => 0,
        [ScalarValue::UInt64(Some(n))] => *n,
        [_] => {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Aggregate function largestTriangleThreeBuckets require first parameter to be a UInt64"))
        }
        _ => return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function largestTriangleThreeBuckets require one parameter")),
    };
    Ok(Arc::new(LttbSpec { name, buckets }))
}

pub(crate) fn largest_triangle_three_buckets_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    if params.is_empty() {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function largestTriangleThreeBuckets require one parameter"));
    }
    crate::native_state::family(largest_triangle_three_buckets, params)
}

/// The result type of a coordinate of type `t`: dates and times keep their type, numbers
/// are Float64.
fn coordinate_type(t: &ChType) -> DfResult<ChType> {
    match t {
        ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..) => Ok(t.clone()),
        t if is_number(t) => Ok(ChType::Float64),
        other => Err(ch_error(
            ErrorCode::NOT_IMPLEMENTED,
            format!("Aggregate function largestTriangleThreeBuckets only supports Date, Date32, DateTime, DateTime64 and Number arguments, not {other}"),
        )),
    }
}

impl Spec for LttbSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn nulls(&self) -> crate::native_state::NullHandling {
        crate::native_state::NullHandling::DefaultResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let x = coordinate_type(&args[0])?;
        let y = coordinate_type(&args[1])?;
        Ok(ChType::Array(Box::new(ChType::Tuple(vec![("1".to_string(), x), ("2".to_string(), y)]))))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let ChType::Array(tuple) = self.result(args)? else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "largestTriangleThreeBuckets returns an array"));
        };
        Ok(Box::new(Lttb { buckets: self.buckets as usize, sample: Sample::default(), point_type: tuple.to_arrow() }))
    }
}

#[derive(Debug)]
struct Lttb {
    buckets: usize,
    sample: Sample,
    /// The Arrow type of a result point.
    point_type: DataType,
}

impl Lttb {
    /// ClickHouse's points: sorted by x, the first and last kept, and from each bucket
    /// between the point making the largest triangle with the last point taken and the
    /// next bucket's average.
    fn points(&self) -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64)> = self.sample.x.iter().copied().zip(self.sample.y.iter().copied()).collect();
        points.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        let (size, buckets) = (points.len(), self.buckets);
        if size <= buckets {
            return points;
        }
        match buckets {
            0 => return Vec::new(),
            1 => return vec![points[0]],
            2 => return vec![points[0], points[size - 1]],
            _ => {}
        }
        let bucket_size = (size - 2) as f64 / (buckets - 2) as f64;
        let mut out = vec![points[0]];
        let mut start = 1;
        let mut center = start + bucket_size.floor() as usize;
        for i in 0..buckets - 2 {
            let end = (1 + (bucket_size * (i + 2) as f64).floor() as usize).min(size);
            let (mut avg_x, mut avg_y) = (0.0, 0.0);
            for p in &points[center..end] {
                avg_x += p.0;
                avg_y += p.1;
            }
            avg_x /= (end - center) as f64;
            avg_y /= (end - center) as f64;
            let (mut best, mut best_area) = (start, 0.0);
            let last = *out.last().unwrap_or(&points[0]);
            for (j, p) in points.iter().enumerate().take(center).skip(start) {
                let area = (0.5 * (last.0 * p.1 + p.0 * avg_y + avg_x * last.1 - last.0 * avg_y - p.0 * last.1 - avg_x * p.1)).abs();
                if area > best_area {
                    best_area = area;
                    best = j;
                }
            }
            out.push(points[best]);
            start = center;
            center = end;
        }
        out.push(points[size - 1]);
        out
    }
}

/// A coordinate column as Float64: dates and times by their raw numbers.
fn coordinates(column: &ArrayRef) -> DfResult<Vec<f64>> {
    let raw = match column.data_type() {
        DataType::Date32 => datafusion::arrow::compute::cast(column, &DataType::Int32)?,
        DataType::Timestamp(..) => datafusion::arrow::compute::cast(column, &DataType::Int64)?,
        _ => Arc::clone(column),
    };
    floats(&raw)
}

impl NativeState for Lttb {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let (xs, ys) = (coordinates(&columns[0])?, coordinates(&columns[1])?);
        // Both coordinates or neither: a NaN drops the point.
        for (x, y) in xs.into_iter().zip(ys) {
            if !x.is_nan() && !y.is_nan() {
                self.sample.x.push(x);
                self.sample.y.push(y);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        self.sample.merge(input)
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.sample.write(out)
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let DataType::Struct(fields) = &self.point_type else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "a point is a tuple"));
        };
        let points = self.points();
        let coordinate = |values: Vec<f64>, to: &DataType| -> DfResult<ArrayRef> {
            let floats: ArrayRef = Arc::new(datafusion::arrow::array::Float64Array::from(values));
            // Dates and times are truncated to their raw integers, as ClickHouse casts them.
            Ok(match to {
                DataType::Float64 => floats,
                DataType::Date32 => datafusion::arrow::compute::cast(&datafusion::arrow::compute::cast(&floats, &DataType::Int32)?, to)?,
                _ => datafusion::arrow::compute::cast(&datafusion::arrow::compute::cast(&floats, &DataType::Int64)?, to)?,
            })
        };
        let xs = coordinate(points.iter().map(|p| p.0).collect(), fields[0].data_type())?;
        let ys = coordinate(points.iter().map(|p| p.1).collect(), fields[1].data_type())?;
        let tuples = StructArray::try_new(fields.clone(), vec![xs, ys], None)?;
        let list = ListArray::try_new(Arc::new(Field::new_list_field(self.point_type.clone(), false)), OffsetBuffer::from_lengths([points.len()]), Arc::new(tuples), None)?;
        Ok(ScalarValue::List(Arc::new(list)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + (self.sample.x.capacity() + self.sample.y.capacity()) * 8
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Float64Array;

    fn column(values: &[f64]) -> ArrayRef {
        Arc::new(Float64Array::from(values.to_vec()))
    }

    /// chdb: covarPopMatrix(number, number % 7) over numbers(10) is [[8.25,0.9],[0.9,3.84]].
    #[test]
    fn covariance_matrix() {
        let mut m = covar_pop_matrix(&[]).unwrap().new_state(&[ChType::Float64, ChType::Float64]).unwrap();
        let xs: Vec<f64> = (0..10).map(f64::from).collect();
        let ys: Vec<f64> = (0..10).map(|n| f64::from(n % 7)).collect();
        m.add(&[column(&xs), column(&ys)]).unwrap();
        let ScalarValue::List(list) = m.finish().unwrap() else { panic!("not a list") };
        let rows = list.value(0);
        let rows = rows.as_any().downcast_ref::<ListArray>().unwrap();
        let second = rows.value(1);
        let second = second.as_any().downcast_ref::<Float64Array>().unwrap();
        assert_eq!(second.values().to_vec(), vec![0.9, 3.84]);
    }

    /// chdb: largestTriangleThreeBuckets(4) of seven points keeps (1,10),(2,20),(4,30),(7,8).
    #[test]
    fn lttb_points() {
        let mut l = Lttb { buckets: 4, sample: Sample::default(), point_type: DataType::Null };
        l.add(&[column(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]), column(&[10.0, 20.0, 15.0, 30.0, 5.0, 25.0, 8.0])]).unwrap();
        assert_eq!(l.points(), vec![(1.0, 10.0), (2.0, 20.0), (4.0, 30.0), (7.0, 8.0)]);
    }
}
