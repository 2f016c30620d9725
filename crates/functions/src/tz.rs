//! Time zones and calendar arithmetic shared by conversions and date functions.
//!
//! * The *server* time zone is DataFusion's `datafusion.execution.time_zone` option
//!   (the lead sets it from the process `TZ`); when unset we fall back to `TZ` and then
//!   to UTC. `DateTime` values without a zone in their type (`Timestamp(_, None)`) are
//!   shown and decomposed in this zone, exactly like ClickHouse's `DateTime` without an
//!   explicit zone.
//! * Zone names are IANA names or fixed offsets (`+03:00`), parsed by Arrow's `Tz`.
//! * Civil-date conversion uses Howard Hinnant's branch-free algorithms on day numbers,
//!   so the hot loops never build `chrono` dates; only the UTC offset lookup goes
//!   through `chrono-tz`, and it is skipped for fixed-offset zones.

use std::str::FromStr;

use chrono::{DateTime, Offset, TimeZone};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::config::ConfigOptions;
use granary_common::ErrorCode;

use crate::args::{ch_error, DfResult};

/// A resolved time zone: the zone and, when it never changes offset, that offset.
#[derive(Clone, Copy, Debug)]
pub struct SessionTz {
    tz: Tz,
    fixed: Option<i64>,
}

/// Parses a ClickHouse time zone argument (`'Asia/Tokyo'`, `'UTC'`, `'+03:00'`).
pub fn parse_tz(name: &str) -> DfResult<SessionTz> {
    let tz = Tz::from_str(name)
        .map_err(|_| ch_error(ErrorCode::BAD_ARGUMENTS, format!("Cannot load time zone {name}")))?;
    let fixed = if matches!(name, "UTC" | "Etc/UTC" | "GMT" | "Etc/GMT" | "UCT" | "Universal" | "Zulu" | "Etc/Universal" | "Etc/Zulu") {
        Some(0)
    } else if name.starts_with('+') || name.starts_with('-') {
        let probe = DateTime::from_timestamp(0, 0).map(|d| d.naive_utc());
        probe.map(|p| tz.offset_from_utc_datetime(&p).fix().local_minus_utc() as i64)
    } else {
        None
    };
    Ok(SessionTz { tz, fixed })
}

/// The name of the server time zone: the session option, else `TZ`, else UTC.
pub(crate) fn server_tz_name(config: &ConfigOptions) -> String {
    if let Some(tz) = config.execution.time_zone.as_deref().filter(|s| !s.is_empty()) {
        return tz.to_string();
    }
    match std::env::var("TZ") {
        Ok(tz) if !tz.is_empty() => tz.trim_start_matches(':').to_string(),
        _ => "UTC".to_string(),
    }
}

impl SessionTz {
    pub fn from_config(config: &ConfigOptions) -> DfResult<SessionTz> {
        parse_tz(&server_tz_name(config))
    }

    /// The zone a value of `field` is shown in: its own, else the server's.
    pub fn for_field(field: &Field, config: &ConfigOptions) -> DfResult<SessionTz> {
        Self::for_type(field.data_type(), config)
    }

    pub fn for_type(dt: &DataType, config: &ConfigOptions) -> DfResult<SessionTz> {
        match dt {
            DataType::Timestamp(_, Some(tz)) => parse_tz(tz),
            _ => Self::from_config(config),
        }
    }

    /// Seconds east of UTC at the UTC instant `utc`.
    #[inline]
    pub fn offset_at_utc(self, utc: i64) -> i64 {
        if let Some(fixed) = self.fixed {
            return fixed;
        }
        match DateTime::from_timestamp(utc, 0) {
            Some(d) => self.tz.offset_from_utc_datetime(&d.naive_utc()).fix().local_minus_utc() as i64,
            None => 0,
        }
    }

    /// Local wall-clock seconds (since 1970-01-01 00:00 local) of a UTC instant.
    #[inline]
    pub fn to_local(self, utc: i64) -> i64 {
        utc + self.offset_at_utc(utc)
    }

    /// The UTC instant of local wall-clock seconds. ClickHouse's rules: in a DST gap
    /// the offset after the transition is used; in an overlap, the earlier instant.
    #[inline]
    pub fn to_utc(self, local: i64) -> i64 {
        if let Some(fixed) = self.fixed {
            return local - fixed;
        }
        // Two candidates: the offsets in force a day before and a day after. A zone
        // changes offset at most once in such a window in practice.
        let before = self.offset_at_utc(local - 86_400);
        let after = self.offset_at_utc(local + 86_400);
        let c1 = local - before;
        let c2 = local - after;
        let ok1 = self.to_local(c1) == local;
        let ok2 = self.to_local(c2) == local;
        match (ok1, ok2) {
            (true, true) => c1.min(c2),
            (true, false) => c1,
            (false, true) => c2,
            // In a gap: use the offset after the transition.
            (false, false) => c2,
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
#[inline]
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day number (Hinnant's `civil_from_days`).
#[inline]
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// ISO day of week, Monday = 1 .. Sunday = 7.
#[inline]
pub(crate) fn day_of_week(days: i64) -> u8 {
    // 1970-01-01 was a Thursday (4).
    ((days + 3).rem_euclid(7) + 1) as u8
}

/// Range of ClickHouse `Date` (UInt16 days): 1970-01-01 ..= 2149-06-06.
pub(crate) const DATE_MAX_DAYS: i64 = 65_535;
/// Range of ClickHouse `Date32`: 1900-01-01 ..= 2299-12-31.
pub(crate) const DATE32_MIN_DAYS: i64 = -25_567;
pub(crate) const DATE32_MAX_DAYS: i64 = 120_529;
/// Range of ClickHouse `DateTime` (UInt32 seconds).
pub(crate) const DATETIME_MAX: i64 = u32::MAX as i64;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-25_567i64, -1, 0, 1, 19_723, 19_782, 65_535, 120_529] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(2024, 1, 1), 19_723);
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(days_from_civil(1900, 1, 1), DATE32_MIN_DAYS);
        assert_eq!(days_from_civil(2299, 12, 31), DATE32_MAX_DAYS);
        assert_eq!(days_from_civil(2149, 6, 6), DATE_MAX_DAYS);
        assert_eq!(day_of_week(19_723), 1); // 2024-01-01 was a Monday
    }

    #[test]
    fn dst_rules_follow_clickhouse() {
        let ny = parse_tz("America/New_York").unwrap();
        // 2024-03-10 02:30 does not exist in New York: ClickHouse gives 1710052200.
        let local = days_from_civil(2024, 3, 10) * 86_400 + 2 * 3600 + 1800;
        assert_eq!(ny.to_utc(local), 1_710_052_200);
        // 2024-11-03 01:30 happens twice: ClickHouse takes the earlier instant.
        let local = days_from_civil(2024, 11, 3) * 86_400 + 3600 + 1800;
        assert_eq!(ny.to_utc(local), 1_730_611_800);
        assert!(parse_tz("Bad/Zone").is_err());
        assert_eq!(parse_tz("+03:00").unwrap().to_local(0), 3 * 3600);
    }
}
