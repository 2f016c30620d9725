//! Plane geometry: `pointInEllipses`, `pointInPolygon`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_numeric, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![point_in_ellipses(), point_in_polygon()]
}

fn floats(ctx: &ExecCtx, i: usize) -> DfResult<Vec<f64>> {
    let column = datafusion::arrow::compute::cast(&ctx.array(i)?, &DataType::Float64)?;
    Ok(column.as_primitive::<Float64Type>().values().to_vec())
}

/// `pointInEllipses(x, y, x0, y0, a0, b0, ...)`: 1 when the point is inside (or on)
/// one of the axis-aligned ellipses.
fn point_in_ellipses() -> ScalarUDF {
    ScalarDef::new(
        "pointInEllipses",
        Arity::at_least(0),
        |ctx| {
            let n = ctx.arg_count();
            if n < 6 || (n - 2) % 4 != 0 {
                return Err(ch_error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Incorrect number of arguments of function pointInEllipses. Must be 2 for your point plus 4 * N for ellipses (x_i, y_i, a_i, b_i)",
                ));
            }
            for i in 0..n {
                if ctx.dt(i) != &DataType::Float64 {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Illegal type {} of argument {} of function pointInEllipses. Must be Float64", ctx.ch(i), i + 1),
                    ));
                }
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let columns: Vec<Vec<f64>> = (0..ctx.args.len()).map(|i| floats(ctx, i)).collect::<DfResult<_>>()?;
            let inside = (0..ctx.len).map(|row| {
                let (x, y) = (columns[0][row], columns[1][row]);
                let any = columns[2..].chunks_exact(4).any(|e| {
                    let (dx, dy) = ((x - e[0][row]) / e[2][row], (y - e[1][row]) / e[3][row]);
                    dx * dx + dy * dy <= 1.0
                });
                u8::from(any)
            });
            Ok(Arc::new(UInt8Array::from_iter_values(inside)) as ArrayRef)
        },
    )
    .build()
}

/// The vertices of the ring in row `row` of an `Array(Tuple(x, y))` column.
fn ring(column: &ArrayRef, row: usize) -> DfResult<Vec<(f64, f64)>> {
    let list = column.as_list::<i32>();
    let points = list.value(row);
    let points = points.as_struct();
    let xs = datafusion::arrow::compute::cast(points.column(0), &DataType::Float64)?;
    let ys = datafusion::arrow::compute::cast(points.column(1), &DataType::Float64)?;
    let (xs, ys) = (xs.as_primitive::<Float64Type>(), ys.as_primitive::<Float64Type>());
    Ok((0..points.len()).map(|i| (xs.value(i), ys.value(i))).collect())
}

/// Even-odd rule: whether a horizontal ray from the point crosses the ring an odd number of times.
fn inside_ring(x: f64, y: f64, vertices: &[(f64, f64)]) -> bool {
    let mut inside = false;
    let n = vertices.len();
    for i in 0..n {
        let (xi, yi) = vertices[i];
        let (xj, yj) = vertices[(i + n - 1) % n];
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            inside = !inside;
        }
    }
    inside
}

fn is_point_tuple(t: &ChType) -> bool {
    matches!(t.strip_nullable(), ChType::Tuple(e) if e.len() == 2 && e.iter().all(|(_, t)| is_numeric(&t.to_arrow())))
}

/// `pointInPolygon((x, y), [(x1, y1), ...] [, hole, ...])`: 1 when the point is inside
/// the polygon and outside its holes.
fn point_in_polygon() -> ScalarUDF {
    ScalarDef::new(
        "pointInPolygon",
        Arity::at_least(2),
        |ctx| {
            if !is_point_tuple(&ctx.ch(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The first argument of function pointInPolygon must be a tuple of two numbers, got {}", ctx.ch(0))));
            }
            for i in 1..ctx.arg_count() {
                let ok = matches!(ctx.ch(i), ChType::Array(inner) if is_point_tuple(&inner));
                if !ok {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Argument {} of function pointInPolygon must be an array of tuples of two numbers, got {}", i + 1, ctx.ch(i)),
                    ));
                }
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let point = ctx.array(0)?;
            let point = point.as_struct();
            let xs = datafusion::arrow::compute::cast(point.column(0), &DataType::Float64)?;
            let ys = datafusion::arrow::compute::cast(point.column(1), &DataType::Float64)?;
            let (xs, ys) = (xs.as_primitive::<Float64Type>(), ys.as_primitive::<Float64Type>());
            let rings: Vec<ArrayRef> = (1..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<_>>()?;
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let (x, y) = (xs.value(row), ys.value(row));
                let mut inside = inside_ring(x, y, &ring(&rings[0], row)?);
                for hole in &rings[1..] {
                    if inside && inside_ring(x, y, &ring(hole, row)?) {
                        inside = false;
                    }
                }
                out.push(u8::from(inside));
            }
            Ok(Arc::new(UInt8Array::from(out)) as ArrayRef)
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_odd_rule() {
        let polygon = [(6.0, 0.0), (8.0, 4.0), (5.0, 8.0), (0.0, 2.0)];
        assert!(inside_ring(3.0, 3.0, &polygon));
        assert!(!inside_ring(0.0, 0.0, &[(1.0, 1.0), (2.0, 1.0), (2.0, 2.0)]));
    }
}
