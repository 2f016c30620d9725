//! The ClickHouse HTTP interface.
//!
//! ```text
//!  TCP accept ─► hyper HTTP/1.1 connection (keep-alive) ─► handler::handle
//!     ├─ GET /, /ping, /replicas_status ─► "Ok."
//!     └─ query (URL `query` + body) ─► params (settings, database, format, session,
//!        param_*) ─► Instance::execute ─► headers (query id, format, timezone, summary)
//!        ─► body streamed from the query's output channel
//! ```
//!
//! Errors become `Code: N. DB::Exception: ... (NAME)` bodies with ClickHouse's HTTP
//! status and `X-ClickHouse-Exception-Code`. Modules: [`config`], [`server`] (listener,
//! connections, shutdown), [`handler`] (one request), [`compression`] (content codings
//! of request bodies and responses), [`connection`] (the connection's bytes, with
//! progress headers written while a query runs), [`sessions`], [`tls`] (the HTTPS
//! port's certificate).

pub mod compression;
pub mod config;
pub mod connection;
pub mod handler;
pub mod server;
pub mod sessions;
pub mod tls;

pub use config::ServerConfig;
pub use server::{run_server, ServerHandle};
