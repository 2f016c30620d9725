//! Streaming input formats.
//!
//! Bytes arrive in any split. Each text format has a *scanner* that finds where the
//! next complete row ends (it resumes where it stopped, so a row spread over many
//! pushes is scanned once) and a *row parser* that reads the fields of one complete row
//! into the column builders. `rows::Streamer` drives both: it parses complete rows
//! straight from the pushed slice, keeps only the unfinished tail, and cuts batches of
//! `max_block_rows` rows.
//!
//! Chunk-parallel parsing is a pipeline in `rows::Streamer`: pushed bytes are cut into
//! chunks of whole rows as they arrive, a pool of parser threads parses each chunk into
//! its own `rows::Block`, and the batches are emitted in chunk order (row numbers in
//! errors are then chunk offset + row).

pub mod avro;
pub mod ipc;
pub(crate) mod classify;
pub(crate) mod conform;
pub mod custom;
pub mod delimited;
pub mod json;
pub mod json_columns;
pub mod json_compact;
pub mod json_document;
pub mod lines;
pub mod native;
pub mod parquet;
pub mod regexp;
pub(crate) mod rows;
pub mod rowbinary;
pub mod tskv;
pub mod values;
