//! Random values of distributions and random text: `randUniform`, `randNormal`,
//! `randLogNormal`, `randExponential`, `randChiSquared`, `randStudentT`, `randFisherF`,
//! `randBernoulli`, `randBinomial`, `randNegativeBinomial`, `randPoisson`,
//! `randCanonical`, `randConstant`, `randomString`, `randomFixedString`,
//! `randomPrintableASCII`, `randomStringUTF8`, `fuzzBits`.
//!
//! The values come from the SplitMix64 generator of `rand()` (seeded per block), with
//! the textbook samplers (Box-Muller, Marsaglia-Tsang gamma); ClickHouse's own values
//! are random too, so only the types, ranges and lengths can match it. Extra trailing
//! arguments are accepted and ignored, as ClickHouse allows them to keep calls apart.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, FixedSizeBinaryBuilder, Float64Array, UInt32Array, UInt64Array, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_float, is_integer, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::string::{require_text, text_bytes};
use crate::system::SplitMix;
use crate::text::ByteStrings;

/// A sampler of one distribution, given the row's parameters.
type Sampler = fn(&mut SplitMix, &[f64]) -> f64;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        distribution("randUniform", 2, ChType::Float64, uniform),
        distribution("randNormal", 2, ChType::Float64, |rng, p| p[0] + p[1] * standard_normal(rng)),
        distribution("randLogNormal", 2, ChType::Float64, |rng, p| (p[0] + p[1] * standard_normal(rng)).exp()),
        distribution("randExponential", 1, ChType::Float64, |rng, p| -open_unit(rng).ln() / p[0]),
        distribution("randChiSquared", 1, ChType::Float64, |rng, p| 2.0 * gamma(rng, p[0] / 2.0)),
        distribution("randStudentT", 1, ChType::Float64, |rng, p| standard_normal(rng) / (2.0 * gamma(rng, p[0] / 2.0) / p[0]).sqrt()),
        distribution("randFisherF", 2, ChType::Float64, |rng, p| (2.0 * gamma(rng, p[0] / 2.0) / p[0]) / (2.0 * gamma(rng, p[1] / 2.0) / p[1])),
        distribution("randBernoulli", 1, ChType::UInt8, |rng, p| f64::from(u8::from(unit(rng) < p[0]))),
        distribution("randBinomial", 2, ChType::UInt64, binomial),
        distribution("randNegativeBinomial", 2, ChType::UInt64, negative_binomial),
        distribution("randPoisson", 1, ChType::UInt64, |rng, p| poisson(rng, p[0])),
        distribution("randCanonical", 0, ChType::Float64, |rng, _| unit(rng)),
        rand_constant(),
        random_text("randomString", Alphabet::Bytes),
        random_text("randomPrintableASCII", Alphabet::Printable),
        random_text("randomStringUTF8", Alphabet::Utf8),
        random_fixed_string(),
        fuzz_bits(),
    ]
}

/// Uniform in [0, 1).
fn unit(rng: &mut SplitMix) -> f64 {
    (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

/// Uniform in (0, 1], for logarithms.
fn open_unit(rng: &mut SplitMix) -> f64 {
    1.0 - unit(rng)
}

fn uniform(rng: &mut SplitMix, p: &[f64]) -> f64 {
    p[0] + (p[1] - p[0]) * unit(rng)
}

/// Box-Muller.
fn standard_normal(rng: &mut SplitMix) -> f64 {
    (-2.0 * open_unit(rng).ln()).sqrt() * (2.0 * std::f64::consts::PI * unit(rng)).cos()
}

/// Gamma(shape, 1) by Marsaglia and Tsang (shapes below 1 boosted by U^(1/shape)).
fn gamma(rng: &mut SplitMix, shape: f64) -> f64 {
    if shape.is_nan() || shape <= 0.0 {
        return f64::NAN;
    }
    if shape < 1.0 {
        return gamma(rng, shape + 1.0) * open_unit(rng).powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v > 0.0 && open_unit(rng).ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// Counts events of a Poisson process with rate `mean` in unit time: exact (Knuth) for
/// small means, a rounded normal approximation for large ones.
fn poisson(rng: &mut SplitMix, mean: f64) -> f64 {
    if mean.is_nan() || mean <= 0.0 {
        return 0.0;
    }
    if mean > 500.0 {
        return (mean + mean.sqrt() * standard_normal(rng)).round().max(0.0);
    }
    let limit = (-mean).exp();
    let mut product = unit(rng);
    let mut count = 0.0;
    while product > limit {
        product *= unit(rng);
        count += 1.0;
    }
    count
}

fn binomial(rng: &mut SplitMix, p: &[f64]) -> f64 {
    let (n, probability) = (p[0].max(0.0).round() as u64, p[1]);
    if n > 10_000 {
        let mean = n as f64 * probability;
        let sd = (mean * (1.0 - probability)).sqrt();
        return (mean + sd * standard_normal(rng)).round().clamp(0.0, n as f64);
    }
    (0..n).filter(|_| unit(rng) < probability).count() as f64
}

/// Failures before the `r`-th success: Poisson with a gamma-distributed mean.
fn negative_binomial(rng: &mut SplitMix, p: &[f64]) -> f64 {
    let (r, probability) = (p[0], p[1]);
    if probability >= 1.0 {
        return 0.0;
    }
    let mean = gamma(rng, r) * (1.0 - probability) / probability;
    poisson(rng, mean)
}

fn require_numbers(ctx: &RetCtx, count: usize) -> DfResult<()> {
    for i in 0..count {
        let t = ctx.dt(i);
        if !(is_integer(t) || is_float(t)) {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Illegal type {} of argument of function {}, expected Float64 or integer", ctx.ch(i), ctx.name),
            ));
        }
    }
    Ok(())
}

/// The parameter checks ClickHouse makes before drawing.
fn check_parameters(name: &str, p: &[f64]) -> DfResult<()> {
    let probability = match name {
        "randBernoulli" => Some(p[0]),
        "randBinomial" | "randNegativeBinomial" => Some(p[1]),
        _ => None,
    };
    if probability.is_some_and(|q| !(0.0..=1.0).contains(&q)) {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Argument of function {name} should be inside [0, 1] because it is a probability")));
    }
    if name == "randUniform" && p[0] > p[1] {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Argument min ({}) of function randUniform should not be greater than max ({})", p[0], p[1])));
    }
    Ok(())
}

fn distribution(name: &'static str, parameters: usize, result: ChType, sample: Sampler) -> ScalarUDF {
    let result_type = result.clone();
    ScalarDef::new(
        name,
        Arity::at_least(parameters),
        move |ctx| {
            require_numbers(ctx, parameters)?;
            Ok(result_type.clone())
        },
        move |ctx| {
            let columns: Vec<Float64Array> =
                (0..parameters).map(|i| Ok(datafusion::arrow::compute::cast(&ctx.array(i)?, &DataType::Float64)?.as_primitive::<Float64Type>().clone())).collect::<DfResult<_>>()?;
            let mut rng = SplitMix::seeded();
            let mut values = Vec::with_capacity(ctx.len);
            let mut row_parameters = vec![0.0; parameters];
            for row in 0..ctx.len {
                for (slot, column) in row_parameters.iter_mut().zip(&columns) {
                    *slot = column.value(row);
                }
                check_parameters(ctx.name, &row_parameters)?;
                values.push(sample(&mut rng, &row_parameters));
            }
            Ok(match result {
                ChType::UInt8 => Arc::new(UInt8Array::from_iter_values(values.iter().map(|v| *v as u8))) as ArrayRef,
                ChType::UInt64 => Arc::new(UInt64Array::from_iter_values(values.iter().map(|v| *v as u64))) as ArrayRef,
                _ => Arc::new(Float64Array::from(values)) as ArrayRef,
            })
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

/// One random UInt32 for the whole block.
fn rand_constant() -> ScalarUDF {
    ScalarDef::new(
        "randConstant",
        Arity::at_least(0),
        |_| Ok(ChType::UInt32),
        |ctx| {
            let value = (SplitMix::seeded().next() >> 32) as u32;
            Ok(Arc::new(UInt32Array::from(vec![value; ctx.len])) as ArrayRef)
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

#[derive(Clone, Copy)]
enum Alphabet {
    /// Any byte.
    Bytes,
    /// ASCII 32..=126.
    Printable,
    /// Valid code points (no surrogates), `n` of them.
    Utf8,
}

fn length_argument(ctx: &ExecCtx, row: usize, lengths: &datafusion::arrow::array::Int64Array) -> DfResult<usize> {
    let n = lengths.value(row);
    if !(0..=1 << 30).contains(&n) {
        return Err(ch_error(ErrorCode::TOO_LARGE_STRING_SIZE, format!("Too large string size in function {}", ctx.name)));
    }
    Ok(n as usize)
}

fn random_text(name: &'static str, alphabet: Alphabet) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(1),
        |ctx| {
            if !is_integer(ctx.dt(0)) {
                return Err(crate::args::illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let lengths = datafusion::arrow::compute::cast(&ctx.array(0)?, &DataType::Int64)?;
            let lengths = lengths.as_primitive::<datafusion::arrow::datatypes::Int64Type>().clone();
            let mut rng = SplitMix::seeded();
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut buffer = [0u8; 4];
            for row in 0..ctx.len {
                let n = length_argument(ctx, row, &lengths)?;
                for _ in 0..n {
                    match alphabet {
                        // Bytes need not be valid UTF-8; the String column repairs them.
                        Alphabet::Bytes => out.push_byte(rng.next() as u8),
                        Alphabet::Printable => out.push_byte(32 + (rng.next() % 95) as u8),
                        Alphabet::Utf8 => {
                            let c = loop {
                                if let Some(c) = char::from_u32((rng.next() % 0x11_0000) as u32) {
                                    break c;
                                }
                            };
                            out.extend(c.encode_utf8(&mut buffer).as_bytes());
                        }
                    }
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

fn random_fixed_string() -> ScalarUDF {
    ScalarDef::new(
        "randomFixedString",
        Arity::exact(1),
        |ctx| {
            let n = ctx.const_int(0, "length")?;
            if n <= 0 {
                return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "FixedString size must be positive"));
            }
            Ok(ChType::FixedString(n as usize))
        },
        |ctx| {
            let n = match ctx.ret_type() {
                DataType::FixedSizeBinary(n) => *n,
                _ => 1,
            };
            let mut rng = SplitMix::seeded();
            let mut out = FixedSizeBinaryBuilder::with_capacity(ctx.len, n);
            let mut value = vec![0u8; n as usize];
            for _ in 0..ctx.len {
                value.iter_mut().for_each(|b| *b = rng.next() as u8);
                out.append_value(&value)?;
            }
            Ok(Arc::new(out.finish()) as ArrayRef)
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

/// `fuzzBits(s, p)`: each bit of `s` flipped with probability `p`.
fn fuzz_bits() -> ScalarUDF {
    ScalarDef::new(
        "fuzzBits",
        Arity::exact(2),
        |ctx| {
            require_text(ctx, 0)?;
            let probability = ctx.scalar(1).filter(|_| is_float(ctx.dt(1))).and_then(|s| s.cast_to(&DataType::Float64).ok()).and_then(|s| match s {
                datafusion::common::ScalarValue::Float64(Some(v)) => Some(v),
                _ => None,
            });
            match probability {
                Some(p) if (0.0..=1.0).contains(&p) => Ok(ChType::String),
                Some(_) => Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "Second argument of function fuzzBits must be a probability in [0, 1]")),
                None => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Second argument of function fuzzBits must be constant float")),
            }
        },
        |ctx| {
            let probability = match ctx.scalar(1).map(|s| s.cast_to(&DataType::Float64)) {
                Some(Ok(datafusion::common::ScalarValue::Float64(Some(v)))) => v,
                _ => 0.0,
            };
            let input = ctx.array(0)?;
            let text = text_bytes(&input);
            let mut rng = SplitMix::seeded();
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                for &byte in text.value(row) {
                    let mask = (0..8).fold(0u8, |m, bit| if unit(&mut rng) < probability { m | (1 << bit) } else { m });
                    out.push_byte(byte ^ mask);
                }
                out.finish_value()?;
            }
            out.finish(input.nulls().cloned())
        },
    )
    .volatile()
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samplers_stay_in_their_ranges() {
        let mut rng = SplitMix::seeded();
        for _ in 0..1000 {
            let u = uniform(&mut rng, &[2.0, 3.0]);
            assert!((2.0..3.0).contains(&u));
            assert!(gamma(&mut rng, 0.5) > 0.0);
            assert!(binomial(&mut rng, &[10.0, 0.5]) <= 10.0);
            assert!(poisson(&mut rng, 3.0) >= 0.0);
        }
        let mean: f64 = (0..20_000).map(|_| standard_normal(&mut rng)).sum::<f64>() / 20_000.0;
        assert!(mean.abs() < 0.05, "{mean}");
    }
}
