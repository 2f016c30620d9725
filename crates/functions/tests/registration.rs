//! Granary's functions must win over DataFusion's built-ins of the same names in every
//! state built from the registered one, whatever the hash-map order.

use datafusion::execution::session_state::SessionStateBuilder;

#[test]
fn replacements_survive_rebuilds() {
    for _ in 0..20 {
        let mut state = SessionStateBuilder::new().with_default_features().build();
        granary_functions::register_all(&mut state).unwrap();
        for _ in 0..3 {
            let rebuilt = SessionStateBuilder::new_from_existing(state.clone()).build();
            let avg = rebuilt.aggregate_functions().get("avg").unwrap();
            assert_eq!(avg.return_type(&[datafusion::arrow::datatypes::DataType::UInt64]).unwrap(), datafusion::arrow::datatypes::DataType::Float64);
            let empty = rebuilt.scalar_functions().get("empty").unwrap();
            assert!(empty.aliases().iter().all(|a| a != "array_empty"), "DataFusion's empty came back: {:?}", empty.aliases());
            let avg_names: Vec<String> = rebuilt
                .aggregate_functions()
                .iter()
                .filter(|(_, f)| f.name() == "avg" || f.aliases().iter().any(|a| a == "avg"))
                .map(|(k, f)| format!("{k}->{}{:?} {:p}", f.name(), f.aliases(), std::sync::Arc::as_ptr(f)))
                .collect();
            let ours = rebuilt.aggregate_functions().get("avg").map(|f| std::sync::Arc::as_ptr(f));
            assert!(
                rebuilt.aggregate_functions().iter().filter(|(_, f)| f.name() == "avg").all(|(_, f)| Some(std::sync::Arc::as_ptr(f)) == ours),
                "{avg_names:?}"
            );
        }
    }
}
