//! ClickHouse's types for integer literals.
//!
//! ClickHouse gives an integer literal the smallest type that holds it (`1` is `UInt8`,
//! `-1` is `Int8`, `300` is `UInt16`), and every result type built on it follows
//! (`1 + 1` is `UInt16`). DataFusion's SQL planner makes every integer literal `Int64`
//! and offers no hook, and a literal must stay a literal through planning because
//! functions read constant arguments (`toDecimal32(x, 2)`) at plan time.
//!
//! So [`type_literals`] runs on the logical plan right after SQL planning: it marks every
//! `Int64` literal written in the query with [`LITERAL_METADATA_KEY`] in the literal's
//! field metadata (names are unchanged, so references between plan nodes stay valid)
//! and recomputes the schemas. Granary's scalar functions ([`crate::func`]) read a marked
//! literal argument as the narrowed value ([`narrow`]); a literal that is a whole result
//! column is replaced by its narrowed value. Literals that DataFusion folds later carry no
//! mark and keep their computed types: `toTypeName(toInt64(1))` stays `Int64`.
//!
//! Narrowing changes types above the literal: nodes without expressions of their own
//! (UNNEST, subquery aliases) get their schemas recomputed, and the parameters of lambdas
//! (`arrayMap(x -> x * 2, [1, 2])`, or over an array from a subquery) are typed again from
//! their arrays, innermost call first (see `resolve_lambda_types`).

use std::collections::BTreeMap;

use datafusion::arrow::datatypes::Field;
use datafusion::common::metadata::FieldMetadata;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::Alias;
use datafusion::logical_expr::{Expr, LogicalPlan};
use granary_common::Result;
use granary_types::ChType;

/// Field-metadata key marking a literal as written in the query (value `"1"`).
pub const LITERAL_METADATA_KEY: &str = "granary.literal";

/// Whether a field is that of a query literal (see the module docs).
pub fn is_query_literal(field: &Field) -> bool {
    field.metadata().get(LITERAL_METADATA_KEY).is_some_and(|v| v == "1")
}

/// The value of an integer literal in ClickHouse's type for it: the smallest unsigned
/// type for a non-negative value, the smallest signed type for a negative one.
pub fn narrow(value: &ScalarValue) -> Option<ScalarValue> {
    let v: i128 = match value {
        ScalarValue::Int64(Some(v)) => *v as i128,
        ScalarValue::UInt64(Some(v)) => *v as i128,
        _ => return None,
    };
    Some(if v >= 0 {
        if v <= u8::MAX as i128 {
            ScalarValue::UInt8(Some(v as u8))
        } else if v <= u16::MAX as i128 {
            ScalarValue::UInt16(Some(v as u16))
        } else if v <= u32::MAX as i128 {
            ScalarValue::UInt32(Some(v as u32))
        } else {
            ScalarValue::UInt64(Some(v as u64))
        }
    } else if v >= i8::MIN as i128 {
        ScalarValue::Int8(Some(v as i8))
    } else if v >= i16::MIN as i128 {
        ScalarValue::Int16(Some(v as i16))
    } else if v >= i32::MIN as i128 {
        ScalarValue::Int32(Some(v as i32))
    } else {
        ScalarValue::Int64(Some(v as i64))
    })
}

fn marker() -> FieldMetadata {
    FieldMetadata::new(BTreeMap::from([(LITERAL_METADATA_KEY.to_string(), "1".to_string())]))
}

fn mark(expr: Expr) -> datafusion::common::Result<Transformed<Expr>> {
    let marked = expr.transform_down(|e| {
        Ok(match e {
            Expr::Literal(value @ (ScalarValue::Int64(Some(_)) | ScalarValue::UInt64(Some(_))), None) => {
                Transformed::yes(Expr::Literal(value, Some(marker())))
            }
            other => Transformed::no(other),
        })
    })?;
    if !marked.transformed {
        return Ok(marked);
    }
    Ok(Transformed::yes(narrow_value_positions(marked.data)?))
}

/// A marked literal as its narrowed value (no mark); anything else unchanged.
fn narrowed_literal(expr: Expr) -> Expr {
    match expr {
        Expr::Literal(ref value, Some(ref m)) if m.inner().contains_key(LITERAL_METADATA_KEY) => match narrow(value) {
            Some(n) => Expr::Literal(n, None),
            None => expr,
        },
        other => other,
    }
}

fn is_marked_literal(expr: &Expr) -> bool {
    matches!(expr, Expr::Literal(_, Some(m)) if m.inner().contains_key(LITERAL_METADATA_KEY))
}

/// DataFusion's own constructs whose result type comes from their value operands (CASE
/// branches, `coalesce`/`greatest`/`least`, aggregate arguments, a lambda's body) never
/// see the mark that Granary's functions read, so a literal there becomes its narrowed
/// value: `CASE WHEN c THEN 1 ELSE 300 END` is UInt16 and `sum(1)` UInt64, as in
/// ClickHouse. DataFusion's coercion then finds the common type of the narrowed values.
fn narrow_value_positions(expr: Expr) -> datafusion::common::Result<Expr> {
    use datafusion::logical_expr::expr::{Case, Lambda, ScalarFunction};
    Ok(expr
        .transform_up(|e| {
            Ok(match e {
                Expr::Case(Case { expr, when_then_expr, else_expr })
                    if when_then_expr.iter().any(|(_, then)| is_marked_literal(then)) || else_expr.as_deref().is_some_and(is_marked_literal) =>
                {
                    let when_then_expr = when_then_expr.into_iter().map(|(when, then)| (when, Box::new(narrowed_literal(*then)))).collect();
                    let else_expr = else_expr.map(|e| Box::new(narrowed_literal(*e)));
                    Transformed::yes(Expr::Case(Case { expr, when_then_expr, else_expr }))
                }
                Expr::ScalarFunction(ScalarFunction { func, args })
                    if matches!(func.name(), "coalesce" | "greatest" | "least") && args.iter().any(is_marked_literal) =>
                {
                    let mut args: Vec<Expr> = args.into_iter().map(narrowed_literal).collect();
                    // ClickHouse's coalesce stops at its first argument that cannot be
                    // NULL: `coalesce(NULL, 1, 300)` is UInt8.
                    if func.name() == "coalesce" {
                        if let Some(first) = args.iter().position(|a| matches!(a, Expr::Literal(v, _) if !v.is_null())) {
                            args.truncate(first + 1);
                        }
                    }
                    Transformed::yes(Expr::ScalarFunction(ScalarFunction { func, args }))
                }
                Expr::AggregateFunction(mut aggregate) if aggregate.params.args.iter().any(is_marked_literal) => {
                    aggregate.params.args = std::mem::take(&mut aggregate.params.args).into_iter().map(narrowed_literal).collect();
                    Transformed::yes(Expr::AggregateFunction(aggregate))
                }
                Expr::Lambda(Lambda { params, body }) if is_marked_literal(&body) => {
                    Transformed::yes(Expr::Lambda(Lambda { params, body: Box::new(narrowed_literal(*body)) }))
                }
                other => Transformed::no(other),
            })
        })?
        .data)
}

/// [`type_literals`] for one expression planned on its own, over an already typed plan
/// (e.g. `INTERPOLATE (v AS v + 1)`).
pub fn type_expression_literals(expr: Expr) -> Result<Expr> {
    Ok(mark(expr)?.data)
}

/// A result column that is just a literal gets the literal's ClickHouse type.
fn narrow_projected(expr: Expr) -> Expr {
    match expr {
        Expr::Alias(Alias { expr, relation, name, metadata }) => match *expr {
            Expr::Literal(ref value, Some(ref m)) if m.inner().contains_key(LITERAL_METADATA_KEY) => match narrow(value) {
                Some(n) => Expr::Alias(Alias { expr: Box::new(Expr::Literal(n, None)), relation, name, metadata }),
                None => Expr::Alias(Alias { expr, relation, name, metadata }),
            },
            inner => Expr::Alias(Alias { expr: Box::new(inner), relation, name, metadata }),
        },
        Expr::Literal(ref value, Some(ref m)) if m.inner().contains_key(LITERAL_METADATA_KEY) => match narrow(value) {
            Some(n) => {
                let name = expr.schema_name().to_string();
                Expr::Literal(n, None).alias(name)
            }
            None => expr,
        },
        other => other,
    }
}

/// Marks the literals inside aggregate arguments and computed GROUP BY keys (`sum(x %
/// 1000)` must compute `x % 1000` with a UInt16 literal). Parent nodes refer to an
/// aggregate's outputs by name, so a changed expression keeps its old name as an alias.
fn mark_aggregate(aggregate: datafusion::logical_expr::Aggregate) -> datafusion::common::Result<Transformed<LogicalPlan>> {
    let mut changed = false;
    let mut keep_name = |expr: Expr| -> datafusion::common::Result<Expr> {
        // A grouping set's keys are named by DataFusion itself; an alias around the set
        // would turn it into one opaque key.
        if matches!(expr, Expr::Column(_) | Expr::GroupingSet(_)) {
            return Ok(expr);
        }
        let (inner, name) = match expr {
            Expr::Alias(Alias { expr, name, .. }) => (*expr, name),
            other => {
                let name = other.schema_name().to_string();
                (other, name)
            }
        };
        let marked = mark(inner)?;
        changed |= marked.transformed;
        Ok(marked.data.alias(name))
    };
    let group_expr = aggregate.group_expr.clone().into_iter().map(&mut keep_name).collect::<datafusion::common::Result<Vec<_>>>()?;
    let aggr_expr = aggregate.aggr_expr.clone().into_iter().map(&mut keep_name).collect::<datafusion::common::Result<Vec<_>>>()?;
    if !changed {
        return Ok(Transformed::no(LogicalPlan::Aggregate(aggregate)));
    }
    let rebuilt = datafusion::logical_expr::Aggregate::try_new(aggregate.input, group_expr, aggr_expr)?;
    Ok(Transformed::yes(LogicalPlan::Aggregate(rebuilt)))
}

/// The integer literal arguments of aggregates over a window as their narrowed values
/// (`sum(1) OVER ()` is UInt64, `max(1) OVER ()` UInt8), and the values and defaults of
/// ClickHouse's value window functions ([`narrowed_args`]). Window nodes are not marked (their output columns are named
/// after their expressions), so the literals are narrowed here directly, each changed
/// expression keeping its old name as an alias for the nodes above.
fn narrow_window(window: datafusion::logical_expr::Window) -> datafusion::common::Result<Transformed<LogicalPlan>> {
    let narrowable = |e: &Expr| matches!(e, Expr::Literal(value, None) if narrow(value).is_some());
    let mut changed = false;
    let exprs: Vec<Expr> = window
        .window_expr
        .iter()
        .map(|e| match e {
            Expr::WindowFunction(w) if narrowed_args(&w.fun).is_some_and(|n| w.params.args.iter().enumerate().any(|(i, a)| n(i) && narrowable(a))) => {
                changed = true;
                let narrowed = narrowed_args(&w.fun).unwrap_or(|_| false);
                let mut w = w.clone();
                w.params.args = std::mem::take(&mut w.params.args)
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| match a {
                        Expr::Literal(ref value, None) if narrowed(i) => narrow(value).map(|n| Expr::Literal(n, None)).unwrap_or(a),
                        other => other,
                    })
                    .collect();
                Expr::WindowFunction(w).alias(e.schema_name().to_string())
            }
            other => other.clone(),
        })
        .collect();
    if !changed {
        return Ok(Transformed::no(LogicalPlan::Window(window)));
    }
    Ok(Transformed::yes(LogicalPlan::Window(datafusion::logical_expr::Window::try_new(exprs, window.input)?)))
}

/// Which arguments of a window function are narrowed: all of an aggregate's; the value
/// and the default of ClickHouse's value functions (`lagInFrame(x, 1, 7)` has a UInt8
/// default, which the UInt64 `x` accepts), not their offsets.
fn narrowed_args(fun: &datafusion::logical_expr::WindowFunctionDefinition) -> Option<fn(usize) -> bool> {
    use datafusion::logical_expr::WindowFunctionDefinition;
    match fun {
        WindowFunctionDefinition::AggregateUDF(_) => Some(|_| true),
        WindowFunctionDefinition::WindowUDF(f) if crate::window::is_value_function(f.name()) => Some(|i| i != 1),
        _ => None,
    }
}

/// Gives the query's integer literals ClickHouse's types (see the module docs).
pub fn type_literals(plan: LogicalPlan) -> Result<LogicalPlan> {
    let out = plan.transform_up_with_subqueries(|node| {
        // LIMIT/OFFSET must stay Int64 for DataFusion; VALUES keeps its declared schema.
        // Aggregate and window output columns are named after their expressions, with a
        // literal's metadata in the name, so marking there would break references to them.
        if let LogicalPlan::Window(window) = node {
            return narrow_window(window);
        }
        if matches!(node, LogicalPlan::Limit(_) | LogicalPlan::Values(_)) {
            return Ok(Transformed::no(node));
        }
        // Nodes without expressions of their own keep the schema they were built with;
        // once a literal below them got its type, their output types change too.
        let (node, restated) = restate_schema(node)?;
        let marked = if let LogicalPlan::Aggregate(aggregate) = node {
            mark_aggregate(aggregate)?
        } else {
            let marked = node.map_expressions(mark)?;
            if marked.transformed {
                Transformed::yes(match marked.data {
                    LogicalPlan::Projection(p) => {
                        let exprs = p.expr.into_iter().map(narrow_projected).collect();
                        LogicalPlan::Projection(datafusion::logical_expr::Projection::try_new(exprs, p.input)?)
                    }
                    other => other.recompute_schema()?,
                })
            } else {
                marked
            }
        };
        // Lambda parameters get their types first: `greatest(toUInt128(y), x)` in a lambda
        // needs the array's element type of `x`, not the Int64 of a literal being planned.
        let typed_lambdas = resolve_lambda_types(marked.data)?;
        let wide = wide_value_supertypes(typed_lambdas.data)?;
        let (union, unified) = union_supertypes(wide.data)?;
        let transformed = marked.transformed || restated || typed_lambdas.transformed || wide.transformed || unified;
        // The casts of `wide_value_supertypes` change what lambdas return.
        let resolved = if wide.transformed { resolve_lambda_types(union)? } else { Transformed::no(union) };
        Ok(Transformed::new_transformed(resolved.data, transformed || resolved.transformed))
    })?;
    Ok(out.data)
}

/// `coalesce`, `greatest` and `least` of a projection over wide integers, their
/// arguments cast to ClickHouse's least supertype. DataFusion's coercion would find a
/// common Arrow decimal instead (`coalesce(NULL, toUInt256(1), 3)` would be
/// `Decimal(76, 0)`, `UInt128` with `Int64` `Decimal(39, 0)` rather than `Int256`).
/// Arguments without a supertype are left to DataFusion's coercion and its errors.
fn wide_value_supertypes(node: LogicalPlan) -> datafusion::common::Result<Transformed<LogicalPlan>> {
    use datafusion::logical_expr::expr::ScalarFunction;
    use datafusion::logical_expr::{ExprSchemable, Projection};
    let LogicalPlan::Projection(projection) = node else {
        return Ok(Transformed::no(node));
    };
    let schema = std::sync::Arc::clone(projection.input.schema());
    let is_wide = |t: &ChType| granary_types::wide::WideInt::of(t.strip_nullable().base()).is_some();
    let mut changed = false;
    let mut exprs = Vec::with_capacity(projection.expr.len());
    for expr in &projection.expr {
        let rewritten = expr.clone().transform_up(|e| match e {
            Expr::ScalarFunction(ScalarFunction { func, args }) if matches!(func.name(), "coalesce" | "greatest" | "least") => {
                let types = args.iter().map(|a| a.to_field(&schema).map(|(_, f)| ChType::from_field(&f))).collect::<datafusion::common::Result<Vec<_>>>()?;
                let target = match crate::supertype::least_supertype(&types) {
                    Ok(target) if types.iter().any(is_wide) => target.strip_nullable().clone(),
                    // ClickHouse's greatest/least of two arguments fails with its own check (code 43;
                    // with more, the supertype's error); DataFusion would compare them as decimals.
                    Err(_) if func.name() != "coalesce" && types.iter().any(is_wide) && types.len() == 2 => {
                        let message = format!("Illegal types {} and {} of arguments of function {}", types[0], types[1], func.name());
                        return Err(crate::args::ch_error(granary_common::ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message));
                    }
                    Err(no_supertype) if func.name() != "coalesce" && types.iter().any(is_wide) => return Err(no_supertype),
                    _ => return Ok(Transformed::no(Expr::ScalarFunction(ScalarFunction { func, args }))),
                };
                let args = args
                    .into_iter()
                    .zip(&types)
                    .map(|(arg, t)| match t.strip_nullable() {
                        base if *base == target || matches!(base, ChType::Nothing) => arg,
                        _ => crate::conversion::cast_to_chtype(arg, &if t.is_nullable() { target.clone().into_nullable() } else { target.clone() }),
                    })
                    .collect();
                Ok(Transformed::yes(Expr::ScalarFunction(ScalarFunction { func, args })))
            }
            other => Ok(Transformed::no(other)),
        })?;
        if !rewritten.transformed {
            exprs.push(expr.clone());
            continue;
        }
        changed = true;
        // Nodes above refer to the column by its name, which the casts would change.
        exprs.push(match rewritten.data {
            aliased @ Expr::Alias(_) => aliased,
            other => other.alias(expr.schema_name().to_string()),
        });
    }
    if !changed {
        return Ok(Transformed::no(LogicalPlan::Projection(projection)));
    }
    Ok(Transformed::yes(LogicalPlan::Projection(Projection::try_new(exprs, projection.input)?)))
}

/// A UNION's columns in ClickHouse's least supertype of its branches' types
/// (`SELECT 1 UNION ALL SELECT 300` is UInt16, `toUInt8(1)` with `toInt8(-1)` Int16), the
/// branches cast to it. The SQL planner gave the union DataFusion's coercion of the
/// branches while the literals were still Int64. Columns of types other than numbers
/// (and Nullable and Array of them), or without a common type, keep DataFusion's; kinds
/// with no supertype at all (a number with a String, an Array with a number) are
/// NO_COMMON_TYPE, not DataFusion's text or its own error.
fn union_supertypes(node: LogicalPlan) -> datafusion::common::Result<(LogicalPlan, bool)> {
    use datafusion::logical_expr::{col, Projection, Union};
    use std::sync::Arc;
    let LogicalPlan::Union(union) = node else { return Ok((node, false)) };
    fn handled(t: &ChType) -> bool {
        match t {
            ChType::Nullable(inner) | ChType::Array(inner) => handled(inner),
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => true,
            ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => true,
            ChType::Float32 | ChType::Float64 | ChType::Nothing => true,
            // Date with DateTime is DateTime (DataFusion's planner made it a nanosecond
            // timestamp: see `peel_union_cast`).
            ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..) => true,
            // String with FixedString is String (DataFusion has no common type for them).
            ChType::String | ChType::FixedString(_) => true,
            _ => false,
        }
    }
    fn non_null(t: &ChType) -> &ChType {
        match t {
            ChType::Nullable(inner) => inner,
            other => other,
        }
    }
    // Into the union's type: FixedString to String as CAST does (trailing zero bytes
    // dropped), which Arrow's cast cannot; the rest with Arrow's cast. The ClickHouse type
    // goes on the column too: Date and Date32, DateTime and DateTime64(0) share their
    // Arrow type, and DataFusion's union takes the last branch's metadata.
    let cast_to = |expr: Expr, from: &ChType, to: &ChType, name: &str| -> Expr {
        let same_arrow = from.to_arrow() == to.to_arrow();
        let converted = if same_arrow {
            expr
        } else if matches!(non_null(from), ChType::FixedString(_)) {
            let target = if from.is_nullable() { ChType::String.into_nullable() } else { ChType::String };
            crate::conversion::cast_to_chtype(expr, &target)
        } else {
            datafusion::logical_expr::cast(expr, to.to_arrow())
        };
        // Only where Arrow's type does not say it: metadata on a converted column that the
        // physical plan does not carry makes DataFusion reject the plan.
        if same_arrow || !to.to_arrow_field(name).metadata().is_empty() {
            let metadata = FieldMetadata::new(BTreeMap::from([(granary_types::CH_TYPE_METADATA_KEY.to_string(), to.to_string())]));
            converted.alias_with_metadata(name, Some(metadata))
        } else {
            converted.alias(name)
        }
    };
    let differs = |field: &Field, to: &ChType| field.data_type() != &to.to_arrow() || non_null(&ChType::from_field(field)) != non_null(to);
    let width = union.schema.fields().len();
    let mut targets: Vec<Option<ChType>> = Vec::with_capacity(width);
    for i in 0..width {
        let types: Vec<ChType> = union
            .inputs
            .iter()
            .map(|input| match peel_union_cast(input, i) {
                Some((_, field)) => ChType::from_field(&field),
                None => ChType::from_field(input.schema().field(i)),
            })
            .collect();
        if let Some(error) = crate::supertype::mixed_kinds(&types) {
            return Err(error);
        }
        let target = if types.iter().all(handled) { crate::supertype::least_supertype(&types).ok() } else { None };
        targets.push(target);
    }
    let mut changed = false;
    let mut inputs = Vec::with_capacity(union.inputs.len());
    for input in &union.inputs {
        let schema = input.schema();
        let needs_cast = (0..width).any(|i| targets[i].as_ref().is_some_and(|t| differs(schema.field(i), t)));
        if !needs_cast {
            inputs.push(Arc::clone(input));
            continue;
        }
        changed = true;
        // A date column DataFusion already cast for the union (Date and DateTime as
        // nanosecond timestamps) is cast from its own type instead.
        let peeled = (0..width).any(|i| targets[i].is_some() && peel_union_cast(input, i).is_some());
        if let (true, LogicalPlan::Projection(projection)) = (peeled, input.as_ref()) {
            let exprs = (0..width)
                .map(|i| match (&targets[i], peel_union_cast(input, i)) {
                    (Some(t), Some((inner, field))) => cast_to(inner, &ChType::from_field(&field), t, schema.field(i).name()),
                    _ => projection.expr[i].clone(),
                })
                .collect();
            inputs.push(Arc::new(LogicalPlan::Projection(Projection::try_new(exprs, Arc::clone(&projection.input))?)));
            continue;
        }
        let exprs = (0..width)
            .map(|i| {
                let (qualifier, field) = schema.qualified_field(i);
                let column = col(datafusion::common::Column::from((qualifier, field)));
                match &targets[i] {
                    Some(t) if differs(field, t) => cast_to(column, &ChType::from_field(field), t, field.name()),
                    _ => column,
                }
            })
            .collect();
        inputs.push(Arc::new(LogicalPlan::Projection(Projection::try_new(exprs, Arc::clone(input))?)));
    }
    // Date with Date32, DateTime with DateTime64(0): the same Arrow type, another
    // ClickHouse type, which only the union's field metadata carries.
    let types_differ = (0..width).any(|i| {
        targets[i].as_ref().is_some_and(|t| differs(union.schema.field(i), t))
    });
    if !changed && !types_differ {
        return Ok((LogicalPlan::Union(union), false));
    }
    // Every input now has the target types; the union keeps its own column names.
    let mut rebuilt = Union::try_new_with_loose_types(inputs)?;
    let fields: Vec<_> = (0..width)
        .map(|i| {
            let ours = union.schema.field(i);
            let theirs = rebuilt.schema.field(i);
            let nullable = theirs.is_nullable() || ours.is_nullable();
            let mut metadata = theirs.metadata().clone();
            if let Some(target) = &targets[i] {
                let target = if nullable { target.clone().into_nullable() } else { target.clone() };
                metadata.remove(granary_types::CH_TYPE_METADATA_KEY);
                metadata.extend(target.to_arrow_field(ours.name()).metadata().clone());
            }
            let field = datafusion::arrow::datatypes::Field::new(ours.name(), theirs.data_type().clone(), nullable).with_metadata(metadata);
            (union.schema.qualified_field(i).0.cloned(), Arc::new(field))
        })
        .collect();
    rebuilt.schema = Arc::new(datafusion::common::DFSchema::new_with_metadata(fields, union.schema.metadata().clone())?);
    Ok((LogicalPlan::Union(rebuilt), true))
}

/// The expression under the cast DataFusion's planner put on column `i` of a UNION
/// branch to its own common type, with that expression's field (its ClickHouse type).
fn peel_union_cast(input: &LogicalPlan, i: usize) -> Option<(Expr, datafusion::arrow::datatypes::FieldRef)> {
    let LogicalPlan::Projection(projection) = input else { return None };
    let mut expr = projection.expr.get(i)?;
    if let Expr::Alias(alias) = expr {
        expr = &alias.expr;
    }
    let (Expr::Cast(datafusion::logical_expr::Cast { expr: inner, .. }) | Expr::TryCast(datafusion::logical_expr::TryCast { expr: inner, .. })) = expr else {
        return None;
    };
    use datafusion::logical_expr::ExprSchemable;
    let (_, field) = inner.to_field(projection.input.schema()).ok()?;
    let field: datafusion::arrow::datatypes::FieldRef = field.into();
    let dated = |t: &ChType| matches!(t.base(), ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..));
    dated(&ChType::from_field(&field)).then(|| (inner.as_ref().clone(), field))
}

/// Recomputes the schema of a node whose output types follow its input's (UNNEST, a
/// subquery alias, a projection, a filter, a sort); whether it changed.
fn restate_schema(node: LogicalPlan) -> datafusion::common::Result<(LogicalPlan, bool)> {
    if !matches!(
        node,
        LogicalPlan::Unnest(_)
            | LogicalPlan::SubqueryAlias(_)
            | LogicalPlan::Filter(_)
            | LogicalPlan::Sort(_)
            | LogicalPlan::Projection(_)
            | LogicalPlan::Distinct(_)
    ) {
        return Ok((node, false));
    }
    let before = std::sync::Arc::clone(node.schema());
    let node = node.recompute_schema()?;
    let changed = node.schema().as_ref() != before.as_ref();
    Ok((node, changed))
}

/// A lambda's parameters were typed from its arrays while the SQL was planned, before
/// the literals got their types: an array of literals, or one from below
/// (`arrayCount(x -> x > 1, arr)` over a subquery's `[1, 2]`), may now have narrower
/// elements. The parameters are typed again from the arrays as they are now.
fn resolve_lambda_types(node: LogicalPlan) -> datafusion::common::Result<Transformed<LogicalPlan>> {
    let has_lambda = node.expressions().iter().any(|e| e.exists(|e| Ok(matches!(e, Expr::HigherOrderFunction(_)))).unwrap_or(false));
    if !has_lambda {
        return Ok(Transformed::no(node));
    }
    let schema = datafusion::logical_expr::utils::merge_schema(&node.inputs());
    let resolved = node.map_expressions(|e| {
        // Innermost calls first: DataFusion types a call's lambda parameters from its
        // arrays as they are typed at that moment, and an array may itself be the result
        // of a lambda call (`arraySort((x, y) -> y, arr, arrayMap(z -> -z, arr))`). A call
        // inside a lambda body that uses the outer lambda's parameters is typed with it.
        e.transform_up(|e| match e {
            Expr::HigherOrderFunction(_) if !has_free_lambda_variables(&e) => e.resolve_lambda_variables(&schema),
            other => Ok(Transformed::no(other)),
        })
    })?;
    if resolved.transformed {
        Ok(Transformed::yes(resolved.data.recompute_schema()?))
    } else {
        Ok(resolved)
    }
}

/// Whether `expr` uses a lambda parameter that no lambda inside it declares.
fn has_free_lambda_variables(expr: &Expr) -> bool {
    fn visit(expr: &Expr, bound: &mut Vec<String>, free: &mut bool) {
        match expr {
            Expr::LambdaVariable(v) => {
                if !bound.iter().any(|b| b == &v.name) {
                    *free = true;
                }
            }
            Expr::Lambda(lambda) => {
                let depth = bound.len();
                bound.extend(lambda.params.iter().cloned());
                visit(&lambda.body, bound, free);
                bound.truncate(depth);
            }
            other => {
                let _ = other.apply_children(|child| {
                    visit(child, bound, free);
                    Ok(if *free { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Continue })
                });
            }
        }
    }
    let mut free = false;
    visit(expr, &mut Vec::new(), &mut free);
    free
}

/// String literals compared with an expression of a type ClickHouse reads them as
/// (`=`, `!=`, `<`, ..., `IN`), made values of that type, as ClickHouse converts them
/// (DataFusion has no common type for the pairs):
/// - `FixedString(N)`: padded with zero bytes; a literal longer than N equals no value;
/// - `Enum8/16`: the element's value; a name that is no element equals no value;
/// - `IPv4`/`IPv6`: the parsed address; text that is no address is an error.
///
/// "Equals no value" makes `=` false, `!=` true, and drops the literal from an `IN`
/// list. Runs on nodes with one input (WHERE, SELECT, HAVING, ORDER BY), before the
/// analyzer.
pub fn fixed_string_literals(plan: LogicalPlan) -> Result<LogicalPlan> {
    use datafusion::logical_expr::{BinaryExpr, ExprSchemable, Operator};
    let out = plan.transform_up_with_subqueries(|node| {
        let schema = match node.inputs().as_slice() {
            [input] => input.schema().clone(),
            _ => return Ok(Transformed::no(node)),
        };
        let target_of = |expr: &Expr| -> Option<ChType> {
            let (_, field) = expr.to_field(&schema).ok()?;
            let t = ChType::from_field(&field).base().clone();
            matches!(t, ChType::FixedString(_) | ChType::Enum8(_) | ChType::Enum16(_) | ChType::IPv4 | ChType::IPv6).then_some(t)
        };
        let rewritten = node.map_expressions(|expr| {
            expr.transform_up(|e| match e {
                Expr::BinaryExpr(BinaryExpr { left, op, right }) if op.supports_propagation() || matches!(op, Operator::Eq | Operator::NotEq) => {
                    if let Some((l, r)) = time_comparison(&left, &right, &schema) {
                        return Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr { left: Box::new(l), op, right: Box::new(r) })));
                    }
                    let (target, literal, literal_left) = match (target_of(&left), target_of(&right)) {
                        (Some(t), None) => (t, &right, false),
                        (None, Some(t)) => (t, &left, true),
                        _ => return Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op, right }))),
                    };
                    match typed_literal(literal, &target)? {
                        Some(Some(value)) => {
                            let (l, r) = if literal_left { (Box::new(value), right) } else { (left, Box::new(value)) };
                            Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr { left: l, op, right: r })))
                        }
                        Some(None) if op == Operator::Eq => Ok(Transformed::yes(Expr::Literal(ScalarValue::Boolean(Some(false)), None))),
                        Some(None) if op == Operator::NotEq => Ok(Transformed::yes(Expr::Literal(ScalarValue::Boolean(Some(true)), None))),
                        _ => Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op, right }))),
                    }
                }
                // `has(tags, 'b')`, `indexOf(...)`, `countEqual(...)` over an array of such a type.
                Expr::ScalarFunction(mut call) if matches!(call.name(), "has" | "indexOf" | "indexOfAssumeSorted" | "countEqual") && call.args.len() == 2 => {
                    let element = call.args[0].to_field(&schema).ok().and_then(|(_, field)| match ChType::from_field(&field).base() {
                        ChType::Array(inner) => Some(inner.base().clone()),
                        _ => None,
                    });
                    let Some(target) = element.filter(|t| matches!(t, ChType::FixedString(_) | ChType::Enum8(_) | ChType::Enum16(_) | ChType::IPv4 | ChType::IPv6)) else {
                        return Ok(Transformed::no(Expr::ScalarFunction(call)));
                    };
                    match typed_literal(&call.args[1], &target)? {
                        Some(Some(value)) => {
                            call.args[1] = value;
                            Ok(Transformed::yes(Expr::ScalarFunction(call)))
                        }
                        _ => Ok(Transformed::no(Expr::ScalarFunction(call))),
                    }
                }
                Expr::InList(mut in_list) => {
                    let Some(target) = target_of(&in_list.expr) else { return Ok(Transformed::no(Expr::InList(in_list))) };
                    let mut changed = false;
                    let mut list = Vec::with_capacity(in_list.list.len());
                    for item in in_list.list {
                        match typed_literal(&item, &target)? {
                            Some(Some(value)) => {
                                list.push(value);
                                changed = true;
                            }
                            Some(None) => changed = true,
                            None => list.push(item),
                        }
                    }
                    if list.is_empty() {
                        return Ok(Transformed::yes(Expr::Literal(ScalarValue::Boolean(Some(in_list.negated)), None)));
                    }
                    in_list.list = list;
                    Ok(if changed { Transformed::yes(Expr::InList(in_list)) } else { Transformed::no(Expr::InList(in_list)) })
                }
                other => Ok(Transformed::no(other)),
            })
        })?;
        if rewritten.transformed {
            Ok(Transformed::yes(rewritten.data.recompute_schema()?))
        } else {
            Ok(rewritten)
        }
    })?;
    Ok(out.data)
}

/// A string literal as a value of `target`: `None` when `expr` is no string literal,
/// `Some(None)` when the text is no value of the type that can compare equal.
fn typed_literal(expr: &Expr, target: &ChType) -> datafusion::error::Result<Option<Option<Expr>>> {
    let Expr::Literal(ScalarValue::Utf8(Some(text)) | ScalarValue::LargeUtf8(Some(text)) | ScalarValue::Utf8View(Some(text)), _) = expr else {
        return Ok(None);
    };
    let literal = |value: ScalarValue| Some(Some(Expr::Literal(value, None)));
    Ok(match target {
        ChType::FixedString(width) => {
            if text.len() > *width {
                return Ok(Some(None));
            }
            let mut bytes = text.as_bytes().to_vec();
            bytes.resize(*width, 0);
            literal(ScalarValue::FixedSizeBinary(*width as i32, Some(bytes)))
        }
        ChType::Enum8(elements) | ChType::Enum16(elements) => match elements.iter().find(|(name, _)| name == text) {
            Some((_, value)) if matches!(target, ChType::Enum8(_)) => literal(ScalarValue::Int8(Some(*value as i8))),
            Some((_, value)) => literal(ScalarValue::Int16(Some(*value))),
            None => Some(None),
        },
        ChType::IPv4 => match granary_types::ip::parse_ipv4(text) {
            Some(address) => literal(ScalarValue::UInt32(Some(address))),
            None => return Err(crate::args::ch_error(granary_common::ErrorCode::CANNOT_PARSE_IPV4, format!("Cannot parse IPv4 {text}"))),
        },
        ChType::IPv6 => match granary_types::ip::parse_ipv6(text) {
            Some(bytes) => literal(ScalarValue::FixedSizeBinary(16, Some(bytes.to_vec()))),
            None => return Err(crate::args::ch_error(granary_common::ErrorCode::CANNOT_PARSE_IPV6, format!("Cannot parse IPv6 {text}"))),
        },
        _ => None,
    })
}

/// Operands of a comparison (outside the SELECT list, where DataFusion coerces them) of
/// a `Time`/`Time64` with a time of another precision (both in the finer type) or with
/// a number (the time as its seconds), as ClickHouse compares them; None otherwise.
fn time_comparison(left: &Expr, right: &Expr, schema: &datafusion::common::DFSchema) -> Option<(Expr, Expr)> {
    use datafusion::logical_expr::ExprSchemable;
    let type_of = |e: &Expr| e.to_field(schema).ok().map(|(_, f)| ChType::from_field(&f));
    let (lt, rt) = (type_of(left)?, type_of(right)?);
    let is_time = |t: &ChType| matches!(t.base(), ChType::Time | ChType::Time64(_));
    let is_number = |t: &ChType| t.base().to_arrow().is_numeric();
    let cast = |e: &Expr, t: &ChType, to: ChType| crate::conversion::cast_to_chtype(e.clone(), &if t.is_nullable() { to.into_nullable() } else { to });
    match (is_time(&lt), is_time(&rt)) {
        (true, true) if lt.base() != rt.base() => {
            let common = crate::supertype::least_supertype(&[lt.base().clone(), rt.base().clone()]).ok()?;
            Some((cast(left, &lt, common.clone()), cast(right, &rt, common)))
        }
        (true, false) if is_number(&rt) => Some((cast(left, &lt, ChType::Float64), right.clone())),
        (false, true) if is_number(&lt) => Some((left.clone(), cast(right, &rt, ChType::Float64))),
        _ => None,
    }
}

/// ClickHouse compares a String column with a number only through a common type, and
/// there is none (NO_COMMON_TYPE); a string literal is read as the number instead,
/// which DataFusion's coercion does too. DataFusion would also cast the column, so such
/// comparisons in WHERE, HAVING and ON are refused here, before the analyzer.
pub fn check_string_number_comparisons(plan: &LogicalPlan) -> Result<()> {
    use datafusion::arrow::datatypes::DataType;
    use datafusion::logical_expr::{BinaryExpr, ExprSchemable, Operator};
    let is_text = |t: &DataType| matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
    let is_number = |t: &DataType| t.is_numeric();
    let mut failure: Option<granary_common::Error> = None;
    plan.apply_with_subqueries(|node| {
        let schema = match node.inputs().as_slice() {
            [input] => input.schema().clone(),
            _ => return Ok(TreeNodeRecursion::Continue),
        };
        for expr in node.expressions() {
            expr.apply(|e| {
                let Expr::BinaryExpr(BinaryExpr { left, op, right }) = e else { return Ok(TreeNodeRecursion::Continue) };
                if !matches!(op, Operator::Eq | Operator::NotEq | Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq) {
                    return Ok(TreeNodeRecursion::Continue);
                }
                let (Ok(lt), Ok(rt)) = (left.get_type(&schema), right.get_type(&schema)) else { return Ok(TreeNodeRecursion::Continue) };
                let column_text = |side: &Expr, t: &DataType| is_text(t) && !matches!(side, Expr::Literal(..));
                let (text_side, number_side) = if column_text(left, &lt) && is_number(&rt) {
                    (lt.clone(), right.as_ref())
                } else if column_text(right, &rt) && is_number(&lt) {
                    (rt.clone(), left.as_ref())
                } else {
                    return Ok(TreeNodeRecursion::Continue);
                };
                let number_type = match number_side {
                    Expr::Literal(value, _) => narrow(value).map(|v| v.data_type()).unwrap_or_else(|| value.data_type()),
                    other => other.get_type(&schema).unwrap_or(DataType::Int64),
                };
                let names = [granary_types::ChType::from_arrow(&text_side, false), granary_types::ChType::from_arrow(&number_type, false)];
                failure = Some(granary_common::Error::new(
                    granary_common::ErrorCode::NO_COMMON_TYPE,
                    format!(
                        "There is no supertype for types {}, {} because some of them are String/FixedString/Enum and some of them are not",
                        names[0], names[1]
                    ),
                ));
                Ok(TreeNodeRecursion::Stop)
            })?;
            if failure.is_some() {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrows_like_clickhouse() {
        let n = |v: i64| narrow(&ScalarValue::Int64(Some(v))).unwrap();
        assert_eq!(n(1), ScalarValue::UInt8(Some(1)));
        assert_eq!(n(255), ScalarValue::UInt8(Some(255)));
        assert_eq!(n(256), ScalarValue::UInt16(Some(256)));
        assert_eq!(n(70000), ScalarValue::UInt32(Some(70000)));
        assert_eq!(n(5_000_000_000), ScalarValue::UInt64(Some(5_000_000_000)));
        assert_eq!(n(-1), ScalarValue::Int8(Some(-1)));
        assert_eq!(n(-129), ScalarValue::Int16(Some(-129)));
        assert_eq!(n(-40000), ScalarValue::Int32(Some(-40000)));
        assert_eq!(n(i64::MIN), ScalarValue::Int64(Some(i64::MIN)));
        assert_eq!(narrow(&ScalarValue::UInt64(Some(u64::MAX))), Some(ScalarValue::UInt64(Some(u64::MAX))));
        assert_eq!(narrow(&ScalarValue::Float64(Some(1.0))), None);
    }
}
