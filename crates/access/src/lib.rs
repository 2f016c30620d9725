//! Access control: who may connect, and what they may do once in.
//!
//! * [`rights`]: privileges, the levels they are granted on (`*.*`, `db.*`, `db.t`) and
//!   sets of grants with partial revokes.
//! * [`entities`]: users (password, allowed networks), roles, settings profiles, quotas.
//! * [`control`]: [`AccessControl`], the entities of a server (read-only ones from the
//!   config, SQL-defined ones persisted under the data directory), login, and
//!   [`UserAccess`], the snapshot of one user's rights, settings and quotas that every
//!   query is checked against.
//! * [`command`]: CREATE USER / GRANT / ... as plain data, produced by the SQL front end.
//! * [`quota`]: quota consumption per interval.

pub mod command;
pub mod control;
pub mod entities;
pub mod quota;
pub mod rights;

pub use command::{AccessCommand, GrantTarget, UserChanges};
pub use control::{AccessControl, AccessOutcome, Entities, UserAccess};
pub use entities::{Authentication, Grantees, HostPattern, Quota, QuotaLimits, Role, RowPolicy, SettingValue, SettingsProfile, User};
pub use quota::{Consumption, QueryKind};
pub use rights::{AccessRights, Level, Privilege};
