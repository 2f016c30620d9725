//! Byte-hashing algorithms ClickHouse links from its contrib libraries, written out so
//! that `metroHash64`, `farmHash64`, `farmFingerprint64`, `wyHash64`, `halfMD5` and `MD4`
//! give ClickHouse's values bit for bit (the `hash` module applies them to columns).
//!
//! Versions: MetroHash64 variant 1; FarmHash as ClickHouse builds it for x86_64 (SSE4.2 and
//! SSE4.1 on, release mode so no debug tweak), so `farmHash64` is `farmhashte::Hash64`,
//! whose inputs of 512 bytes and more go through 128-bit vector code, emulated here lane by
//! lane; `farmFingerprint64` is `farmhashna::Hash64`; wyhash is the "final 3" version with
//! its default secret.

fn fetch64(s: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(word)
}

fn fetch32(s: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&s[at..at + 4]);
    u64::from(u32::from_le_bytes(word))
}

/// `halfMD5`: the first 8 bytes of the MD5 digest, read big-endian.
pub(crate) fn half_md5(data: &[u8]) -> u64 {
    use md5::Digest;
    let digest = md5::Md5::digest(data);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// The 16 little-endian words of each 64-byte block of `data` padded as MD4, MD5 and
/// RIPEMD-160 pad it: a 1 bit, zeros, the length in bits (little-endian).
fn little_endian_blocks(data: &[u8]) -> Vec<[u32; 16]> {
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    message
        .chunks_exact(64)
        .map(|block| std::array::from_fn(|i| u32::from_le_bytes([block[4 * i], block[4 * i + 1], block[4 * i + 2], block[4 * i + 3]])))
        .collect()
}

/// MD4 (RFC 1320).
pub(crate) fn md4(data: &[u8]) -> Vec<u8> {
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    for x in little_endian_blocks(data) {
        let [mut a, mut b, mut c, mut d] = state;
        let f = |x: u32, y: u32, z: u32| (x & y) | (!x & z);
        let g = |x: u32, y: u32, z: u32| (x & y) | (x & z) | (y & z);
        let h = |x: u32, y: u32, z: u32| x ^ y ^ z;
        for i in [0, 4, 8, 12] {
            a = a.wrapping_add(f(b, c, d)).wrapping_add(x[i]).rotate_left(3);
            d = d.wrapping_add(f(a, b, c)).wrapping_add(x[i + 1]).rotate_left(7);
            c = c.wrapping_add(f(d, a, b)).wrapping_add(x[i + 2]).rotate_left(11);
            b = b.wrapping_add(f(c, d, a)).wrapping_add(x[i + 3]).rotate_left(19);
        }
        for i in 0..4 {
            let k = 0x5a82_7999u32;
            a = a.wrapping_add(g(b, c, d)).wrapping_add(x[i]).wrapping_add(k).rotate_left(3);
            d = d.wrapping_add(g(a, b, c)).wrapping_add(x[i + 4]).wrapping_add(k).rotate_left(5);
            c = c.wrapping_add(g(d, a, b)).wrapping_add(x[i + 8]).wrapping_add(k).rotate_left(9);
            b = b.wrapping_add(g(c, d, a)).wrapping_add(x[i + 12]).wrapping_add(k).rotate_left(13);
        }
        for i in [0, 2, 1, 3] {
            let k = 0x6ed9_eba1u32;
            a = a.wrapping_add(h(b, c, d)).wrapping_add(x[i]).wrapping_add(k).rotate_left(3);
            d = d.wrapping_add(h(a, b, c)).wrapping_add(x[i + 8]).wrapping_add(k).rotate_left(9);
            c = c.wrapping_add(h(d, a, b)).wrapping_add(x[i + 4]).wrapping_add(k).rotate_left(11);
            b = b.wrapping_add(h(c, d, a)).wrapping_add(x[i + 12]).wrapping_add(k).rotate_left(15);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    state.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// MetroHash64 variant 1 with seed 0.
pub(crate) fn metro_hash64(data: &[u8]) -> u64 {
    const K0: u64 = 0xC83A_91E1;
    const K1: u64 = 0x8648_DBDB;
    const K2: u64 = 0x7BDE_C03B;
    const K3: u64 = 0x2F58_70A5;
    let len = data.len();
    let mut hash = K2.wrapping_mul(K0).wrapping_add(len as u64);
    let mut at = 0;
    if len >= 32 {
        let mut v = [hash; 4];
        while len - at >= 32 {
            v[0] = v[0].wrapping_add(fetch64(data, at).wrapping_mul(K0)).rotate_right(29).wrapping_add(v[2]);
            v[1] = v[1].wrapping_add(fetch64(data, at + 8).wrapping_mul(K1)).rotate_right(29).wrapping_add(v[3]);
            v[2] = v[2].wrapping_add(fetch64(data, at + 16).wrapping_mul(K2)).rotate_right(29).wrapping_add(v[0]);
            v[3] = v[3].wrapping_add(fetch64(data, at + 24).wrapping_mul(K3)).rotate_right(29).wrapping_add(v[1]);
            at += 32;
        }
        v[2] ^= v[0].wrapping_add(v[3]).wrapping_mul(K0).wrapping_add(v[1]).rotate_right(33).wrapping_mul(K1);
        v[3] ^= v[1].wrapping_add(v[2]).wrapping_mul(K1).wrapping_add(v[0]).rotate_right(33).wrapping_mul(K0);
        v[0] ^= v[0].wrapping_add(v[2]).wrapping_mul(K0).wrapping_add(v[3]).rotate_right(33).wrapping_mul(K1);
        v[1] ^= v[1].wrapping_add(v[3]).wrapping_mul(K1).wrapping_add(v[2]).rotate_right(33).wrapping_mul(K0);
        hash = hash.wrapping_add(v[0] ^ v[1]);
    }
    if len - at >= 16 {
        let mut v0 = hash.wrapping_add(fetch64(data, at).wrapping_mul(K0)).rotate_right(33).wrapping_mul(K1);
        let mut v1 = hash.wrapping_add(fetch64(data, at + 8).wrapping_mul(K1)).rotate_right(33).wrapping_mul(K2);
        at += 16;
        v0 ^= v0.wrapping_mul(K0).rotate_right(35).wrapping_add(v1);
        v1 ^= v1.wrapping_mul(K3).rotate_right(35).wrapping_add(v0);
        hash = hash.wrapping_add(v1);
    }
    if len - at >= 8 {
        hash = hash.wrapping_add(fetch64(data, at).wrapping_mul(K3));
        at += 8;
        hash ^= hash.rotate_right(33).wrapping_mul(K1);
    }
    if len - at >= 4 {
        hash = hash.wrapping_add(fetch32(data, at).wrapping_mul(K3));
        at += 4;
        hash ^= hash.rotate_right(15).wrapping_mul(K1);
    }
    if len - at >= 2 {
        hash = hash.wrapping_add(u64::from(u16::from_le_bytes([data[at], data[at + 1]])).wrapping_mul(K3));
        at += 2;
        hash ^= hash.rotate_right(13).wrapping_mul(K1);
    }
    if len - at >= 1 {
        hash = hash.wrapping_add(u64::from(data[at]).wrapping_mul(K3));
        hash ^= hash.rotate_right(25).wrapping_mul(K1);
    }
    hash ^= hash.rotate_right(33);
    hash = hash.wrapping_mul(K0);
    hash ^ hash.rotate_right(33)
}

/// wyhash ("final 3") with seed 0 and the default secret.
pub(crate) fn wy_hash64(data: &[u8]) -> u64 {
    const SECRET: [u64; 4] = [0xa076_1d64_78bd_642f, 0xe703_7ed1_a0b4_28db, 0x8ebc_6af0_9c88_c6e3, 0x5899_65cc_7537_4cc3];
    let mix = |a: u64, b: u64| {
        let product = u128::from(a) * u128::from(b);
        (product as u64) ^ ((product >> 64) as u64)
    };
    let len = data.len();
    let mut seed = SECRET[0];
    let (a, b) = if len <= 16 {
        if len >= 4 {
            let quarter = (len >> 3) << 2;
            ((fetch32(data, 0) << 32) | fetch32(data, quarter), (fetch32(data, len - 4) << 32) | fetch32(data, len - 4 - quarter))
        } else if len > 0 {
            ((u64::from(data[0]) << 16) | (u64::from(data[len >> 1]) << 8) | u64::from(data[len - 1]), 0)
        } else {
            (0, 0)
        }
    } else {
        let mut at = 0;
        let mut left = len;
        if left > 48 {
            let (mut see1, mut see2) = (seed, seed);
            while left > 48 {
                seed = mix(fetch64(data, at) ^ SECRET[1], fetch64(data, at + 8) ^ seed);
                see1 = mix(fetch64(data, at + 16) ^ SECRET[2], fetch64(data, at + 24) ^ see1);
                see2 = mix(fetch64(data, at + 32) ^ SECRET[3], fetch64(data, at + 40) ^ see2);
                at += 48;
                left -= 48;
            }
            seed ^= see1 ^ see2;
        }
        while left > 16 {
            seed = mix(fetch64(data, at) ^ SECRET[1], fetch64(data, at + 8) ^ seed);
            at += 16;
            left -= 16;
        }
        (fetch64(data, at + left - 16), fetch64(data, at + left - 8))
    };
    mix(SECRET[1] ^ len as u64, mix(a ^ SECRET[1], b ^ seed))
}

const FK0: u64 = 0xc3a5_c85c_97cb_3127;
const FK1: u64 = 0xb492_b66f_be98_f273;
const FK2: u64 = 0x9ae1_6a3b_2f90_404f;

fn shift_mix(value: u64) -> u64 {
    value ^ (value >> 47)
}

fn hash_len16_mul(u: u64, v: u64, mul: u64) -> u64 {
    let a = shift_mix((u ^ v).wrapping_mul(mul));
    let b = shift_mix((v ^ a).wrapping_mul(mul));
    b.wrapping_mul(mul)
}

/// FarmHash's `Fingerprint(uint128)`, which `farmFingerprint64` combines arguments with.
pub(crate) fn farm_fingerprint128(low: u64, high: u64) -> u64 {
    const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let a = shift_mix((low ^ high).wrapping_mul(MUL));
    let mut b = (high ^ a).wrapping_mul(MUL);
    b ^= b >> 44;
    b = b.wrapping_mul(MUL);
    b ^= b >> 41;
    b.wrapping_mul(MUL)
}

fn farm_len0to16(s: &[u8]) -> u64 {
    let len = s.len() as u64;
    if s.len() >= 8 {
        let mul = FK2.wrapping_add(len * 2);
        let a = fetch64(s, 0).wrapping_add(FK2);
        let b = fetch64(s, s.len() - 8);
        let c = b.rotate_right(37).wrapping_mul(mul).wrapping_add(a);
        let d = a.rotate_right(25).wrapping_add(b).wrapping_mul(mul);
        return hash_len16_mul(c, d, mul);
    }
    if s.len() >= 4 {
        let mul = FK2.wrapping_add(len * 2);
        return hash_len16_mul(len.wrapping_add(fetch32(s, 0) << 3), fetch32(s, s.len() - 4), mul);
    }
    if !s.is_empty() {
        let y = u32::from(s[0]).wrapping_add(u32::from(s[s.len() >> 1]) << 8);
        let z = (len as u32).wrapping_add(u32::from(s[s.len() - 1]) << 2);
        return shift_mix(u64::from(y).wrapping_mul(FK2) ^ u64::from(z).wrapping_mul(FK0)).wrapping_mul(FK2);
    }
    FK2
}

fn farm_len17to32(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = FK2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(FK1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(FK2);
    hash_len16_mul(
        a.wrapping_add(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d),
        a.wrapping_add(b.wrapping_add(FK2).rotate_right(18)).wrapping_add(c),
        mul,
    )
}

fn weak_hash_len32_with_seeds(s: &[u8], at: usize, mut a: u64, mut b: u64) -> (u64, u64) {
    let (w, x, y, z) = (fetch64(s, at), fetch64(s, at + 8), fetch64(s, at + 16), fetch64(s, at + 24));
    a = a.wrapping_add(w);
    b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

fn farm_na_len33to64(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = FK2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(FK2);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(FK2);
    let y = a.wrapping_add(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d);
    let z = hash_len16_mul(y, a.wrapping_add(b.wrapping_add(FK2).rotate_right(18)).wrapping_add(c), mul);
    let e = fetch64(s, 16).wrapping_mul(mul);
    let f = fetch64(s, 24);
    let g = y.wrapping_add(fetch64(s, len - 32)).wrapping_mul(mul);
    let h = z.wrapping_add(fetch64(s, len - 24)).wrapping_mul(mul);
    hash_len16_mul(
        e.wrapping_add(f).rotate_right(43).wrapping_add(g.rotate_right(30)).wrapping_add(h),
        e.wrapping_add(f.wrapping_add(a).rotate_right(18)).wrapping_add(g),
        mul,
    )
}

/// `farmhashna::Hash64`, which is `Fingerprint64`.
pub(crate) fn farm_fingerprint64(s: &[u8]) -> u64 {
    let len = s.len();
    if len <= 16 {
        return farm_len0to16(s);
    }
    if len <= 32 {
        return farm_len17to32(s);
    }
    if len <= 64 {
        return farm_na_len33to64(s);
    }
    const SEED: u64 = 81;
    let mut x = SEED;
    let mut y = SEED.wrapping_mul(FK1).wrapping_add(113);
    let mut z = shift_mix(y.wrapping_mul(FK2).wrapping_add(113)).wrapping_mul(FK2);
    let mut v = (0u64, 0u64);
    let mut w = (0u64, 0u64);
    x = x.wrapping_mul(FK2).wrapping_add(fetch64(s, 0));
    let end = ((len - 1) / 64) * 64;
    let mut at = 0;
    loop {
        x = x.wrapping_add(y).wrapping_add(v.0).wrapping_add(fetch64(s, at + 8)).rotate_right(37).wrapping_mul(FK1);
        y = y.wrapping_add(v.1).wrapping_add(fetch64(s, at + 48)).rotate_right(42).wrapping_mul(FK1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(fetch64(s, at + 40));
        z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(FK1);
        v = weak_hash_len32_with_seeds(s, at, v.1.wrapping_mul(FK1), x.wrapping_add(w.0));
        w = weak_hash_len32_with_seeds(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, at + 16)));
        std::mem::swap(&mut z, &mut x);
        at += 64;
        if at == end {
            break;
        }
    }
    let mul = FK1.wrapping_add((z & 0xff) << 1);
    at = len - 64;
    w.0 = w.0.wrapping_add(((len - 1) & 63) as u64);
    v.0 = v.0.wrapping_add(w.0);
    w.0 = w.0.wrapping_add(v.0);
    x = x.wrapping_add(y).wrapping_add(v.0).wrapping_add(fetch64(s, at + 8)).rotate_right(37).wrapping_mul(mul);
    y = y.wrapping_add(v.1).wrapping_add(fetch64(s, at + 48)).rotate_right(42).wrapping_mul(mul);
    x ^= w.1.wrapping_mul(9);
    y = y.wrapping_add(v.0.wrapping_mul(9)).wrapping_add(fetch64(s, at + 40));
    z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(mul);
    v = weak_hash_len32_with_seeds(s, at, v.1.wrapping_mul(mul), x.wrapping_add(w.0));
    w = weak_hash_len32_with_seeds(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, at + 16)));
    std::mem::swap(&mut z, &mut x);
    hash_len16_mul(
        hash_len16_mul(v.0, w.0, mul).wrapping_add(shift_mix(y).wrapping_mul(FK0)).wrapping_add(z),
        hash_len16_mul(v.1, w.1, mul).wrapping_add(x),
        mul,
    )
}

/// `farmhashuo::Hash64WithSeeds` for inputs over 64 bytes.
fn farm_uo_long(s: &[u8], seed0: u64, seed1: u64) -> u64 {
    let h = |x: u64, y: u64, mul: u64, r: u32| {
        let a = shift_mix((x ^ y).wrapping_mul(mul));
        (y ^ a).wrapping_mul(mul).rotate_right(r).wrapping_mul(mul)
    };
    let len = s.len();
    let mut x = seed0;
    let mut y = seed1.wrapping_mul(FK2).wrapping_add(113);
    let mut z = shift_mix(y.wrapping_mul(FK2)).wrapping_mul(FK2);
    let mut v = (seed0, seed1);
    let mut w = (0u64, 0u64);
    let mut u = x.wrapping_sub(z);
    x = x.wrapping_mul(FK2);
    let mul = FK2.wrapping_add(u & 0x82);
    let end = ((len - 1) / 64) * 64;
    let mut at = 0;
    loop {
        let a: [u64; 8] = std::array::from_fn(|i| fetch64(s, at + 8 * i));
        x = x.wrapping_add(a[0]).wrapping_add(a[1]);
        y = y.wrapping_add(a[2]);
        z = z.wrapping_add(a[3]);
        v.0 = v.0.wrapping_add(a[4]);
        v.1 = v.1.wrapping_add(a[5]).wrapping_add(a[1]);
        w.0 = w.0.wrapping_add(a[6]);
        w.1 = w.1.wrapping_add(a[7]);
        x = x.rotate_right(26).wrapping_mul(9);
        y = y.rotate_right(29);
        z = z.wrapping_mul(mul);
        v.0 = v.0.rotate_right(33);
        v.1 = v.1.rotate_right(30);
        w.0 = (w.0 ^ x).wrapping_mul(9);
        z = z.rotate_right(32).wrapping_add(w.1);
        w.1 = w.1.wrapping_add(z);
        z = z.wrapping_mul(9);
        std::mem::swap(&mut u, &mut y);
        z = z.wrapping_add(a[0]).wrapping_add(a[6]);
        v.0 = v.0.wrapping_add(a[2]);
        v.1 = v.1.wrapping_add(a[3]);
        w.0 = w.0.wrapping_add(a[4]);
        w.1 = w.1.wrapping_add(a[5]).wrapping_add(a[6]);
        x = x.wrapping_add(a[1]);
        y = y.wrapping_add(a[7]);
        y = y.wrapping_add(v.0);
        v.0 = v.0.wrapping_add(x.wrapping_sub(y));
        v.1 = v.1.wrapping_add(w.0);
        w.0 = w.0.wrapping_add(v.1);
        w.1 = w.1.wrapping_add(x.wrapping_sub(y));
        x = x.wrapping_add(w.1);
        w.1 = w.1.rotate_right(34);
        std::mem::swap(&mut u, &mut z);
        at += 64;
        if at == end {
            break;
        }
    }
    at = len - 64;
    u = u.wrapping_mul(9);
    v.1 = v.1.rotate_right(28);
    v.0 = v.0.rotate_right(20);
    w.0 = w.0.wrapping_add(((len - 1) & 63) as u64);
    u = u.wrapping_add(y);
    y = y.wrapping_add(u);
    x = y.wrapping_sub(x).wrapping_add(v.0).wrapping_add(fetch64(s, at + 8)).rotate_right(37).wrapping_mul(mul);
    y = (y ^ v.1 ^ fetch64(s, at + 48)).rotate_right(42).wrapping_mul(mul);
    x ^= w.1.wrapping_mul(9);
    y = y.wrapping_add(v.0).wrapping_add(fetch64(s, at + 40));
    z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(mul);
    v = weak_hash_len32_with_seeds(s, at, v.1.wrapping_mul(mul), x.wrapping_add(w.0));
    w = weak_hash_len32_with_seeds(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, at + 16)));
    h(
        hash_len16_mul(v.0.wrapping_add(x), w.0 ^ y, mul).wrapping_add(z).wrapping_sub(u),
        h(v.1.wrapping_add(y), w.1.wrapping_add(z), FK2, 30) ^ x,
        FK2,
        31,
    )
}

fn farm_xo_h32(s: &[u8], len: usize, mul: u64, seed0: u64, seed1: u64) -> u64 {
    let a = fetch64(s, 0).wrapping_mul(FK1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(FK2);
    let u = a.wrapping_add(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d).wrapping_add(seed0);
    let v = a.wrapping_add(b.wrapping_add(FK2).rotate_right(18)).wrapping_add(c).wrapping_add(seed1);
    let a = shift_mix((u ^ v).wrapping_mul(mul));
    shift_mix((v ^ a).wrapping_mul(mul))
}

/// `farmhashxo::Hash64`.
fn farm_xo(s: &[u8]) -> u64 {
    let len = s.len();
    let wide = len as u64;
    match len {
        0..=16 => farm_len0to16(s),
        17..=32 => farm_len17to32(s),
        33..=64 => {
            let mul0 = FK2.wrapping_sub(30);
            let mul1 = mul0.wrapping_add(2 * wide);
            let h0 = farm_xo_h32(s, 32, mul0, 0, 0);
            let h1 = farm_xo_h32(&s[len - 32..], 32, mul1, 0, 0);
            h1.wrapping_mul(mul1).wrapping_add(h0).wrapping_mul(mul1)
        }
        65..=96 => {
            let mul0 = FK2.wrapping_sub(114);
            let mul1 = mul0.wrapping_add(2 * wide);
            let h0 = farm_xo_h32(s, 32, mul0, 0, 0);
            let h1 = farm_xo_h32(&s[32..], 32, mul1, 0, 0);
            let h2 = farm_xo_h32(&s[len - 32..], 32, mul1, h0, h1);
            h2.wrapping_mul(9).wrapping_add(h0 >> 17).wrapping_add(h1 >> 21).wrapping_mul(mul1)
        }
        97..=256 => farm_fingerprint64(s),
        _ => farm_uo_long(s, 81, 0),
    }
}

/// One SSE register as little-endian bytes, with the few operations FarmHash's
/// `Hash64Long` uses.
#[derive(Clone, Copy)]
struct Lanes(u128);

impl Lanes {
    fn bytes(bytes: [u8; 16]) -> Lanes {
        Lanes(u128::from_le_bytes(bytes))
    }

    fn low(value: u64) -> Lanes {
        Lanes(u128::from(value))
    }

    fn splat32(value: u64) -> Lanes {
        let v = u128::from(value as u32);
        Lanes(v | v << 32 | v << 64 | v << 96)
    }

    fn dwords(self) -> [u32; 4] {
        std::array::from_fn(|i| (self.0 >> (32 * i)) as u32)
    }

    fn from_dwords(d: [u32; 4]) -> Lanes {
        Lanes(d.iter().enumerate().fold(0u128, |acc, (i, v)| acc | u128::from(*v) << (32 * i)))
    }

    /// `_mm_add_epi64`.
    fn add(self, other: Lanes) -> Lanes {
        let low = (self.0 as u64).wrapping_add(other.0 as u64);
        let high = ((self.0 >> 64) as u64).wrapping_add((other.0 >> 64) as u64);
        Lanes(u128::from(low) | u128::from(high) << 64)
    }

    fn xor(self, other: Lanes) -> Lanes {
        Lanes(self.0 ^ other.0)
    }

    /// `_mm_mullo_epi32`.
    fn mul(self, other: Lanes) -> Lanes {
        let (a, b) = (self.dwords(), other.dwords());
        Lanes::from_dwords(std::array::from_fn(|i| a[i].wrapping_mul(b[i])))
    }

    /// `_mm_shuffle_epi8(self, control)` with a control whose bytes are all below 16.
    fn shuffle(self, control: Lanes) -> Lanes {
        let (from, control) = (self.0.to_le_bytes(), control.0.to_le_bytes());
        Lanes::bytes(std::array::from_fn(|i| from[usize::from(control[i] & 15)]))
    }

    /// `_mm_shuffle_epi32(self, 0b00_11_10_01)`: dwords rotated down by one.
    fn rotate_dwords(self) -> Lanes {
        let d = self.dwords();
        Lanes::from_dwords([d[1], d[2], d[3], d[0]])
    }
}

/// `farmhashte::Hash64Long` (inputs of at least 512 bytes).
fn farm_te_long(s: &[u8], seed0: u64, seed1: u64) -> u64 {
    // `_mm_set_epi8` lists bytes from the highest down.
    let shuf = Lanes::bytes([1, 3, 7, 0, 13, 14, 2, 12, 9, 6, 15, 8, 5, 10, 11, 4]);
    let mult = Lanes::bytes([0x51, 0x2d, 0x9e, 0xcc, 0xed, 0x33, 0x3e, 0x34, 0x03, 0xfa, 0x54, 0x45, 0x39, 0x33, 0xd6, 0xbd]);
    let n = s.len();
    let seed2 = seed0.wrapping_add(113).wrapping_mul(seed1.wrapping_add(9));
    let seed3 = seed0.rotate_right(23).wrapping_add(27).wrapping_mul(seed1.rotate_right(30).wrapping_add(111));
    let mut d = [Lanes(0); 12];
    d[0] = Lanes::low(seed0);
    d[1] = Lanes::low(seed1);
    d[2] = d[0].shuffle(shuf);
    d[3] = d[1].shuffle(shuf);
    d[4] = d[0].xor(d[1]);
    d[5] = d[1].xor(d[2]);
    d[6] = d[2].xor(d[4]);
    d[7] = Lanes::splat32(seed2 >> 32);
    d[8] = mult.mul(d[2]);
    d[9] = Lanes::splat32(seed3 >> 32);
    d[10] = Lanes::splat32(seed3);
    d[11] = d[2].add(Lanes::splat32(seed2));
    let fetch = |at: usize| {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&s[at..at + 16]);
        Lanes::bytes(bytes)
    };
    let end = n & !255;
    let mut at = 0;
    // The steps of one 256-byte round: (operation, register, operand register); `Z` is the
    // 16 bytes just read. Written as data so the round reads like the original's listing.
    #[derive(Clone, Copy)]
    enum Op {
        Load(usize),
        AddZ(usize),
        Add(usize, usize),
        XorZ(usize),
        Xor(usize, usize),
        Shuf(usize),
        Mul(usize),
        Swap(usize, usize),
    }
    use Op::*;
    const ROUND: &[Op] = &[
        Load(0), AddZ(0), Shuf(1), Xor(2, 0), XorZ(4), Xor(4, 1), Swap(0, 6),
        Load(16), AddZ(5), Shuf(6), Shuf(8), Xor(7, 5), XorZ(0), Xor(0, 6), Swap(5, 11),
        Load(32), AddZ(1), Shuf(2), Shuf(4), XorZ(5), Xor(5, 2), Swap(10, 4),
        Load(48), AddZ(6), Shuf(7), Shuf(0), Xor(8, 6), XorZ(1), Add(1, 7),
        Load(64), AddZ(2), Shuf(5), Add(4, 2), XorZ(6), Xor(6, 11), Swap(8, 2),
        Load(80), XorZ(7), Shuf(8), Shuf(1), Add(0, 7), AddZ(2), Add(2, 8), Swap(1, 7),
        Load(96), Shuf(4), Shuf(6), Mul(8), Xor(5, 11), XorZ(7), Add(7, 4), Swap(6, 0),
        Load(112), AddZ(8), Shuf(0), Shuf(2), Xor(1, 8), XorZ(10), Xor(10, 0), Swap(11, 5),
        Load(128), AddZ(4), Shuf(5), Shuf(7), Add(6, 4), XorZ(8), Xor(8, 5), Swap(4, 10),
        Load(144), AddZ(0), Shuf(1), Add(2, 0), XorZ(4), Xor(4, 1),
        Load(160), AddZ(5), Shuf(6), Shuf(8), Xor(7, 5), XorZ(0), Xor(0, 6), Swap(2, 8),
        Load(176), AddZ(1), Shuf(2), Shuf(4), Mul(5), XorZ(5), Xor(5, 2), Swap(7, 1),
        Load(192), AddZ(6), Shuf(7), Shuf(0), Add(8, 6), XorZ(1), Xor(1, 7), Swap(0, 6),
        Load(208), AddZ(2), Shuf(5), Xor(4, 2), XorZ(6), Xor(6, 9), Swap(5, 11),
        Load(224), AddZ(7), Shuf(8), Shuf(1), Xor(0, 7), XorZ(2), Xor(2, 8), Swap(10, 4),
        Load(240), AddZ(3), Shuf(4), Shuf(6), Mul(7), Add(5, 3), XorZ(7), Xor(7, 4), Swap(3, 9),
    ];
    loop {
        let mut z = Lanes(0);
        for op in ROUND {
            match *op {
                Load(offset) => z = fetch(at + offset),
                AddZ(r) => d[r] = d[r].add(z),
                Add(r, o) => d[r] = d[r].add(d[o]),
                XorZ(r) => d[r] = d[r].xor(z),
                Xor(r, o) => d[r] = d[r].xor(d[o]),
                Shuf(r) => d[r] = d[r].shuffle(shuf),
                Mul(r) => d[r] = mult.mul(d[r]),
                Swap(a, b) => d.swap(a, b),
            }
        }
        at += 256;
        if at == end {
            break;
        }
    }
    d[6] = mult.mul(d[6]).add(Lanes::low(n as u64));
    if n % 256 != 0 {
        d[7] = d[8].rotate_dwords().add(d[7]);
        d[8] = mult.mul(d[8]).add(Lanes::low(farm_xo(&s[at..])));
    }
    let finish = |x: Lanes| mult.mul(mult.mul(x).shuffle(shuf));
    d[0] = d[11].add(finish(d[0]));
    d[3] = d[7].xor(finish(d[3]));
    d[9] = d[8].add(finish(d[9]));
    d[1] = d[10].add(finish(d[1]));
    d[4] = d[3].add(d[4]);
    d[5] = d[9].add(d[5]);
    d[6] = d[1].xor(d[6]);
    d[2] = d[0].add(d[2]);
    let t: Vec<u8> = [d[0], d[3], d[9], d[1], d[4], d[5], d[6], d[2]].iter().flat_map(|l| l.0.to_le_bytes()).collect();
    farm_xo(&t)
}

/// `farmHash64`: `farmhashte::Hash64`.
pub(crate) fn farm_hash64(s: &[u8]) -> u64 {
    if s.len() >= 512 {
        farm_te_long(s, FK2, FK1)
    } else {
        farm_xo(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by ClickHouse 26.9 (chdb).
    #[test]
    fn match_clickhouse() {
        let alphabet = b"abcdefghijklmnopqrstuvwxyz".repeat(3);
        let bytes: Vec<u8> = (0..=255u8).cycle().take(768).collect();
        let farm: [(&[u8], u64); 10] = [
            (b"", 11160318154034397263),
            (b"abc", 2640714258260161385),
            (&[b'x'; 600], 2833855622635864270),
            (&alphabet, 8259265855885178619),
            (&bytes, 9192658774189706927),
            (&[b'y'; 300], 4461665720954140517),
            (&[b'z'; 90], 12277873551623638100),
            (&[b'q'; 50], 12189251946338257247),
            (&[b'w'; 20], 18012062040955032861),
            (&[b'e'; 10], 7066712306104839891),
        ];
        for (input, expected) in farm {
            assert_eq!(farm_hash64(input), expected, "farmHash64 of {} bytes", input.len());
        }
        let fingerprint: [(&[u8], u64); 5] = [
            (&[b'x'; 600], 10658009763655734388),
            (&alphabet, 2696092514900278104),
            (&[b'y'; 300], 18365502380739032300),
            (&[b'z'; 90], 12563252887622368181),
            (&[b'q'; 50], 3380760338401532627),
        ];
        for (input, expected) in fingerprint {
            assert_eq!(farm_fingerprint64(input), expected, "farmFingerprint64 of {} bytes", input.len());
        }
        let wy: [(&[u8], u64); 5] = [
            (b"", 4808886099364463827),
            (b"a", 7852112099385141351),
            (b"abc", 13006551795127091151),
            (b"abcdefghijklmnopq", 10148198540678847605),
            (&[b'x'; 100], 16648891623412698744),
        ];
        for (input, expected) in wy {
            assert_eq!(wy_hash64(input), expected, "wyHash64 of {} bytes", input.len());
        }
        assert_eq!(metro_hash64(b"abc"), 983152225323542437);
        assert_eq!(half_md5(b"abc"), 10376663631224000432);
    }
}

/// RIPEMD-160 (Dobbertin, Bosselaers, Preneel), as OpenSSL computes it for ClickHouse.
pub(crate) fn ripemd160(data: &[u8]) -> [u8; 20] {
    const R_LEFT: [usize; 80] = [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8, 3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0,
        6, 13, 11, 5, 12, 1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2, 4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
    ];
    const R_RIGHT: [usize; 80] = [
        5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2, 15, 5, 1, 3, 7, 14, 6, 9, 11, 8,
        12, 2, 10, 0, 4, 13, 8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14, 12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
    ];
    const S_LEFT: [u32; 80] = [
        11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8, 7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12, 11, 13, 6, 7, 14, 9, 13, 15, 14,
        8, 13, 6, 5, 12, 7, 5, 11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12, 9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
    ];
    const S_RIGHT: [u32; 80] = [
        8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6, 9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11, 9, 7, 15, 11, 8, 6, 6, 14, 12,
        13, 5, 14, 13, 13, 7, 5, 15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8, 8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
    ];
    const K_LEFT: [u32; 5] = [0, 0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xA953_FD4E];
    const K_RIGHT: [u32; 5] = [0x50A2_8BE6, 0x5C4D_D124, 0x6D70_3EF3, 0x7A6D_76E9, 0];
    fn f(round: usize, x: u32, y: u32, z: u32) -> u32 {
        match round {
            0 => x ^ y ^ z,
            1 => (x & y) | (!x & z),
            2 => (x | !y) ^ z,
            3 => (x & z) | (y & !z),
            _ => x ^ (y | !z),
        }
    }
    let mut h: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];
    for x in little_endian_blocks(data) {
        let (mut al, mut bl, mut cl, mut dl, mut el) = (h[0], h[1], h[2], h[3], h[4]);
        let (mut ar, mut br, mut cr, mut dr, mut er) = (h[0], h[1], h[2], h[3], h[4]);
        for j in 0..80 {
            let round = j / 16;
            let t = al.wrapping_add(f(round, bl, cl, dl)).wrapping_add(x[R_LEFT[j]]).wrapping_add(K_LEFT[round]).rotate_left(S_LEFT[j]).wrapping_add(el);
            (al, el, dl, cl, bl) = (el, dl, cl.rotate_left(10), bl, t);
            let t = ar.wrapping_add(f(4 - round, br, cr, dr)).wrapping_add(x[R_RIGHT[j]]).wrapping_add(K_RIGHT[round]).rotate_left(S_RIGHT[j]).wrapping_add(er);
            (ar, er, dr, cr, br) = (er, dr, cr.rotate_left(10), br, t);
        }
        let t = h[1].wrapping_add(cl).wrapping_add(dr);
        h[1] = h[2].wrapping_add(dl).wrapping_add(er);
        h[2] = h[3].wrapping_add(el).wrapping_add(ar);
        h[3] = h[4].wrapping_add(al).wrapping_add(br);
        h[4] = h[0].wrapping_add(bl).wrapping_add(cr);
        h[0] = t;
    }
    let mut out = [0u8; 20];
    for (i, word) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&word.to_le_bytes());
    }
    out
}
