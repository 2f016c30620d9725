//! Arrow's view types (`Utf8View`, `BinaryView`) inside a query, their plain forms outside.
//!
//! Parquet string columns are read as views (`granary-io`'s file table); DataFusion's own
//! operators work on them, while Granary's functions, output formats and engines take
//! `Utf8`/`Binary`. [`without_views`] gives the type a view type stands for, at any depth,
//! for the casts at those boundaries.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef};

/// `t` with every `Utf8View` made `Utf8` and every `BinaryView` made `Binary`, nested
/// types included; `None` when `t` holds no view type.
pub fn without_views(t: &DataType) -> Option<DataType> {
    let field = |f: &FieldRef| -> Option<FieldRef> { without_views(f.data_type()).map(|t| Arc::new(f.as_ref().clone().with_data_type(t))) };
    match t {
        DataType::Utf8View => Some(DataType::Utf8),
        DataType::BinaryView => Some(DataType::Binary),
        DataType::List(f) => field(f).map(DataType::List),
        DataType::LargeList(f) => field(f).map(DataType::LargeList),
        DataType::ListView(f) => field(f).map(DataType::ListView),
        DataType::FixedSizeList(f, n) => field(f).map(|f| DataType::FixedSizeList(f, *n)),
        DataType::Map(f, sorted) => field(f).map(|f| DataType::Map(f, *sorted)),
        DataType::Dictionary(k, v) => without_views(v).map(|v| DataType::Dictionary(k.clone(), Box::new(v))),
        DataType::Struct(fields) => {
            let changed: Vec<Option<FieldRef>> = fields.iter().map(field).collect();
            if changed.iter().all(Option::is_none) {
                return None;
            }
            let fields: Vec<Field> = fields.iter().zip(changed).map(|(f, c)| c.unwrap_or_else(|| f.clone()).as_ref().clone()).collect();
            Some(DataType::Struct(fields.into()))
        }
        _ => None,
    }
}

/// Argument types for a function that does not take view types: DataFusion casts the
/// views to what this returns before calling it.
pub fn plain_arguments(arg_types: &[DataType]) -> Vec<DataType> {
    arg_types.iter().map(|t| without_views(t).unwrap_or_else(|| t.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_become_plain_at_any_depth() {
        assert_eq!(without_views(&DataType::Utf8View), Some(DataType::Utf8));
        assert_eq!(without_views(&DataType::BinaryView), Some(DataType::Binary));
        assert_eq!(without_views(&DataType::Utf8), None);
        assert_eq!(without_views(&DataType::Int32), None);
        let list = DataType::List(Arc::new(Field::new("item", DataType::Utf8View, true)));
        assert_eq!(without_views(&list), Some(DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))));
        let tuple = DataType::Struct(vec![Field::new("a", DataType::Int8, false), Field::new("b", DataType::Utf8View, true)].into());
        assert_eq!(
            without_views(&tuple),
            Some(DataType::Struct(vec![Field::new("a", DataType::Int8, false), Field::new("b", DataType::Utf8, true)].into()))
        );
        assert_eq!(plain_arguments(&[DataType::Utf8View, DataType::UInt8]), vec![DataType::Utf8, DataType::UInt8]);
    }
}
