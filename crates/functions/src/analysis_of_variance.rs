//! `analysisOfVariance(value, group)` (alias `anova`): one-way ANOVA as
//! `Tuple(f_statistic, p_value)`, on ClickHouse's `AnalysisOfVarianceMoments`: per group
//! (the group number is an index) the sum, the sum of squares and the count, which is
//! also the state (three vectors, each its size and then its values).

use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{read_f64, read_u64, NativeState, NumType, Spec};
use crate::states::{get_varuint, put_varuint};

/// `AnalysisOfVarianceMoments::MAX_GROUPS_NUMBER`.
const MAX_GROUPS: u64 = 1024 * 1024;

#[derive(Debug)]
struct AnovaSpec;

pub(crate) fn analysis_of_variance(_params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    Ok(Arc::new(AnovaSpec))
}

fn result_type() -> ChType {
    ChType::Tuple(vec![("f_statistic".to_string(), ChType::Float64), ("p_value".to_string(), ChType::Float64)])
}

impl Spec for AnovaSpec {
    fn name(&self) -> &str {
        "analysisOfVariance"
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if args.len() != 2 {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function analysisOfVariance requires two arguments"));
        }
        if NumType::of(&args[0]).is_none() && !matches!(args[0], ChType::Decimal(..)) || matches!(args[0], ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..)) {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Aggregate function analysisOfVariance only supports numerical argument types"));
        }
        if !matches!(args[1], ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64) {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Second argument of aggregate function analysisOfVariance should be a native unsigned integer"));
        }
        Ok(result_type())
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(Moments::default()))
    }
}

#[derive(Debug, Default)]
struct Moments {
    xs1: Vec<f64>,
    xs2: Vec<f64>,
    ns: Vec<u64>,
}

fn too_many_groups(got: u64) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::BAD_ARGUMENTS, format!("Too many groups for analysis of variance (should be no more than {MAX_GROUPS}, got {got})"))
}

impl Moments {
    fn resize(&mut self, size: u64) -> DfResult<()> {
        if self.xs1.len() as u64 >= size {
            return Ok(());
        }
        if size > MAX_GROUPS {
            return Err(too_many_groups(size));
        }
        let size = size as usize;
        self.xs1.resize(size, 0.0);
        self.xs2.resize(size, 0.0);
        self.ns.resize(size, 0);
        Ok(())
    }

    fn no_observations(&self, group: usize) -> DfResult<()> {
        if self.ns[group] == 0 {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("There is no observations for group {group}")));
        }
        Ok(())
    }

    /// ClickHouse's `getFStatistic` and `getPValue`, with their checks in their order.
    fn result(&self) -> DfResult<(f64, f64)> {
        let k = self.xs1.len() as u64;
        let n: u64 = self.ns.iter().sum();
        if k == 1 {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "There should be more than one group to calculate f-statistics"));
        }
        if k == n {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "There is only one observation in each group"));
        }
        if n == 0 {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "There are no observations to calculate mean value"));
        }
        let mean = self.xs1.iter().sum::<f64>() / n as f64;
        let mut between = 0.0;
        for i in 0..self.xs1.len() {
            self.no_observations(i)?;
            let group_mean = self.xs1[i] / self.ns[i] as f64;
            between += self.ns[i] as f64 * (group_mean - mean) * (group_mean - mean);
        }
        let mut within = 0.0;
        for i in 0..self.xs1.len() {
            let group_mean = self.xs1[i] / self.ns[i] as f64;
            within += self.xs2[i] + self.ns[i] as f64 * group_mean * group_mean - 2.0 * group_mean * self.xs1[i];
        }
        let f = (between * (n - k) as f64) / (within * (k - 1) as f64);
        if !f.is_finite() {
            return Ok((f, f64::NAN));
        }
        Ok((f, 1.0 - crate::distributions::fisher_f_cdf((k - 1) as f64, (n - k) as f64, f)))
    }
}

impl NativeState for Moments {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = datafusion::arrow::compute::cast(&columns[0], &datafusion::arrow::datatypes::DataType::Float64)?;
        let groups = datafusion::arrow::compute::cast(&columns[1], &datafusion::arrow::datatypes::DataType::UInt64)?;
        let values = values.as_any().downcast_ref::<datafusion::arrow::array::Float64Array>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "anova values"))?;
        let groups = groups.as_any().downcast_ref::<datafusion::arrow::array::UInt64Array>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "anova groups"))?;
        for (value, group) in values.values().iter().zip(groups.values()) {
            if *group == u64::MAX {
                return Err(too_many_groups(*group));
            }
            self.resize(group + 1)?;
            let g = *group as usize;
            self.xs1[g] += value;
            self.xs2[g] += value * value;
            self.ns[g] += 1;
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let floats = |input: &mut &[u8]| -> DfResult<Vec<f64>> {
            let n = get_varuint(input)?;
            if n > MAX_GROUPS {
                return Err(too_many_groups(n));
            }
            (0..n).map(|_| read_f64(input)).collect()
        };
        let (xs1, xs2) = (floats(input)?, floats(input)?);
        let n = get_varuint(input)?;
        if n > MAX_GROUPS {
            return Err(too_many_groups(n));
        }
        let ns = (0..n).map(|_| read_u64(input)).collect::<DfResult<Vec<u64>>>()?;
        self.resize(xs1.len() as u64)?;
        for i in 0..xs1.len() {
            self.xs1[i] += xs1[i];
            self.xs2[i] += xs2.get(i).copied().unwrap_or(0.0);
            self.ns[i] += ns.get(i).copied().unwrap_or(0);
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        for v in [&self.xs1, &self.xs2] {
            put_varuint(out, v.len() as u64);
            for x in v.iter() {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        put_varuint(out, self.ns.len() as u64);
        for n in &self.ns {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let (f, p) = self.result()?;
        crate::hypothesis_tests::tuple(&["f_statistic", "p_value"], &[f, p])
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.xs1.capacity() * 24
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_and_result_match_clickhouse() {
        // chdb: analysisOfVarianceState(x, g) over x in 1, 2, 3 with g = (x > 1) * 2.
        let mut m = Moments::default();
        let x: ArrayRef = Arc::new(datafusion::arrow::array::Float64Array::from(vec![1.0, 2.0, 3.0]));
        let g: ArrayRef = Arc::new(datafusion::arrow::array::UInt8Array::from(vec![0, 2, 2]));
        m.add(&[x, g]).ok();
        assert_eq!(
            crate::native_state::state_hex(&m),
            "03000000000000F03F0000000000000000000000000000144003000000000000F03F00000000000000000000000000002A4003010000000000000000000000000000000200000000000000"
        );
        assert!(m.result().is_err());
    }
}
