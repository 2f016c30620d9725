//! ClickHouse types for the rows `arrayJoin` / `ARRAY JOIN` produce.
//!
//! Both are planned as DataFusion's `Unnest`, whose output field for an unnested list is
//! a new field: always nullable, without the element field's metadata. ClickHouse's
//! `arrayJoin(Array(T))` is `T`: a `Date` stays `Date` (not `Date32`), an enum keeps its
//! names, and nothing becomes `Nullable` (arrayJoin drops rows of empty arrays rather than
//! making NULLs; only a NULL list, which ClickHouse cannot have, still unnests to NULL).
//!
//! So each unnested list column gets its element's field back, and the nodes above
//! recompute their schemas. This runs on the optimized plan, just before physical
//! planning (which takes `UnnestExec`'s schema from the node): optimizer rules rebuild
//! `Unnest` nodes with DataFusion's schema, and literal typing changes element types.

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::Transformed;
use datafusion::common::DFSchema;
use datafusion::logical_expr::LogicalPlan;
use granary_common::Result;

pub(crate) fn restore_element_types(plan: LogicalPlan) -> Result<LogicalPlan> {
    let mut changed = false;
    let out = plan.transform_up_with_subqueries(|node| {
        let node = match node {
            LogicalPlan::Unnest(mut unnest) => {
                let input_schema = unnest.input.schema().clone();
                let mut fields: Vec<_> = unnest.schema.iter().map(|(q, f)| (q.cloned(), f.clone())).collect();
                let mut restored = false;
                for (input_index, list) in &unnest.list_type_columns {
                    if list.depth != 1 {
                        continue;
                    }
                    let list_field = input_schema.field(*input_index);
                    let element = match list_field.data_type() {
                        DataType::List(element) | DataType::LargeList(element) | DataType::FixedSizeList(element, _) => element.clone(),
                        _ => continue,
                    };
                    let Ok(position) = unnest.schema.index_of_column(&list.output_column) else { continue };
                    let (_, current) = &fields[position];
                    // A NULL list (possible in Arrow, not in ClickHouse) still unnests to NULL.
                    let nullable = element.is_nullable() || list_field.is_nullable();
                    let field = element.as_ref().clone().with_name(current.name()).with_nullable(nullable);
                    if field != *current.as_ref() {
                        fields[position].1 = Arc::new(field);
                        restored = true;
                    }
                }
                if restored {
                    let schema = DFSchema::new_with_metadata(fields, unnest.schema.metadata().clone())?;
                    unnest.schema = Arc::new(schema.with_functional_dependencies(unnest.schema.functional_dependencies().clone())?);
                    changed = true;
                    return Ok(Transformed::yes(LogicalPlan::Unnest(unnest)));
                }
                LogicalPlan::Unnest(unnest)
            }
            other if changed => return Ok(Transformed::yes(other.recompute_schema()?)),
            other => other,
        };
        Ok(Transformed::no(node))
    })?;
    Ok(out.data)
}
