//! Vocabulary shared by every Granary crate.
//!
//! * [`codes`]: the one table of ClickHouse error codes (number, name, HTTP status).
//!   Everything that can fail carries an [`ErrorCode`]; the HTTP edge turns it into
//!   `Code: N. DB::Exception: ... (NAME)` and a status without guessing.
//! * [`error`]: the typed [`Error`] with a code, a message and a source chain.
//! * [`fs`]: durable (fsync + rename) writes of small files.
//! * [`hash`]: CityHash 1.0.2 (ClickHouse's `cityHash64` and block checksums).
//! * [`metrics`]: process-wide counters and gauges (`system.events`, `system.metrics`,
//!   `/metrics`).
//! * [`settings`]: the settings registry (name, type, default, description) that
//!   backs `SET`, `SETTINGS` clauses, URL parameters and `system.settings`.

pub mod codes;
pub mod error;
pub mod fs;
pub mod hash;
pub mod metrics;
pub mod progress;
pub mod settings;

pub use codes::ErrorCode;
pub use error::{Error, Result, ResultExt};
pub use progress::{ProgressSnapshot, QueryProgress};
pub use settings::{SettingKind, Settings, SETTINGS_REGISTRY};
