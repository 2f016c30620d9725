//! `cityHash64`, `sipHash64`, `xxHash64`, `xxHash32`, `murmurHash3_64`, `murmurHash3_32`,
//! `murmurHash2_32`, `murmurHash2_64`, `gccMurmurHash`, `kafkaMurmurHash` of any number of arguments,
//! and `intHash64`, `intHash32`, with ClickHouse's exact results (ClickHouse users
//! shard, sample and order by them); the cryptographic digests `MD5`, `SHA1`, `SHA224`,
//! `SHA256`, `SHA384`, `SHA512` of a string, as `FixedString(N)` bytes like ClickHouse's.
//!
//! Strings are hashed as their bytes. Numbers, dates and booleans: `cityHash64` applies
//! `intHash64` to their bits zero-extended from their ClickHouse width; the others
//! hash those bytes. Decimals and DateTime64 are hashed as their bytes by all of them.
//! Several arguments are combined left to right: `Hash128to64` for cityHash64 and
//! xxHash64, the SipHash of the two 8-byte hashes for sipHash64, `intHash64(h1) ^ h2`
//! for the 64-bit murmurs and `intHash32(h1) ^ h2` for xxHash32 and the 32-bit murmurs.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt32Array, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Float32Type, Float64Type, Int64Type, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::hash::{city_hash64, hash128_to_64, int_hash32, int_hash64, murmur_hash3_64, sip_hash64};
use granary_common::ErrorCode;
use granary_types::ChType;
use sha2::Digest;

use crate::args::{ch_error, illegal_type, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};

/// `javaHash(x)`: Java's `hashCode` of a string (over its UTF-8 bytes as signed bytes, as
/// ClickHouse does) or of a signed integer (`Long.hashCode` for Int64). Unsigned integers
/// are NOT_IMPLEMENTED, as in ClickHouse; floats are not supported here.
fn java_hash() -> ScalarUDF {
    ScalarDef::new(
        "javaHash",
        Arity::at_least(1),
        |ctx| {
            if ctx.arg_count() > 1 {
                return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Java hash is not combineable for multiple arguments"));
            }
            match ctx.ch(0).base() {
                ChType::String | ChType::FixedString(_) | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => Ok(ChType::Int32),
                ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 => Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Unsigned types are not supported")),
                _ => Err(illegal_type(ctx.name, 0, ctx.field(0))),
            }
        },
        |ctx| {
            let array = ctx.array(0)?;
            let hashes: Vec<i32> = match ctx.ch(0).base() {
                ChType::String | ChType::FixedString(_) => {
                    let values = crate::string::text_bytes(&array);
                    (0..ctx.len).map(|row| values.value(row).iter().fold(0i32, |h, &b| h.wrapping_mul(31).wrapping_add(i32::from(b as i8)))).collect()
                }
                _ => {
                    let wide = cast(&array, &DataType::Int64)?;
                    wide.as_primitive::<Int64Type>().values().iter().map(|&v| if ctx.ch(0).base() == &ChType::Int64 { (v ^ ((v as u64) >> 32) as i64) as i32 } else { v as i32 }).collect()
                }
            };
            Ok(Arc::new(datafusion::arrow::array::Int32Array::new(hashes.into(), array.nulls().cloned())) as ArrayRef)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        java_hash(),
        hash_function(Algorithm::City64),
        hash_function(Algorithm::Sip64),
        hash_function(Algorithm::Xx64),
        hash_function(Algorithm::Xxh3),
        hash_function(Algorithm::Xx32),
        checksum_function("CRC32", ChType::UInt32, |data| u64::from(crc32_zlib(data))),
        checksum_function("CRC32IEEE", ChType::UInt32, |data| u64::from(crc32_reflected(data))),
        checksum_function("CRC64", ChType::UInt64, crc64_ecma),
        hash_function(Algorithm::Murmur3_64),
        hash_function(Algorithm::Murmur2_32),
        hash_function(Algorithm::Murmur2_64),
        hash_function(Algorithm::GccMurmur),
        hash_function(Algorithm::KafkaMurmur),
        hash_function(Algorithm::Murmur3_32),
        int_hash_function("intHash64", ChType::UInt64),
        int_hash_function("intHash32", ChType::UInt32),
        digest_function("MD5", 16, |data| md5::Md5::digest(data).to_vec()),
        digest_function("SHA1", 20, |data| sha1::Sha1::digest(data).to_vec()),
        digest_function("SHA224", 28, |data| sha2::Sha224::digest(data).to_vec()),
        digest_function("SHA256", 32, |data| sha2::Sha256::digest(data).to_vec()),
        digest_function("SHA384", 48, |data| sha2::Sha384::digest(data).to_vec()),
        digest_function("SHA512", 64, |data| sha2::Sha512::digest(data).to_vec()),
    ]
}

/// A digest of one string argument as `FixedString(width)`.
fn digest_function(name: &'static str, width: usize, digest: fn(&[u8]) -> Vec<u8>) -> ScalarUDF {
    use datafusion::arrow::array::FixedSizeBinaryBuilder;
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| match ctx.ch(0).base() {
            ChType::String | ChType::FixedString(_) => Ok(ChType::FixedString(width)),
            _ => Err(illegal_type(name, 0, ctx.field(0))),
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let mut out = FixedSizeBinaryBuilder::with_capacity(array.len(), width as i32);
            let mut push = |value: Option<&[u8]>| match value {
                Some(bytes) => out.append_value(digest(bytes)),
                None => {
                    out.append_null();
                    Ok(())
                }
            };
            match array.data_type() {
                DataType::FixedSizeBinary(_) => array.as_fixed_size_binary().iter().try_for_each(&mut push)?,
                _ => cast(&array, &DataType::Binary)?.as_binary::<i32>().iter().try_for_each(&mut push)?,
            }
            Ok(Arc::new(out.finish()))
        },
    )
    .build()
}

/// A checksum of one String or FixedString argument (numbers are refused, as in ClickHouse).
fn checksum_function(name: &'static str, result: ChType, checksum: fn(&[u8]) -> u64) -> ScalarUDF {
    let result_type = result.clone();
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| match ctx.ch(0).base() {
            ChType::String | ChType::FixedString(_) => Ok(result_type.clone()),
            other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {other} of argument of function {name}"))),
        },
        move |ctx| {
            let texts = crate::string::text_bytes(&ctx.array(0)?);
            let sums = (0..ctx.len).map(|row| checksum(texts.value(row)));
            Ok(match result {
                ChType::UInt32 => Arc::new(UInt32Array::from_iter_values(sums.map(|sum| sum as u32))) as ArrayRef,
                _ => Arc::new(UInt64Array::from_iter_values(sums)),
            })
        },
    )
    .build()
}

/// A lookup table for a reflected CRC of polynomial `poly`.
const fn crc_table(poly: u64) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u64;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 { poly ^ (crc >> 1) } else { crc >> 1 };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
}

const CRC32_IEEE_TABLE: [u64; 256] = crc_table(0xEDB8_8320);
const CRC64_ECMA_TABLE: [u64; 256] = crc_table(0xC96C_5795_D787_0F42);

/// ClickHouse's `CRC32IEEE` and `CRC64`: the reflected table CRC starting from 0, without a final xor.
fn crc_reflected(table: &[u64; 256], data: &[u8]) -> u64 {
    data.iter().fold(0u64, |crc, byte| table[((crc ^ u64::from(*byte)) & 0xFF) as usize] ^ (crc >> 8))
}

fn crc32_reflected(data: &[u8]) -> u32 {
    crc_reflected(&CRC32_IEEE_TABLE, data) as u32
}

fn crc64_ecma(data: &[u8]) -> u64 {
    crc_reflected(&CRC64_ECMA_TABLE, data)
}

/// zlib's `crc32` (ClickHouse's `CRC32`): the same table, starting from and ending with all ones.
fn crc32_zlib(data: &[u8]) -> u32 {
    let crc = data.iter().fold(0xFFFF_FFFFu64, |crc, byte| CRC32_IEEE_TABLE[((crc ^ u64::from(*byte)) & 0xFF) as usize] ^ (crc >> 8));
    !(crc as u32)
}

/// XXH32 with seed 0 (the workspace's xxhash crate is built without its 32-bit variant).
fn xxh32(data: &[u8]) -> u32 {
    const P1: u32 = 0x9E37_79B1;
    const P2: u32 = 0x85EB_CA77;
    const P3: u32 = 0xC2B2_AE3D;
    const P4: u32 = 0x27D4_EB2F;
    const P5: u32 = 0x1656_67B1;
    let word = |bytes: &[u8]| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let round = |acc: u32, lane: u32| acc.wrapping_add(lane.wrapping_mul(P2)).rotate_left(13).wrapping_mul(P1);
    let mut stripes = data.chunks_exact(16);
    let mut hash = if data.len() >= 16 {
        let mut acc = [P1.wrapping_add(P2), P2, 0, 0u32.wrapping_sub(P1)];
        for stripe in &mut stripes {
            for (lane, acc) in acc.iter_mut().enumerate() {
                *acc = round(*acc, word(&stripe[lane * 4..]));
            }
        }
        acc[0].rotate_left(1).wrapping_add(acc[1].rotate_left(7)).wrapping_add(acc[2].rotate_left(12)).wrapping_add(acc[3].rotate_left(18))
    } else {
        P5
    };
    hash = hash.wrapping_add(data.len() as u32);
    let tail = if data.len() >= 16 { stripes.remainder() } else { data };
    let mut words = tail.chunks_exact(4);
    for w in &mut words {
        hash = hash.wrapping_add(word(w).wrapping_mul(P3)).rotate_left(17).wrapping_mul(P4);
    }
    for byte in words.remainder() {
        hash = hash.wrapping_add(u32::from(*byte).wrapping_mul(P5)).rotate_left(11).wrapping_mul(P1);
    }
    hash ^= hash >> 15;
    hash = hash.wrapping_mul(P2);
    hash ^= hash >> 13;
    hash = hash.wrapping_mul(P3);
    hash ^ (hash >> 16)
}

/// The last bytes of a murmur input (fewer than a word) read as one little-endian word.
fn little_endian_tail(tail: &[u8]) -> u64 {
    tail.iter().enumerate().fold(0, |acc, (i, b)| acc | u64::from(*b) << (8 * i))
}

/// Austin Appleby's MurmurHash2, 32-bit.
fn murmur_hash2_32(data: &[u8], seed: u32) -> u32 {
    const M: u32 = 0x5bd1_e995;
    let mut h = seed ^ data.len() as u32;
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let mut k = u32::from_le_bytes([w[0], w[1], w[2], w[3]]).wrapping_mul(M);
        k ^= k >> 24;
        h = h.wrapping_mul(M) ^ k.wrapping_mul(M);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        h ^= little_endian_tail(tail) as u32;
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

/// MurmurHash64A, MurmurHash2's 64-bit form.
fn murmur_hash64a(data: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let mut k = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]).wrapping_mul(M);
        k ^= k >> 47;
        h = (h ^ k.wrapping_mul(M)).wrapping_mul(M);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        h ^= little_endian_tail(tail);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 47;
    h = h.wrapping_mul(M);
    h ^ (h >> 47)
}

/// MurmurHash3_x86_32 with seed 0.
fn murmur_hash3_32(data: &[u8]) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = 0u32;
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        h ^= mix(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        h ^= mix(little_endian_tail(tail) as u32);
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[derive(Debug, Clone, Copy)]
enum Algorithm {
    City64,
    Sip64,
    Xx64,
    Xxh3,
    Xx32,
    Murmur3_64,
    Murmur2_32,
    Murmur2_64,
    GccMurmur,
    KafkaMurmur,
    Murmur3_32,
}

impl Algorithm {
    /// The 32-bit ones' hashes travel as `u64` until the result.
    fn result(self) -> ChType {
        match self {
            Algorithm::Xx32 | Algorithm::Murmur2_32 | Algorithm::KafkaMurmur | Algorithm::Murmur3_32 => ChType::UInt32,
            _ => ChType::UInt64,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Algorithm::City64 => "cityHash64",
            Algorithm::Sip64 => "sipHash64",
            Algorithm::Xx64 => "xxHash64",
            Algorithm::Xxh3 => "xxh3",
            Algorithm::Xx32 => "xxHash32",
            Algorithm::Murmur3_64 => "murmurHash3_64",
            Algorithm::Murmur2_32 => "murmurHash2_32",
            Algorithm::Murmur2_64 => "murmurHash2_64",
            Algorithm::GccMurmur => "gccMurmurHash",
            Algorithm::KafkaMurmur => "kafkaMurmurHash",
            Algorithm::Murmur3_32 => "murmurHash3_32",
        }
    }

    fn bytes(self, data: &[u8]) -> u64 {
        match self {
            Algorithm::City64 => city_hash64(data),
            Algorithm::Sip64 => sip_hash64(data),
            Algorithm::Xx64 => xxhash_rust::xxh64::xxh64(data, 0),
            Algorithm::Xxh3 => xxhash_rust::xxh3::xxh3_64(data),
            Algorithm::Xx32 => u64::from(xxh32(data)),
            Algorithm::Murmur3_64 => murmur_hash3_64(data),
            Algorithm::Murmur2_32 => u64::from(murmur_hash2_32(data, 0)),
            Algorithm::Murmur2_64 => murmur_hash64a(data, 0),
            // GCC's std::hash seed.
            Algorithm::GccMurmur => murmur_hash64a(data, 0xc70f6907),
            // Kafka's partitioner: its seed, and the sign bit cleared to stay a Java int.
            Algorithm::KafkaMurmur => u64::from(murmur_hash2_32(data, 0x9747b28c) & 0x7fff_ffff),
            Algorithm::Murmur3_32 => u64::from(murmur_hash3_32(data)),
        }
    }

    /// A number of `width` bytes given by its (zero-extended) bits.
    fn number(self, bits: u64, width: usize) -> u64 {
        match self {
            Algorithm::City64 => int_hash64(bits),
            _ => self.bytes(&bits.to_le_bytes()[..width]),
        }
    }

    fn combine(self, first: u64, second: u64) -> u64 {
        match self {
            Algorithm::City64 | Algorithm::Xx64 | Algorithm::Xxh3 => hash128_to_64(first, second),
            Algorithm::Murmur3_64 | Algorithm::Murmur2_64 | Algorithm::GccMurmur => int_hash64(first) ^ second,
            Algorithm::Xx32 | Algorithm::Murmur2_32 | Algorithm::KafkaMurmur | Algorithm::Murmur3_32 => u64::from(int_hash32(first)) ^ second,
            Algorithm::Sip64 => {
                let mut both = [0u8; 16];
                both[..8].copy_from_slice(&first.to_le_bytes());
                both[8..].copy_from_slice(&second.to_le_bytes());
                self.bytes(&both)
            }
        }
    }
}

fn hash_function(algorithm: Algorithm) -> ScalarUDF {
    ScalarDef::new(
        algorithm.name(),
        Arity::at_least(1),
        move |ctx| {
            for i in 0..ctx.arg_count() {
                hash_kind(&ctx.ch(i)).map_err(|what| unsupported(algorithm, &what))?;
            }
            Ok(algorithm.result())
        },
        move |ctx| {
            // A constant argument (`cityHash64(number, 3)`) is hashed once, not once per row.
            let mut hashes: Option<ArgumentHashes> = None;
            for i in 0..ctx.args.len() {
                let next = match ctx.scalar(i) {
                    Some(_) => ArgumentHashes::Constant(column_hashes(ctx, i, algorithm, 1)?.first().copied().unwrap_or_default()),
                    None => ArgumentHashes::Column(column_hashes(ctx, i, algorithm, ctx.len)?),
                };
                hashes = Some(match hashes {
                    None => next,
                    Some(previous) => previous.combine(next, algorithm),
                });
            }
            let hashes = match hashes {
                Some(ArgumentHashes::Column(column)) => column,
                Some(ArgumentHashes::Constant(hash)) => vec![hash; ctx.len],
                None => Vec::new(),
            };
            Ok(match algorithm.result() {
                ChType::UInt32 => Arc::new(UInt32Array::from_iter_values(hashes.into_iter().map(|h| h as u32))) as ArrayRef,
                _ => Arc::new(UInt64Array::from(hashes)),
            })
        },
    )
    .build()
}

/// The hashes of the arguments so far: one per row, or one for all rows.
enum ArgumentHashes {
    Constant(u64),
    Column(Vec<u64>),
}

impl ArgumentHashes {
    /// These hashes combined with those of the next argument, left to right.
    fn combine(self, next: ArgumentHashes, algorithm: Algorithm) -> ArgumentHashes {
        // One loop per algorithm: the match stays out of the per-row loop.
        match algorithm {
            Algorithm::City64 | Algorithm::Xx64 | Algorithm::Xxh3 => self.combine_with(next, hash128_to_64),
            Algorithm::Murmur3_64 | Algorithm::Murmur2_64 | Algorithm::GccMurmur => self.combine_with(next, |a, b| int_hash64(a) ^ b),
            Algorithm::Xx32 | Algorithm::Murmur2_32 | Algorithm::KafkaMurmur | Algorithm::Murmur3_32 => {
                self.combine_with(next, |a, b| u64::from(int_hash32(a)) ^ b)
            }
            Algorithm::Sip64 => self.combine_with(next, |a, b| algorithm.combine(a, b)),
        }
    }

    #[inline(always)]
    fn combine_with(self, next: ArgumentHashes, combine: impl Fn(u64, u64) -> u64) -> ArgumentHashes {
        use granary_simd::lanes::{map_in_place, zip_in_place};
        use ArgumentHashes::{Column, Constant};
        match (self, next) {
            (Constant(a), Constant(b)) => Constant(combine(a, b)),
            (Column(mut a), Constant(b)) => {
                map_in_place(&mut a, |a| combine(a, b));
                Column(a)
            }
            (Constant(a), Column(mut b)) => {
                map_in_place(&mut b, |b| combine(a, b));
                Column(b)
            }
            (Column(mut a), Column(b)) => {
                zip_in_place(&mut a, &b, &combine);
                Column(a)
            }
        }
    }
}

fn unsupported(algorithm: Algorithm, what: &str) -> datafusion::error::DataFusionError {
    ch_error(ErrorCode::NOT_IMPLEMENTED, format!("{} of {what} is not supported yet", algorithm.name()))
}

/// How values of a type are hashed.
enum HashKind {
    Bytes,
    /// An integer of this many bytes.
    Int(usize),
    Float32,
    Float64,
    /// The little-endian value in this many bytes, hashed as bytes by every algorithm.
    RawBytes(usize),
}

fn hash_kind(ch: &ChType) -> Result<HashKind, String> {
    Ok(match ch {
        ChType::Nullable(inner) | ChType::LowCardinality(inner) => return hash_kind(inner),
        ChType::String | ChType::FixedString(_) => HashKind::Bytes,
        ChType::IPv6 => HashKind::Bytes,
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Nothing | ChType::Enum8(_) => HashKind::Int(1),
        ChType::UInt16 | ChType::Int16 | ChType::Date | ChType::Enum16(_) => HashKind::Int(2),
        ChType::UInt32 | ChType::Int32 | ChType::Date32 | ChType::DateTime(_) | ChType::IPv4 => HashKind::Int(4),
        ChType::UInt64 | ChType::Int64 => HashKind::Int(8),
        ChType::Float32 => HashKind::Float32,
        ChType::Float64 => HashKind::Float64,
        ChType::DateTime64(..) => HashKind::RawBytes(8),
        // Their little-endian bytes, as ClickHouse hashes them (UInt128 is held in 32).
        ChType::Int128 | ChType::UInt128 => HashKind::RawBytes(16),
        ChType::Int256 | ChType::UInt256 => HashKind::RawBytes(32),
        ChType::Decimal(precision, _) => HashKind::RawBytes(match precision {
            0..=9 => 4,
            10..=18 => 8,
            _ => 16,
        }),
        other => return Err(other.to_string()),
    })
}

/// The hashes of argument `index`, over `rows` rows (1 for a constant).
fn column_hashes(ctx: &ExecCtx, index: usize, algorithm: Algorithm, rows: usize) -> DfResult<Vec<u64>> {
    let array = ctx.args[index].to_array(rows)?;
    let kind = hash_kind(&ctx.ch(index)).map_err(|what| unsupported(algorithm, &what))?;
    let rows = array.len();
    Ok(match kind {
        HashKind::Bytes => match array.data_type() {
            DataType::FixedSizeBinary(_) => {
                let fixed = array.as_fixed_size_binary();
                (0..rows).map(|i| algorithm.bytes(fixed.value(i))).collect()
            }
            _ => {
                let binary = cast(&array, &DataType::Binary)?;
                let binary = binary.as_binary::<i32>();
                (0..rows).map(|i| algorithm.bytes(binary.value(i))).collect()
            }
        },
        HashKind::Int(width) => {
            let mask = if width == 8 { u64::MAX } else { (1u64 << (8 * width)) - 1 };
            let (values, mask, width) = match array.data_type() {
                DataType::UInt64 => (array.as_primitive::<UInt64Type>().values().clone(), u64::MAX, 8),
                _ => (cast(&array, &DataType::Int64)?.as_primitive::<Int64Type>().values().inner().clone().into(), mask, width),
            };
            match algorithm {
                Algorithm::City64 => {
                    let mut hashes = values.to_vec();
                    granary_simd::lanes::map_in_place(&mut hashes, |v| int_hash64(v & mask));
                    hashes
                }
                _ => values.iter().map(|v| algorithm.number(v & mask, width)).collect(),
            }
        }
        HashKind::Float32 => {
            let values = cast(&array, &DataType::Float32)?;
            values.as_primitive::<Float32Type>().values().iter().map(|v| algorithm.number(u64::from(v.to_bits()), 4)).collect()
        }
        HashKind::Float64 => {
            let values = cast(&array, &DataType::Float64)?;
            values.as_primitive::<Float64Type>().values().iter().map(|v| algorithm.number(v.to_bits(), 8)).collect()
        }
        HashKind::RawBytes(width) => match array.data_type() {
            DataType::Decimal128(..) => {
                let decimals = array.as_primitive::<Decimal128Type>();
                decimals.values().iter().map(|v| algorithm.bytes(&v.to_le_bytes()[..width])).collect()
            }
            DataType::Decimal256(..) => {
                let decimals = array.as_primitive::<datafusion::arrow::datatypes::Decimal256Type>();
                decimals.values().iter().map(|v| algorithm.bytes(&v.to_le_bytes()[..width])).collect()
            }
            _ => {
                let values = cast(&array, &DataType::Int64)?;
                values.as_primitive::<Int64Type>().values().iter().map(|v| algorithm.bytes(&v.to_le_bytes()[..width.min(8)])).collect()
            }
        },
    })
}

/// `intHash64(n)` / `intHash32(n)`: the integer converted to UInt64 (sign-extended) and mixed.
fn int_hash_function(name: &'static str, result: ChType) -> ScalarUDF {
    let is_integer = |t: &ChType| {
        matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64)
    };
    let wide = result == ChType::UInt64;
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| match ctx.ch(0) {
            t if is_integer(&t) => Ok(result.clone()),
            ChType::Nullable(inner) if is_integer(&inner) => Ok(result.clone()),
            _ => Err(illegal_type(ctx.name, 0, ctx.field(0))),
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let mut bits: Vec<u64> = if array.data_type() == &DataType::UInt64 {
                array.as_primitive::<UInt64Type>().values().to_vec()
            } else {
                let values = cast(&array, &DataType::Int64)?;
                values.as_primitive::<Int64Type>().values().iter().map(|v| *v as u64).collect()
            };
            Ok(if wide {
                granary_simd::lanes::map_in_place(&mut bits, int_hash64);
                Arc::new(UInt64Array::from(bits))
            } else {
                Arc::new(UInt32Array::from_iter_values(bits.into_iter().map(int_hash32)))
            })
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh32_matches_clickhouse() {
        // xxHash32('abc') and xxHash32('') in ClickHouse.
        assert_eq!(xxh32(b"abc"), 852_579_327);
        assert_eq!(xxh32(b""), 46_947_589);
        // Longer than one 16-byte stripe, with a tail of words and bytes.
        assert_eq!(xxh32(b"The quick brown fox jumps over the lazy dog"), 0xE85E_A4DE);
    }
}
