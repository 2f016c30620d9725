//! CityHash 1.0.2, the version ClickHouse froze: `cityHash64` in SQL, and CityHash128 as
//! the checksum of every compressed block (`compress=1` on HTTP, parts on disk). Later
//! CityHash releases changed the results, so this one must not be "upgraded".

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K3: u64 = 0xc949_d7c7_509e_6557;
const K_MUL: u64 = 0x9ddf_ea08_eb38_2d69;

// Written as array conversions, not `copy_from_slice`: the compiler left that as a call
// to a slice-copy function (a memcpy of 8 bytes) inside CityHash's loops, which made
// hashing short strings for `uniq` twice as slow. The slice's length is always the
// array's, so the conversion never fails.
#[inline(always)]
fn fetch64(s: &[u8], at: usize) -> u64 {
    s[at..at + 8].try_into().map_or(0, u64::from_le_bytes)
}

#[inline(always)]
fn fetch32(s: &[u8], at: usize) -> u64 {
    s[at..at + 4].try_into().map_or(0, |bytes| u64::from(u32::from_le_bytes(bytes)))
}

fn rotate(value: u64, shift: u32) -> u64 {
    value.rotate_right(shift)
}

fn shift_mix(value: u64) -> u64 {
    value ^ (value >> 47)
}

/// Mixes two 64-bit values into one (ClickHouse's `Hash128to64`, also used to combine
/// the hashes of several arguments).
#[inline]
pub fn hash128_to_64(low: u64, high: u64) -> u64 {
    let mut a = (low ^ high).wrapping_mul(K_MUL);
    a ^= a >> 47;
    let mut b = (high ^ a).wrapping_mul(K_MUL);
    b ^= b >> 47;
    b.wrapping_mul(K_MUL)
}

fn hash_len16(u: u64, v: u64) -> u64 {
    hash128_to_64(u, v)
}

fn hash_len0to16(s: &[u8]) -> u64 {
    let len = s.len();
    if len > 8 {
        let a = fetch64(s, 0);
        let b = fetch64(s, len - 8);
        return hash_len16(a, rotate(b.wrapping_add(len as u64), len as u32)) ^ b;
    }
    if len >= 4 {
        let a = fetch32(s, 0);
        return hash_len16((len as u64).wrapping_add(a << 3), fetch32(s, len - 4));
    }
    if len > 0 {
        let (a, b, c) = (u32::from(s[0]), u32::from(s[len >> 1]), u32::from(s[len - 1]));
        let y = a.wrapping_add(b << 8);
        let z = (len as u32).wrapping_add(c << 2);
        return shift_mix(u64::from(y).wrapping_mul(K2) ^ u64::from(z).wrapping_mul(K3)).wrapping_mul(K2);
    }
    K2
}

fn hash_len17to32(s: &[u8]) -> u64 {
    let len = s.len();
    let a = fetch64(s, 0).wrapping_mul(K1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(K2);
    let d = fetch64(s, len - 16).wrapping_mul(K0);
    hash_len16(
        rotate(a.wrapping_sub(b), 43).wrapping_add(rotate(c, 30)).wrapping_add(d),
        a.wrapping_add(rotate(b ^ K3, 20)).wrapping_sub(c).wrapping_add(len as u64),
    )
}

fn weak_hash_len32_with_seeds_values(w: u64, x: u64, y: u64, z: u64, mut a: u64, mut b: u64) -> (u64, u64) {
    a = a.wrapping_add(w);
    b = rotate(b.wrapping_add(a).wrapping_add(z), 21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(rotate(a, 44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

fn weak_hash_len32_with_seeds(s: &[u8], at: usize, a: u64, b: u64) -> (u64, u64) {
    weak_hash_len32_with_seeds_values(fetch64(s, at), fetch64(s, at + 8), fetch64(s, at + 16), fetch64(s, at + 24), a, b)
}

fn hash_len33to64(s: &[u8]) -> u64 {
    let len = s.len();
    let mut z = fetch64(s, 24);
    let mut a = fetch64(s, 0).wrapping_add((len as u64).wrapping_add(fetch64(s, len - 16)).wrapping_mul(K0));
    let mut b = rotate(a.wrapping_add(z), 52);
    let mut c = rotate(a, 37);
    a = a.wrapping_add(fetch64(s, 8));
    c = c.wrapping_add(rotate(a, 7));
    a = a.wrapping_add(fetch64(s, 16));
    let vf = a.wrapping_add(z);
    let vs = b.wrapping_add(rotate(a, 31)).wrapping_add(c);
    a = fetch64(s, 16).wrapping_add(fetch64(s, len - 32));
    z = fetch64(s, len - 8);
    b = rotate(a.wrapping_add(z), 52);
    c = rotate(a, 37);
    a = a.wrapping_add(fetch64(s, len - 24));
    c = c.wrapping_add(rotate(a, 7));
    a = a.wrapping_add(fetch64(s, len - 16));
    let wf = a.wrapping_add(z);
    let ws = b.wrapping_add(rotate(a, 31)).wrapping_add(c);
    let r = shift_mix(vf.wrapping_add(ws).wrapping_mul(K2).wrapping_add(wf.wrapping_add(vs).wrapping_mul(K0)));
    shift_mix(r.wrapping_mul(K0).wrapping_add(vs)).wrapping_mul(K2)
}

/// One 64-byte step of the long-input loop shared by CityHash64 and CityHash128.
fn mix_chunk64(s: &[u8], at: usize, x: &mut u64, y: &mut u64, z: &mut u64, v: &mut (u64, u64), w: &mut (u64, u64)) {
    *x = rotate(x.wrapping_add(*y).wrapping_add(v.0).wrapping_add(fetch64(s, at + 16)), 37).wrapping_mul(K1);
    *y = rotate(y.wrapping_add(v.1).wrapping_add(fetch64(s, at + 48)), 42).wrapping_mul(K1);
    *x ^= w.1;
    *y ^= v.0;
    *z = rotate(*z ^ w.0, 33);
    *v = weak_hash_len32_with_seeds(s, at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
    *w = weak_hash_len32_with_seeds(s, at + 32, z.wrapping_add(w.1), *y);
    std::mem::swap(z, x);
}

/// CityHash64 (v1.0.2) of `s`.
pub fn city_hash64(s: &[u8]) -> u64 {
    let len = s.len();
    if len <= 16 {
        return hash_len0to16(s);
    }
    if len <= 32 {
        return hash_len17to32(s);
    }
    if len <= 64 {
        return hash_len33to64(s);
    }
    // Over 64 bytes: hash the end first, then 64-byte chunks keeping 56 bytes of state.
    let mut x = fetch64(s, 0);
    let mut y = fetch64(s, len - 16) ^ K1;
    let mut z = fetch64(s, len - 56) ^ K0;
    let mut v = weak_hash_len32_with_seeds(s, len - 64, len as u64, y);
    let mut w = weak_hash_len32_with_seeds(s, len - 32, (len as u64).wrapping_mul(K1), K0);
    z = z.wrapping_add(shift_mix(v.1).wrapping_mul(K1));
    x = rotate(z.wrapping_add(x), 39).wrapping_mul(K1);
    y = rotate(y, 33).wrapping_mul(K1);
    let mut remaining = (len - 1) & !63;
    let mut at = 0;
    loop {
        mix_chunk64(s, at, &mut x, &mut y, &mut z, &mut v, &mut w);
        at += 64;
        remaining -= 64;
        if remaining == 0 {
            break;
        }
    }
    hash_len16(
        hash_len16(v.0, w.0).wrapping_add(shift_mix(y).wrapping_mul(K1)).wrapping_add(z),
        hash_len16(v.1, w.1).wrapping_add(x),
    )
}

fn city_murmur(s: &[u8], seed: (u64, u64)) -> (u64, u64) {
    let len = s.len();
    let (mut a, mut b) = seed;
    let mut c;
    let mut d;
    if len <= 16 {
        a = shift_mix(a.wrapping_mul(K1)).wrapping_mul(K1);
        c = b.wrapping_mul(K1).wrapping_add(hash_len0to16(s));
        d = shift_mix(a.wrapping_add(if len >= 8 { fetch64(s, 0) } else { c }));
    } else {
        c = hash_len16(fetch64(s, len - 8).wrapping_add(K1), a);
        d = hash_len16(b.wrapping_add(len as u64), c.wrapping_add(fetch64(s, len - 16)));
        a = a.wrapping_add(d);
        let mut at = 0;
        let mut left = len as i64 - 16;
        loop {
            a ^= shift_mix(fetch64(s, at).wrapping_mul(K1)).wrapping_mul(K1);
            a = a.wrapping_mul(K1);
            b ^= a;
            c ^= shift_mix(fetch64(s, at + 8).wrapping_mul(K1)).wrapping_mul(K1);
            c = c.wrapping_mul(K1);
            d ^= c;
            at += 16;
            left -= 16;
            if left <= 0 {
                break;
            }
        }
    }
    a = hash_len16(a, c);
    b = hash_len16(d, b);
    (a ^ b, hash_len16(b, a))
}

fn city_hash128_with_seed(s: &[u8], seed: (u64, u64)) -> (u64, u64) {
    let mut len = s.len();
    if len < 128 {
        return city_murmur(s, seed);
    }
    let (mut x, mut y) = seed;
    let mut z = (len as u64).wrapping_mul(K1);
    let v0 = rotate(y ^ K1, 49).wrapping_mul(K1).wrapping_add(fetch64(s, 0));
    let mut v = (v0, rotate(v0, 42).wrapping_mul(K1).wrapping_add(fetch64(s, 8)));
    let mut w = (rotate(y.wrapping_add(z), 35).wrapping_mul(K1).wrapping_add(x), rotate(x.wrapping_add(fetch64(s, 88)), 53).wrapping_mul(K1));
    let mut at = 0;
    loop {
        for _ in 0..2 {
            mix_chunk64(s, at, &mut x, &mut y, &mut z, &mut v, &mut w);
            at += 64;
        }
        len -= 128;
        if len < 128 {
            break;
        }
    }
    y = y.wrapping_add(rotate(w.0, 37).wrapping_mul(K0)).wrapping_add(z);
    x = x.wrapping_add(rotate(v.0.wrapping_add(z), 49).wrapping_mul(K0));
    // Up to four 32-byte chunks from the end of what is left; a chunk may reach back
    // into bytes already hashed (at least 128 precede the tail).
    let end = at + len;
    let mut tail_done = 0;
    while tail_done < len {
        tail_done += 32;
        y = rotate(y.wrapping_sub(x), 42).wrapping_mul(K0).wrapping_add(v.1);
        w.0 = w.0.wrapping_add(fetch64(s, end - tail_done + 16));
        x = rotate(x, 49).wrapping_mul(K0).wrapping_add(w.0);
        w.0 = w.0.wrapping_add(v.0);
        v = weak_hash_len32_with_seeds(s, end - tail_done, v.0, v.1);
    }
    x = hash_len16(x, v.0);
    y = hash_len16(y, w.0);
    (hash_len16(x.wrapping_add(v.1), w.1).wrapping_add(y), hash_len16(x.wrapping_add(w.1), y.wrapping_add(v.1)))
}

/// CityHash128 (v1.0.2) of `s` as (low, high) halves, in the order ClickHouse stores
/// them in a block checksum.
pub fn city_hash128(s: &[u8]) -> (u64, u64) {
    let len = s.len();
    if len >= 16 {
        city_hash128_with_seed(&s[16..], (fetch64(s, 0) ^ K3, fetch64(s, 8)))
    } else if len >= 8 {
        city_hash128_with_seed(&[], (fetch64(s, 0) ^ (len as u64).wrapping_mul(K0), fetch64(s, len - 8) ^ K1))
    } else {
        city_hash128_with_seed(s, (K0, K1))
    }
}

/// SipHash-2-4 with a zero key, ClickHouse's `sipHash64` of bytes.
pub fn sip_hash64(data: &[u8]) -> u64 {
    let mut hasher = SipHasher::new();
    hasher.update(data);
    hasher.finish64()
}

/// ClickHouse's incremental `SipHash` (2-4, zero key): values are fed piece by piece
/// (`IColumn::updateHashWithValue`) and the result is the same as hashing the pieces
/// joined. The 128-bit result is ClickHouse's `get128` (not the SipHash-128 reference
/// variant): the low half is `v0 ^ v1`, the high half `v2 ^ v3`.
#[derive(Debug, Clone)]
pub struct SipHasher {
    v: [u64; 4],
    /// SipHash-2-4-128 as its reference describes (ClickHouse's `sipHash128Reference`).
    reference: bool,
    /// Bytes of the word being filled (the first `pending` are set).
    word: [u8; 8],
    pending: usize,
    /// Bytes fed so far; its low byte ends up in the last word.
    count: u64,
}

impl Default for SipHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl SipHasher {
    pub fn new() -> Self {
        Self::with_keys(0, 0, false)
    }

    /// A hasher keyed with `key0`, `key1` (ClickHouse's `sipHash64Keyed` and relatives);
    /// `reference` selects the reference 128-bit variant, finished with [`Self::finish128_reference`].
    pub fn with_keys(key0: u64, key1: u64, reference: bool) -> Self {
        let mut v = [0x736f_6d65_7073_6575 ^ key0, 0x646f_7261_6e64_6f6d ^ key1, 0x6c79_6765_6e65_7261 ^ key0, 0x7465_6462_7974_6573 ^ key1];
        if reference {
            v[1] ^= 0xee;
        }
        SipHasher { v, reference, word: [0; 8], pending: 0, count: 0 }
    }

    fn round(&mut self) {
        let v = &mut self.v;
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }

    fn compress(&mut self, word: u64) {
        self.v[3] ^= word;
        self.round();
        self.round();
        self.v[0] ^= word;
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.count = self.count.wrapping_add(data.len() as u64);
        if self.pending > 0 {
            let take = (8 - self.pending).min(data.len());
            self.word[self.pending..self.pending + take].copy_from_slice(&data[..take]);
            self.pending += take;
            data = &data[take..];
            if self.pending < 8 {
                return;
            }
            let word = u64::from_le_bytes(self.word);
            self.compress(word);
            self.pending = 0;
        }
        let mut chunks = data.chunks_exact(8);
        for chunk in &mut chunks {
            self.compress(fetch64(chunk, 0));
        }
        let rest = chunks.remainder();
        self.word[..rest.len()].copy_from_slice(rest);
        self.pending = rest.len();
    }

    fn finalize(mut self) -> [u64; 4] {
        let mut last = [0u8; 8];
        last[..self.pending].copy_from_slice(&self.word[..self.pending]);
        last[7] = self.count as u8;
        self.compress(u64::from_le_bytes(last));
        self.v[2] ^= if self.reference { 0xee } else { 0xff };
        for _ in 0..4 {
            self.round();
        }
        self.v
    }

    pub fn finish64(self) -> u64 {
        let v = self.finalize();
        v[0] ^ v[1] ^ v[2] ^ v[3]
    }

    /// (low, high) halves of ClickHouse's `get128`.
    pub fn finish128(self) -> (u64, u64) {
        let v = self.finalize();
        (v[0] ^ v[1], v[2] ^ v[3])
    }

    /// (low, high) halves of the reference SipHash-2-4-128 (a hasher made with `reference`).
    pub fn finish128_reference(self) -> (u64, u64) {
        let mut finished = self.clone();
        finished.v = self.finalize();
        let low = finished.v.iter().fold(0, |acc, v| acc ^ v);
        finished.v[1] ^= 0xdd;
        for _ in 0..4 {
            finished.round();
        }
        (low, finished.v.iter().fold(0, |acc, v| acc ^ v))
    }
}

/// ClickHouse's `intHash64` (the MurmurHash3 finalizer of the value xor a constant),
/// which `cityHash64` applies to numbers instead of hashing their bytes.
#[inline]
pub fn int_hash64(x: u64) -> u64 {
    let mut x = x ^ 0x4cf2_d2ba_ae6d_a887;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// ClickHouse's `intHash32`: Thomas Wang's 64-to-32-bit mix of the value xor a salt.
#[inline]
pub fn int_hash32(x: u64) -> u32 {
    let x = x ^ 0x75d9_543d_e018_bf45;
    let mut key = (!x).wrapping_add(x << 18);
    key ^= key.rotate_right(31);
    key = key.wrapping_mul(21);
    key ^= key.rotate_right(11);
    key = key.wrapping_add(key << 6);
    key ^= key.rotate_right(22);
    key as u32
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// MurmurHash3_x64_128 with seed 0, as its two 64-bit halves.
pub fn murmur3_x64_128(data: &[u8]) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let (mut h1, mut h2) = (0u64, 0u64);
    let blocks = data.len() / 16;
    for block in 0..blocks {
        let k1 = fetch64(data, block * 16);
        let k2 = fetch64(data, block * 16 + 8);
        h1 ^= k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 = h1.rotate_left(27).wrapping_add(h2).wrapping_mul(5).wrapping_add(0x52dc_e729);
        h2 ^= k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 = h2.rotate_left(31).wrapping_add(h1).wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = &data[blocks * 16..];
    let (mut k1, mut k2) = (0u64, 0u64);
    for (i, &byte) in tail.iter().enumerate() {
        if i < 8 {
            k1 |= u64::from(byte) << (8 * i);
        } else {
            k2 |= u64::from(byte) << (8 * (i - 8));
        }
    }
    if tail.len() > 8 {
        h2 ^= k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    }
    if !tail.is_empty() {
        h1 ^= k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    }
    h1 ^= data.len() as u64;
    h2 ^= data.len() as u64;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// ClickHouse's `murmurHash3_64` of bytes: the two halves of MurmurHash3_x64_128 xored.
pub fn murmur_hash3_64(data: &[u8]) -> u64 {
    let (h1, h2) = murmur3_x64_128(data);
    h1 ^ h2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by ClickHouse 26.9 (chdb 4.4).
    #[test]
    fn murmur_and_int_hash32_match_clickhouse() {
        assert_eq!(murmur_hash3_64(b""), 0);
        assert_eq!(murmur_hash3_64(b"a"), 7196874446409822675);
        assert_eq!(murmur_hash3_64(b"hello world, this is long"), 3284989485452563752);
        assert_eq!(murmur_hash3_64(&1u64.to_le_bytes()), 4453723594474149964);
        assert_eq!(int_hash32(1), 1343103100);
        assert_eq!(int_hash32(u64::MAX), 3545659993);
    }

    fn alphabet(n: usize) -> Vec<u8> {
        (0..n).map(|i| b'a' + (i % 26) as u8).collect()
    }

    /// Values from ClickHouse (chdb): `SELECT cityHash64('...')`.
    #[test]
    fn city_hash64_matches_clickhouse() {
        let cases: [(&[u8], u64); 7] = [
            (b"", 11160318154034397263),
            (b"a", 2603192927274642682),
            (b"abc", 4220206313085259313),
            (b"hello world", 12386028635079221413),
            (&[b'x'; 17], 14762337010942834261),
            (&[b'y'; 40], 4028249523963281896),
            (&[b'z'; 70], 8710184367027545239),
        ];
        for (input, expected) in cases {
            assert_eq!(city_hash64(input), expected, "{}", String::from_utf8_lossy(input));
        }
        assert_eq!(city_hash64(&alphabet(200)), 10258548877153202531);
        assert_eq!(city_hash64(&alphabet(1000)), 10005932599788055761);
        assert_eq!(int_hash64(1), 10577349846663553072);
        assert_eq!(sip_hash64(b"abc"), 4596069200710135518);
        assert_eq!(sip_hash64(b""), 2202906307356721367);
        assert_eq!(sip_hash64(&[1]), 7385293435322750976);
        // ClickHouse: hex(sipHash128('abc')) = B6B415A2DA966B6C685A65E54C12A353 (the
        // halves' little-endian bytes).
        let mut h = SipHasher::new();
        h.update(b"abc");
        assert_eq!(h.finish128(), (0x6c6b_96da_a215_b4b6, 0x53a3_124c_e565_5a68));
        // Fed in pieces across word boundaries: the same as at once.
        let data: Vec<u8> = (0u8..40).collect();
        for split in [0, 1, 7, 8, 9, 23, 40] {
            let mut h = SipHasher::new();
            h.update(&data[..split]);
            h.update(&data[split..]);
            assert_eq!(h.finish64(), sip_hash64(&data), "split at {split}");
        }
        // Decimals and DateTime64 are hashed as their bytes: cityHash64(toDecimal32(1.5, 2)),
        // cityHash64(toDateTime64('2020-01-01 00:00:00', 3, 'UTC')).
        assert_eq!(city_hash64(&150i32.to_le_bytes()), 8235273209324577223);
        assert_eq!(city_hash64(&1_577_836_800_000i64.to_le_bytes()), 8654874392465847756);
    }
}
