//! Where `AggregateFunction(f, T...)` values meet the binary formats.
//!
//! In `Native` and `RowBinary`, ClickHouse writes aggregate states back to back with no
//! length prefix: only the function knows where a state ends. The formats live below
//! the function library, so the library registers [`StateReader`] here at start-up
//! ([`set_state_reader`]) and the formats ask [`split_states`].

use std::sync::OnceLock;

use granary_common::{Error, ErrorCode, Result};

use crate::ChType;

/// Where each of `rows` states of `function` over `arguments` at the start of `bytes`
/// ends (offsets into `bytes`).
pub type StateReader = fn(function: &str, arguments: &[ChType], bytes: &[u8], rows: usize) -> Result<Vec<usize>>;

static READER: OnceLock<StateReader> = OnceLock::new();

/// Registers the function library's reader (the first registration wins).
pub fn set_state_reader(reader: StateReader) {
    let _ = READER.set(reader);
}

/// Where each of `rows` serialized states at the start of `bytes` ends.
pub fn split_states(function: &str, arguments: &[ChType], bytes: &[u8], rows: usize) -> Result<Vec<usize>> {
    let reader = READER.get().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "No aggregate function library is registered to read states"))?;
    reader(function, arguments, bytes, rows)
}
