//! `cityHash64`, `sipHash64`, `xxHash64`, `xxHash32`, `murmurHash3_64`, `murmurHash3_32`,
//! `murmurHash2_32`, `murmurHash2_64`, `gccMurmurHash`, `kafkaMurmurHash`, `halfMD5`,
//! `metroHash64`, `farmHash64`, `farmFingerprint64`, `wyHash64` of any number of arguments
//! (`hiveHash` of one),
//! and `intHash64`, `intHash32`, with ClickHouse's exact results (ClickHouse users
//! shard, sample and order by them); the cryptographic digests `MD4`, `MD5`, `SHA1`, `SHA224`,
//! `SHA256`, `SHA384`, `SHA512` of a string, as `FixedString(N)` bytes like ClickHouse's.
//!
//! Strings are hashed as their bytes. Numbers, dates and booleans: `cityHash64`,
//! `metroHash64` and the FarmHashes apply `intHash64` to their bits zero-extended from their
//! ClickHouse width; the others
//! hash those bytes. Decimals and DateTime64 are hashed as their bytes by all of them.
//! Several arguments are combined left to right: `Hash128to64` for cityHash64, xxHash64,
//! metroHash64 and farmHash64, FarmHash's `Fingerprint(uint128)` for farmFingerprint64, the
//! hash of the two 8-byte hashes for sipHash64, halfMD5 and wyHash64, `intHash64(h1) ^ h2`
//! for the 64-bit murmurs and `intHash32(h1) ^ h2` for xxHash32 and the 32-bit murmurs.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int32Array, UInt32Array, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Float32Type, Float64Type, Int64Type, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::hash::{city_hash64, hash128_to_64, int_hash32, int_hash64, murmur3_x64_128, murmur_hash3_64, sip_hash64, SipHasher};
use granary_common::ErrorCode;
use granary_types::ChType;
use sha2::Digest;

use crate::args::{ch_error, illegal_type, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};
use crate::hash_algorithms;

/// Java's `String.hashCode` over bytes taken as signed, as ClickHouse's `javaHash` of a string.
fn java_string_hash(data: &[u8]) -> i32 {
    data.iter().fold(0i32, |h, &b| h.wrapping_mul(31).wrapping_add(i32::from(b as i8)))
}

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
                    (0..ctx.len).map(|row| java_string_hash(values.value(row))).collect()
                }
                _ => {
                    let wide = cast(&array, &DataType::Int64)?;
                    wide.as_primitive::<Int64Type>().values().iter().map(|&v| if ctx.ch(0).base() == &ChType::Int64 { (v ^ ((v as u64) >> 32) as i64) as i32 } else { v as i32 }).collect()
                }
            };
            Ok(Arc::new(Int32Array::new(hashes.into(), array.nulls().cloned())) as ArrayRef)
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
        hash_function(Algorithm::HalfMd5),
        hash_function(Algorithm::Metro64),
        hash_function(Algorithm::Farm64),
        hash_function(Algorithm::FarmFingerprint64),
        hash_function(Algorithm::Wy64),
        hash_function(Algorithm::Hive),
        wide_hash_function(Wide::Sip128),
        wide_hash_function(Wide::Sip128Reference),
        wide_hash_function(Wide::Murmur3_128),
        wide_hash_function(Wide::Sip64Keyed),
        wide_hash_function(Wide::Sip128Keyed),
        wide_hash_function(Wide::Sip128ReferenceKeyed),
        wide_hash_function(Wide::Xxh3_128),
        int_hash_function("intHash64", ChType::UInt64),
        int_hash_function("intHash32", ChType::UInt32),
        digest_function("MD4", 16, crate::hash_algorithms::md4),
        digest_function("MD5", 16, |data| md5::Md5::digest(data).to_vec()),
        digest_function("SHA1", 20, |data| sha1::Sha1::digest(data).to_vec()),
        digest_function("SHA224", 28, |data| sha2::Sha224::digest(data).to_vec()),
        digest_function("SHA256", 32, |data| sha2::Sha256::digest(data).to_vec()),
        digest_function("SHA384", 48, |data| sha2::Sha384::digest(data).to_vec()),
        digest_function("SHA512", 64, |data| sha2::Sha512::digest(data).to_vec()),
        digest_function("SHA512_256", 32, |data| sha2::Sha512_256::digest(data).to_vec()),
        digest_function("RIPEMD160", 20, |data| crate::hash_algorithms::ripemd160(data).to_vec()),
        digest_function("keccak256", 32, |data| {
            use tiny_keccak::Hasher;
            let mut keccak = tiny_keccak::Keccak::v256();
            keccak.update(data);
            let mut out = [0u8; 32];
            keccak.finalize(&mut out);
            out.to_vec()
        }),
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
    HalfMd5,
    Metro64,
    Farm64,
    FarmFingerprint64,
    Wy64,
    Hive,
}

impl Algorithm {
    /// The 32-bit ones' hashes travel as `u64` until the result.
    fn result(self) -> ChType {
        match self {
            Algorithm::Xx32 | Algorithm::Murmur2_32 | Algorithm::KafkaMurmur | Algorithm::Murmur3_32 => ChType::UInt32,
            Algorithm::Hive => ChType::Int32,
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
            Algorithm::HalfMd5 => "halfMD5",
            Algorithm::Metro64 => "metroHash64",
            Algorithm::Farm64 => "farmHash64",
            Algorithm::FarmFingerprint64 => "farmFingerprint64",
            Algorithm::Wy64 => "wyHash64",
            Algorithm::Hive => "hiveHash",
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
            Algorithm::HalfMd5 => hash_algorithms::half_md5(data),
            Algorithm::Metro64 => hash_algorithms::metro_hash64(data),
            Algorithm::Farm64 => hash_algorithms::farm_hash64(data),
            Algorithm::FarmFingerprint64 => hash_algorithms::farm_fingerprint64(data),
            Algorithm::Wy64 => hash_algorithms::wy_hash64(data),
            // Java's String.hashCode over the bytes, its sign bit cleared (Hive before 3.0).
            Algorithm::Hive => u64::from(java_string_hash(data) as u32 & 0x7fff_ffff),
        }
    }

    /// A number of `width` bytes given by its (zero-extended) bits.
    fn number(self, bits: u64, width: usize) -> u64 {
        match self {
            Algorithm::City64 | Algorithm::Metro64 | Algorithm::Farm64 | Algorithm::FarmFingerprint64 => int_hash64(bits),
            _ => self.bytes(&bits.to_le_bytes()[..width]),
        }
    }

    fn combine(self, first: u64, second: u64) -> u64 {
        match self {
            Algorithm::City64 | Algorithm::Xx64 | Algorithm::Xxh3 | Algorithm::Metro64 | Algorithm::Farm64 => hash128_to_64(first, second),
            Algorithm::FarmFingerprint64 => hash_algorithms::farm_fingerprint128(first, second),
            Algorithm::Murmur3_64 | Algorithm::Murmur2_64 | Algorithm::GccMurmur => int_hash64(first) ^ second,
            Algorithm::Xx32 | Algorithm::Murmur2_32 | Algorithm::KafkaMurmur | Algorithm::Murmur3_32 => u64::from(int_hash32(first)) ^ second,
            // Refused at planning: Hive's hash does not combine.
            Algorithm::Hive => first,
            Algorithm::Sip64 | Algorithm::HalfMd5 | Algorithm::Wy64 => {
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
        Arity::at_least(0),
        move |ctx| {
            // Hive's hash joins no two hashes: one value at most. An array or map is its
            // length's hash joined with its elements', so only empty ones pass (checked
            // per row when run).
            if matches!(algorithm, Algorithm::Hive) && (0..ctx.arg_count()).map(|i| hive_value_count(&ctx.ch(i))).sum::<usize>() > 1 {
                return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Hive hash is not combineable for multiple arguments"));
            }
            for i in 0..ctx.arg_count() {
                check_hashable(&ctx.ch(i)).map_err(|what| unsupported(algorithm.name(), &what))?;
            }
            Ok(algorithm.result())
        },
        move |ctx| {
            if matches!(algorithm, Algorithm::Hive) {
                for i in 0..ctx.args.len() {
                    if has_elements(&ctx.array(i)?) {
                        return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Hive hash is not combineable for multiple arguments"));
                    }
                }
            }
            let hashes = if (0..ctx.args.len()).any(|i| matches!(ctx.ch(i).base(), ChType::Tuple(_) | ChType::Array(_) | ChType::Map(..))) {
                // A tuple's elements continue the argument list and an array's length and
                // elements are joined one by one to the hash so far, so such arguments are
                // hashed in one pass, left to right.
                threaded_hashes(&algorithm, ctx, 0)?
            } else {
                // A constant argument (`cityHash64(number, 3)`) is hashed once, not once per row.
                let mut hashes: Option<ArgumentHashes> = None;
                for i in 0..ctx.args.len() {
                    let next = match ctx.scalar(i) {
                        Some(_) => ArgumentHashes::Constant(argument_hashes(&algorithm, &ctx.args[i].to_array(1)?, &ctx.ch(i), None)?.first().copied().unwrap_or_default()),
                        None => ArgumentHashes::Column(argument_hashes(&algorithm, &ctx.array(i)?, &ctx.ch(i), None)?),
                    };
                    hashes = Some(match hashes {
                        None => next,
                        Some(previous) => previous.combine(next, algorithm),
                    });
                }
                match hashes {
                    Some(ArgumentHashes::Column(column)) => column,
                    Some(ArgumentHashes::Constant(hash)) => vec![hash; ctx.len],
                    None => vec![algorithm.constant(FILLER); ctx.len],
                }
            };
            Ok(match algorithm.result() {
                ChType::UInt32 => Arc::new(UInt32Array::from_iter_values(hashes.into_iter().map(|h| h as u32))) as ArrayRef,
                ChType::Int32 => Arc::new(Int32Array::from_iter_values(hashes.into_iter().map(|h| h as i32))) as ArrayRef,
                _ => Arc::new(UInt64Array::from(hashes)),
            })
        },
    )
    .build()
}

/// ClickHouse's hash of a NULL inside a tuple, array or map (`FunctionAnyHash::NULL_HASH`).
const NULL_HASH: u128 = 0x5715_f196_cbea_7a40_c58a_d2da_03d9_a871;
/// ClickHouse's hash of no values (no arguments, an empty tuple).
const FILLER: u128 = 0xe28d_bde7_fe22_e41c;

/// How one hash function hashes values and joins hashes, the parts of ClickHouse's
/// `FunctionAnyHash` that differ between algorithms. `row` is the row of the column being
/// hashed: the keyed SipHashes take their key from it.
trait Hasher: Sized {
    type Out: Copy + Default;

    fn bytes(&self, row: usize, data: &[u8]) -> Self::Out;

    /// A number of `width` bytes given by its (zero-extended) bits.
    fn number(&self, row: usize, bits: u64, width: usize) -> Self::Out {
        self.bytes(row, &bits.to_le_bytes()[..width])
    }

    /// [`Self::number`] of each value masked to `width` bytes.
    fn numbers(&self, values: &[u64], mask: u64, width: usize) -> Vec<Self::Out> {
        values.iter().enumerate().map(|(row, v)| self.number(row, v & mask, width)).collect()
    }

    fn combine(&self, row: usize, first: Self::Out, second: Self::Out) -> Self::Out;

    /// The hash an array's starts from: its length through `intHash64` for 64-bit results,
    /// `intHash32` for the others (128-bit ones included, as in ClickHouse).
    fn array_length(&self, length: u64) -> Self::Out;

    /// A 128-bit constant cut to the result's width, as `static_cast<ToType>`.
    fn constant(&self, value: u128) -> Self::Out;

    /// The hash of a NULL inside a tuple or array.
    fn null(&self, _row: usize) -> Self::Out {
        self.constant(NULL_HASH)
    }

    /// The hasher for the elements of arrays with these offsets (keyed ones repeat each
    /// row's key for its elements).
    fn for_elements(&self, offsets: &[usize], elements: usize) -> Self;
}

impl Hasher for Algorithm {
    type Out = u64;

    fn bytes(&self, _row: usize, data: &[u8]) -> u64 {
        Algorithm::bytes(*self, data)
    }

    fn number(&self, _row: usize, bits: u64, width: usize) -> u64 {
        Algorithm::number(*self, bits, width)
    }

    fn numbers(&self, values: &[u64], mask: u64, width: usize) -> Vec<u64> {
        match self {
            Algorithm::City64 | Algorithm::Metro64 | Algorithm::Farm64 | Algorithm::FarmFingerprint64 => {
                let mut hashes = values.to_vec();
                granary_simd::lanes::map_in_place(&mut hashes, |v| int_hash64(v & mask));
                hashes
            }
            _ => values.iter().map(|v| Algorithm::number(*self, v & mask, width)).collect(),
        }
    }

    fn combine(&self, _row: usize, first: u64, second: u64) -> u64 {
        Algorithm::combine(*self, first, second)
    }

    fn array_length(&self, length: u64) -> u64 {
        match self.result() {
            ChType::UInt64 => int_hash64(length),
            _ => u64::from(int_hash32(length)),
        }
    }

    fn constant(&self, value: u128) -> u64 {
        match self.result() {
            ChType::UInt64 => value as u64,
            _ => u64::from(value as u32),
        }
    }

    fn for_elements(&self, _offsets: &[usize], _elements: usize) -> Self {
        *self
    }
}

/// The hashes of the data arguments from `first`, each row's joined left to right.
fn threaded_hashes<H: Hasher>(hasher: &H, ctx: &ExecCtx, first: usize) -> DfResult<Vec<H::Out>> {
    let mut hashes = None;
    for i in first..ctx.args.len() {
        hashes = Some(argument_hashes(hasher, &ctx.array(i)?, &ctx.ch(i), hashes)?);
    }
    Ok(hashes.unwrap_or_else(|| vec![hasher.constant(FILLER); ctx.len]))
}

/// How many hashes a value of this type is made of for `hiveHash` (tuples are flattened);
/// an array or map counts as one, since only an empty one, just its length, can be hashed.
fn hive_value_count(ch: &ChType) -> usize {
    match ch {
        ChType::Nullable(inner) | ChType::LowCardinality(inner) => hive_value_count(inner),
        ChType::Tuple(fields) => fields.iter().map(|(_, field)| hive_value_count(field)).sum(),
        _ => 1,
    }
}

/// Whether some row of the column holds an array or map with elements.
fn has_elements(array: &ArrayRef) -> bool {
    match array.data_type() {
        DataType::List(_) => array.as_list::<i32>().value_offsets().windows(2).any(|w| w[1] > w[0]),
        DataType::Map(..) => array.as_map().value_offsets().windows(2).any(|w| w[1] > w[0]),
        DataType::Struct(_) => array.as_struct().columns().iter().any(has_elements),
        _ => false,
    }
}

/// Whether values of this type can be hashed; the type that cannot otherwise.
fn check_hashable(ch: &ChType) -> Result<(), String> {
    match ch {
        ChType::Nullable(inner) | ChType::LowCardinality(inner) | ChType::Array(inner) => check_hashable(inner),
        ChType::Tuple(fields) => fields.iter().try_for_each(|(_, field)| check_hashable(field)),
        ChType::Map(key, value) => check_hashable(key).and_then(|_| check_hashable(value)),
        other => hash_kind(other).map(|_| ()),
    }
}

/// The hashes of one argument's rows, each joined to the hashes of the arguments before it
/// (`before`; `None` for the first), as ClickHouse's `executeForArgument`: a tuple's elements
/// are further arguments, an array hashes its length and then joins its elements' hashes, a
/// map is the array of its (key, value) tuples, and a NULL inside them has its own hash.
fn argument_hashes<H: Hasher>(hasher: &H, array: &ArrayRef, ch: &ChType, before: Option<Vec<H::Out>>) -> DfResult<Vec<H::Out>> {
    let rows = array.len();
    let join = |hashes: Vec<H::Out>, before: Option<Vec<H::Out>>| match before {
        None => hashes,
        Some(before) => before.into_iter().zip(hashes).enumerate().map(|(row, (b, h))| hasher.combine(row, b, h)).collect(),
    };
    match ch {
        ChType::LowCardinality(inner) => argument_hashes(hasher, array, inner, before),
        ChType::Nullable(inner) => {
            let mut hashes = argument_hashes(hasher, array, inner, before.clone())?;
            if let Some(nulls) = array.logical_nulls() {
                for row in (0..rows).filter(|row| nulls.is_null(*row)) {
                    let null = hasher.null(row);
                    hashes[row] = match &before {
                        None => null,
                        Some(before) => hasher.combine(row, before[row], null),
                    };
                }
            }
            Ok(hashes)
        }
        ChType::Tuple(fields) => {
            let tuple = array.as_struct_opt().ok_or_else(|| unexpected_column(ch, array))?;
            let mut hashes = match before {
                None if fields.is_empty() => Some(vec![hasher.constant(FILLER); rows]),
                before => before,
            };
            for (i, (_, field)) in fields.iter().enumerate() {
                hashes = Some(argument_hashes(hasher, tuple.column(i), field, hashes)?);
            }
            Ok(hashes.unwrap_or_else(|| vec![H::Out::default(); rows]))
        }
        ChType::Array(inner) => {
            let list = array.as_list_opt::<i32>().ok_or_else(|| unexpected_column(ch, array))?;
            let offsets: Vec<usize> = list.value_offsets().iter().map(|o| *o as usize).collect();
            array_hashes(hasher, &offsets, list.values(), inner, before)
        }
        ChType::Map(key, value) => {
            let map = array.as_map_opt().ok_or_else(|| unexpected_column(ch, array))?;
            let offsets: Vec<usize> = map.value_offsets().iter().map(|o| *o as usize).collect();
            let entries: ArrayRef = Arc::new(map.entries().clone());
            let entry = ChType::Tuple(vec![("keys".to_string(), (**key).clone()), ("values".to_string(), (**value).clone())]);
            array_hashes(hasher, &offsets, &entries, &entry, before)
        }
        // ClickHouse fills zeros, whatever came before: such values only sit under a NULL
        // or in empty arrays, whose hashes replace them.
        ChType::Nothing => Ok(vec![H::Out::default(); rows]),
        _ => Ok(join(leaf_hashes(hasher, array, ch)?, before)),
    }
}

/// The hashes of arrays given by their offsets into `values`: each row's length and then
/// its elements joined one by one to the hash so far (`before`), or to the length's hash.
fn array_hashes<H: Hasher>(hasher: &H, offsets: &[usize], values: &ArrayRef, inner: &ChType, before: Option<Vec<H::Out>>) -> DfResult<Vec<H::Out>> {
    let elements = argument_hashes(&hasher.for_elements(offsets, values.len()), values, inner, None)?;
    Ok(offsets
        .windows(2)
        .enumerate()
        .map(|(row, range)| {
            let length = hasher.array_length((range[1] - range[0]) as u64);
            let start = before.as_ref().map_or(length, |before| hasher.combine(row, before[row], length));
            elements[range[0]..range[1]].iter().fold(start, |h, e| hasher.combine(row, h, *e))
        })
        .collect())
}

fn unexpected_column(ch: &ChType, array: &ArrayRef) -> datafusion::error::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Illegal column {} for a value of type {ch} in a hash function", array.data_type()))
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
            Algorithm::City64 | Algorithm::Xx64 | Algorithm::Xxh3 | Algorithm::Metro64 | Algorithm::Farm64 => self.combine_with(next, hash128_to_64),
            Algorithm::FarmFingerprint64 => self.combine_with(next, hash_algorithms::farm_fingerprint128),
            Algorithm::Murmur3_64 | Algorithm::Murmur2_64 | Algorithm::GccMurmur => self.combine_with(next, |a, b| int_hash64(a) ^ b),
            Algorithm::Xx32 | Algorithm::Murmur2_32 | Algorithm::KafkaMurmur | Algorithm::Murmur3_32 => {
                self.combine_with(next, |a, b| u64::from(int_hash32(a)) ^ b)
            }
            Algorithm::Sip64 | Algorithm::HalfMd5 | Algorithm::Wy64 | Algorithm::Hive => self.combine_with(next, |a, b| algorithm.combine(a, b)),
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

fn unsupported(name: &str, what: &str) -> datafusion::error::DataFusionError {
    ch_error(ErrorCode::NOT_IMPLEMENTED, format!("{name} of {what} is not supported yet"))
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

/// The hashes of a column of a type that is neither a tuple, an array nor a map.
fn leaf_hashes<H: Hasher>(hasher: &H, array: &ArrayRef, ch: &ChType) -> DfResult<Vec<H::Out>> {
    let kind = hash_kind(ch).map_err(|what| unsupported("hashing", &what))?;
    let rows = array.len();
    Ok(match kind {
        HashKind::Bytes => match array.data_type() {
            DataType::FixedSizeBinary(_) => {
                let fixed = array.as_fixed_size_binary();
                (0..rows).map(|i| hasher.bytes(i, fixed.value(i))).collect()
            }
            _ => {
                let binary = cast(array, &DataType::Binary)?;
                let binary = binary.as_binary::<i32>();
                (0..rows).map(|i| hasher.bytes(i, binary.value(i))).collect()
            }
        },
        HashKind::Int(width) => {
            let mask = if width == 8 { u64::MAX } else { (1u64 << (8 * width)) - 1 };
            let (values, mask, width) = match array.data_type() {
                DataType::UInt64 => (array.as_primitive::<UInt64Type>().values().clone(), u64::MAX, 8),
                _ => (cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().values().inner().clone().into(), mask, width),
            };
            hasher.numbers(&values, mask, width)
        }
        HashKind::Float32 => {
            let values = cast(array, &DataType::Float32)?;
            values.as_primitive::<Float32Type>().values().iter().enumerate().map(|(row, v)| hasher.number(row, u64::from(v.to_bits()), 4)).collect()
        }
        HashKind::Float64 => {
            let values = cast(array, &DataType::Float64)?;
            values.as_primitive::<Float64Type>().values().iter().enumerate().map(|(row, v)| hasher.number(row, v.to_bits(), 8)).collect()
        }
        HashKind::RawBytes(width) => match array.data_type() {
            DataType::Decimal128(..) => {
                let decimals = array.as_primitive::<Decimal128Type>();
                decimals.values().iter().enumerate().map(|(row, v)| hasher.bytes(row, &v.to_le_bytes()[..width])).collect()
            }
            DataType::Decimal256(..) => {
                let decimals = array.as_primitive::<datafusion::arrow::datatypes::Decimal256Type>();
                decimals.values().iter().enumerate().map(|(row, v)| hasher.bytes(row, &v.to_le_bytes()[..width])).collect()
            }
            _ => {
                let values = cast(array, &DataType::Int64)?;
                values.as_primitive::<Int64Type>().values().iter().enumerate().map(|(row, v)| hasher.bytes(row, &v.to_le_bytes()[..width.min(8)])).collect()
            }
        },
    })
}

/// The keys of the keyed SipHashes: one for all rows, or one per row.
#[derive(Clone)]
enum Keys {
    Constant(u64, u64),
    Rows(Vec<(u64, u64)>),
}

impl Keys {
    fn at(&self, row: usize) -> (u64, u64) {
        match self {
            Keys::Constant(key0, key1) => (*key0, *key1),
            Keys::Rows(keys) => keys.get(row).copied().unwrap_or_default(),
        }
    }

    fn for_elements(&self, offsets: &[usize], elements: usize) -> Keys {
        match self {
            Keys::Constant(..) => self.clone(),
            Keys::Rows(keys) => {
                let mut repeated = vec![(0, 0); elements];
                for (row, range) in offsets.windows(2).enumerate() {
                    repeated[range[0]..range[1]].fill(keys[row]);
                }
                Keys::Rows(repeated)
            }
        }
    }

    /// The key argument, a `Tuple(UInt64, UInt64)`.
    fn of_argument(ctx: &ExecCtx) -> DfResult<Keys> {
        let array = ctx.args[0].to_array(if ctx.scalar(0).is_some() { 1 } else { ctx.len })?;
        let tuple = array.as_struct_opt().filter(|t| t.num_columns() == 2).ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, "The key must be of type Tuple(UInt64, UInt64)"))?;
        let half = |i: usize, which: &str| {
            tuple.column(i).as_primitive_opt::<UInt64Type>().map(|c| c.values().clone()).ok_or_else(|| {
                ch_error(ErrorCode::BAD_ARGUMENTS, format!("The {which} element of the key tuple is not of type UInt64"))
            })
        };
        let (key0, key1) = (half(0, "1st")?, half(1, "2nd")?);
        Ok(match key0.len() {
            1 => Keys::Constant(key0[0], key1[0]),
            _ => Keys::Rows(key0.iter().copied().zip(key1.iter().copied()).collect()),
        })
    }
}

/// The hashes with 128-bit results (`FixedString(16)`, the little-endian bytes) and
/// `sipHash64Keyed`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Wide {
    Sip128,
    Sip128Reference,
    Murmur3_128,
    Sip64Keyed,
    Sip128Keyed,
    Sip128ReferenceKeyed,
    Xxh3_128,
}

impl Wide {
    fn name(self) -> &'static str {
        match self {
            Wide::Sip128 => "sipHash128",
            Wide::Sip128Reference => "sipHash128Reference",
            Wide::Murmur3_128 => "murmurHash3_128",
            Wide::Sip64Keyed => "sipHash64Keyed",
            Wide::Sip128Keyed => "sipHash128Keyed",
            Wide::Sip128ReferenceKeyed => "sipHash128ReferenceKeyed",
            Wide::Xxh3_128 => "xxh3_128",
        }
    }

    fn keyed(self) -> bool {
        matches!(self, Wide::Sip64Keyed | Wide::Sip128Keyed | Wide::Sip128ReferenceKeyed)
    }
}

/// A [`Wide`] algorithm with its keys (zero for the unkeyed ones). `sipHash64Keyed`'s
/// hashes are kept in the low half.
struct WideHasher {
    algorithm: Wide,
    keys: Keys,
}

impl Hasher for WideHasher {
    type Out = u128;

    fn bytes(&self, row: usize, data: &[u8]) -> u128 {
        let (key0, key1) = self.keys.at(row);
        let halves = |(low, high): (u64, u64)| u128::from(low) | u128::from(high) << 64;
        match self.algorithm {
            Wide::Murmur3_128 => halves(murmur3_x64_128(data)),
            Wide::Xxh3_128 => xxhash_rust::xxh3::xxh3_128(data),
            Wide::Sip64Keyed | Wide::Sip128 | Wide::Sip128Keyed => {
                let mut hasher = SipHasher::with_keys(key0, key1, false);
                hasher.update(data);
                match self.algorithm {
                    Wide::Sip64Keyed => u128::from(hasher.finish64()),
                    _ => halves(hasher.finish128()),
                }
            }
            Wide::Sip128Reference | Wide::Sip128ReferenceKeyed => {
                let mut hasher = SipHasher::with_keys(key0, key1, true);
                hasher.update(data);
                halves(hasher.finish128_reference())
            }
        }
    }

    fn combine(&self, row: usize, first: u128, second: u128) -> u128 {
        if self.algorithm == Wide::Sip64Keyed {
            let mut both = [0u8; 16];
            both[..8].copy_from_slice(&(first as u64).to_le_bytes());
            both[8..].copy_from_slice(&(second as u64).to_le_bytes());
            return self.bytes(row, &both);
        }
        let mut both = [0u8; 32];
        both[..16].copy_from_slice(&first.to_le_bytes());
        both[16..].copy_from_slice(&second.to_le_bytes());
        self.bytes(row, &both)
    }

    fn array_length(&self, length: u64) -> u128 {
        match self.algorithm {
            Wide::Sip64Keyed => u128::from(int_hash64(length)),
            _ => u128::from(int_hash32(length)),
        }
    }

    fn constant(&self, value: u128) -> u128 {
        match self.algorithm {
            Wide::Sip64Keyed => u128::from(value as u64),
            _ => value,
        }
    }

    /// Keyed, the NULL hash depends on the key.
    fn null(&self, row: usize) -> u128 {
        let null = self.constant(NULL_HASH);
        if self.algorithm.keyed() {
            self.combine(row, null, 0)
        } else {
            null
        }
    }

    fn for_elements(&self, offsets: &[usize], elements: usize) -> Self {
        WideHasher { algorithm: self.algorithm, keys: self.keys.for_elements(offsets, elements) }
    }
}

fn wide_hash_function(algorithm: Wide) -> ScalarUDF {
    let first_data = usize::from(algorithm.keyed());
    ScalarDef::new(
        algorithm.name(),
        Arity::at_least(first_data),
        move |ctx| {
            for i in first_data..ctx.arg_count() {
                check_hashable(&ctx.ch(i)).map_err(|what| unsupported(algorithm.name(), &what))?;
            }
            Ok(match algorithm {
                Wide::Sip64Keyed => ChType::UInt64,
                Wide::Xxh3_128 => ChType::UInt128,
                _ => ChType::FixedString(16),
            })
        },
        move |ctx| {
            let keys = if algorithm.keyed() { Keys::of_argument(ctx)? } else { Keys::Constant(0, 0) };
            let hashes = threaded_hashes(&WideHasher { algorithm, keys }, ctx, first_data)?;
            Ok(match algorithm {
                Wide::Sip64Keyed => Arc::new(UInt64Array::from_iter_values(hashes.into_iter().map(|h| h as u64))) as ArrayRef,
                Wide::Xxh3_128 => {
                    use datafusion::arrow::datatypes::{i256, Decimal256Type};
                    let words: datafusion::arrow::array::PrimitiveArray<Decimal256Type> = hashes.into_iter().map(|h| Some(i256::from_parts(h, 0))).collect();
                    Arc::new(words.with_data_type(granary_types::wide::WideInt::UInt128.arrow_type())) as ArrayRef
                }
                _ => {
                    let mut out = datafusion::arrow::array::FixedSizeBinaryBuilder::with_capacity(hashes.len(), 16);
                    for hash in hashes {
                        out.append_value(hash.to_le_bytes())?;
                    }
                    Arc::new(out.finish())
                }
            })
        },
    )
    .build()
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
