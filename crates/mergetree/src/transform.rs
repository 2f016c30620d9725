//! Value transforms of codec chains: `Delta`, `DoubleDelta` and `Gorilla` in
//! `CODEC(Delta, ZSTD(3))` and the like.
//!
//! ClickHouse's specialised codecs turn values that change slowly (sorted ids, time
//! stamps, counters, gauges) into small or repetitive numbers that a general-purpose
//! codec then packs tightly. Here the transform is applied to the value buffer of each
//! granule before the granule is framed (`encoding.rs`), and the block is then
//! compressed with the chain's general codec (LZ4 unless the chain names another):
//!
//! * `Delta`: each value minus the previous one (wrapping), the first kept as is;
//! * `DoubleDelta`: the delta of the deltas (constant-rate sequences become zeros);
//! * `Gorilla`: each value XOR the previous one (floats that change little share their
//!   sign, exponent and high mantissa bits, which become zero bytes).
//!
//! Values are little-endian integers of the column's width (1, 2, 4 or 8 bytes); floats
//! are transformed as their bit patterns, so every transform is exactly reversible. The
//! transform restarts at each granule, so a granule decodes on its own. ClickHouse's own
//! bit-packed encodings of DoubleDelta and Gorilla are not reproduced: parts are
//! Granary's format, the SQL and the effect (small columns, fast reads) are ClickHouse's.

use arrow::datatypes::DataType;
use granary_common::{Error, ErrorCode, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    Delta,
    DoubleDelta,
    Gorilla,
}

impl Transform {
    pub fn name(self) -> &'static str {
        match self {
            Transform::Delta => "Delta",
            Transform::DoubleDelta => "DoubleDelta",
            Transform::Gorilla => "Gorilla",
        }
    }

    /// The two bits stored in a granule's flags byte (0 is "no transform").
    pub fn tag(self) -> u8 {
        match self {
            Transform::Delta => 1,
            Transform::DoubleDelta => 2,
            Transform::Gorilla => 3,
        }
    }

    pub fn from_tag(tag: u8) -> Result<Option<Transform>> {
        match tag {
            0 => Ok(None),
            1 => Ok(Some(Transform::Delta)),
            2 => Ok(Some(Transform::DoubleDelta)),
            3 => Ok(Some(Transform::Gorilla)),
            other => Err(Error::new(ErrorCode::CORRUPTED_DATA, format!("Corrupted column data: unknown value transform {other}"))),
        }
    }

    /// Appends the transformed `values` (values of `width` bytes; trailing bytes that do
    /// not make a whole value are copied unchanged).
    pub fn encode(self, width: usize, values: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(values);
        let whole = values.len() / width * width;
        let data = &mut out[start..start + whole];
        match width {
            1 => apply::<1>(self, data, Direction::Encode),
            2 => apply::<2>(self, data, Direction::Encode),
            4 => apply::<4>(self, data, Direction::Encode),
            8 => apply::<8>(self, data, Direction::Encode),
            // Widths are checked when the codec is parsed; other widths stay as they are
            // and are tagged untransformed by the caller.
            _ => {}
        }
    }

    /// Reverses [`Transform::encode`] in place.
    pub fn decode(self, width: usize, data: &mut [u8]) -> Result<()> {
        let whole = data.len() / width * width;
        let data = &mut data[..whole];
        match width {
            1 => apply::<1>(self, data, Direction::Decode),
            2 => apply::<2>(self, data, Direction::Decode),
            4 => apply::<4>(self, data, Direction::Decode),
            8 => apply::<8>(self, data, Direction::Decode),
            other => return Err(Error::new(ErrorCode::CORRUPTED_DATA, format!("Corrupted column data: {} over values of {other} bytes", self.name()))),
        }
        Ok(())
    }

    /// The value width the transform works on for a column of `data_type`, or the
    /// reason it cannot be used there.
    pub fn width_for(self, data_type: &DataType) -> Result<usize> {
        let width = match data_type {
            DataType::Dictionary(..) | DataType::Decimal128(..) | DataType::Decimal256(..) => None,
            t if t.is_primitive() => t.primitive_width(),
            _ => None,
        };
        match width {
            Some(w @ (1 | 2 | 4 | 8)) => Ok(w),
            _ => Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Codec {} is not applicable for {data_type} because the data type is not a number of 1, 2, 4 or 8 bytes", self.name()),
            )),
        }
    }

    /// Whether the transform can be applied to arrays of `data_type`.
    pub fn applies_to(self, data_type: &DataType) -> bool {
        self.width_for(data_type).is_ok()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encode,
    Decode,
}

/// Runs `transform` over `data` (a whole number of `W`-byte little-endian values).
fn apply<const W: usize>(transform: Transform, data: &mut [u8], direction: Direction) {
    let read = |chunk: &[u8]| -> u64 {
        let mut bytes = [0u8; 8];
        bytes[..W].copy_from_slice(chunk);
        u64::from_le_bytes(bytes)
    };
    let write = |chunk: &mut [u8], value: u64| chunk.copy_from_slice(&value.to_le_bytes()[..W]);
    // Arithmetic in u64 then truncated to W bytes: wrapping subtraction and addition
    // modulo 2^(8W) agree with wrapping arithmetic in the narrow type.
    let mut previous = 0u64;
    let mut previous_delta = 0u64;
    for chunk in data.chunks_exact_mut(W) {
        let stored = read(chunk);
        let value = match (transform, direction) {
            (Transform::Delta, Direction::Encode) => {
                write(chunk, stored.wrapping_sub(previous));
                stored
            }
            (Transform::Delta, Direction::Decode) => {
                let value = previous.wrapping_add(stored);
                write(chunk, value);
                value
            }
            (Transform::DoubleDelta, Direction::Encode) => {
                let delta = stored.wrapping_sub(previous);
                write(chunk, delta.wrapping_sub(previous_delta));
                previous_delta = delta;
                stored
            }
            (Transform::DoubleDelta, Direction::Decode) => {
                let delta = previous_delta.wrapping_add(stored);
                let value = previous.wrapping_add(delta);
                write(chunk, value);
                previous_delta = delta;
                value
            }
            (Transform::Gorilla, Direction::Encode) => {
                write(chunk, stored ^ previous);
                stored
            }
            (Transform::Gorilla, Direction::Decode) => {
                let value = stored ^ previous;
                write(chunk, value);
                value
            }
        };
        // Values are compared modulo the width: the high bytes never reach the output.
        previous = value;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn round_trip(transform: Transform, width: usize, values: &[u8]) -> Vec<u8> {
        let mut encoded = Vec::new();
        transform.encode(width, values, &mut encoded);
        let mut decoded = encoded.clone();
        transform.decode(width, &mut decoded).unwrap();
        assert_eq!(decoded, values, "{transform:?} over width {width}");
        encoded
    }

    #[test]
    fn every_transform_reverses_at_every_width() {
        let values: Vec<u8> = (0..1003u32).flat_map(|i| (i.wrapping_mul(2654435761) ^ (i << 3)).to_le_bytes()).collect();
        for transform in [Transform::Delta, Transform::DoubleDelta, Transform::Gorilla] {
            for width in [1, 2, 4, 8] {
                round_trip(transform, width, &values);
                // A tail shorter than one value is kept as is.
                round_trip(transform, width, &values[..values.len() - 3]);
            }
        }
    }

    #[test]
    fn regular_sequences_become_constant() {
        let ids: Vec<u8> = (1000..1100u64).flat_map(|i| (i * 3).to_le_bytes()).collect();
        let delta = round_trip(Transform::Delta, 8, &ids);
        assert!(delta[8..].chunks(8).all(|c| u64::from_le_bytes(c.try_into().unwrap()) == 3));
        let double = round_trip(Transform::DoubleDelta, 8, &ids);
        assert!(double[16..].iter().all(|b| *b == 0));
        let wrapping: Vec<u8> = [250u8, 3, 7, 1].to_vec();
        round_trip(Transform::Delta, 1, &wrapping);
        let floats: Vec<u8> = (0..50).flat_map(|i| (20.5f64 + i as f64 * 1e-9).to_le_bytes()).collect();
        let xored = round_trip(Transform::Gorilla, 8, &floats);
        assert!(xored[8..].chunks(8).all(|c| c[7] == 0 && c[6] == 0), "sign and exponent bytes cancel");
    }

    #[test]
    fn only_numbers_of_known_widths_are_transformed() {
        assert_eq!(Transform::Delta.width_for(&DataType::UInt64).unwrap(), 8);
        assert_eq!(Transform::Gorilla.width_for(&DataType::Float32).unwrap(), 4);
        assert_eq!(Transform::DoubleDelta.width_for(&DataType::Date32).unwrap(), 4);
        assert_eq!(Transform::Delta.width_for(&DataType::Utf8).unwrap_err().code(), ErrorCode::BAD_ARGUMENTS);
        assert!(!Transform::Delta.applies_to(&DataType::Decimal128(20, 2)));
        assert!(Transform::from_tag(4).is_err());
    }
}
