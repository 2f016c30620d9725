//! Finds the next byte a text scanner must look at (a delimiter, quote, escape or line
//! feed). Fields are mostly short, where a call into `memchr` costs more than looking at
//! the bytes, and sometimes long (text bodies), where `memchr`'s vector search wins: the
//! first bytes are looked at one by one with a table, the rest handed to `memchr`.

/// How many bytes are looked at one by one before `memchr` takes over.
const NEAR: usize = 16;

/// A set of one to four byte values to find.
#[derive(Clone)]
pub(crate) struct Stops {
    table: [bool; 256],
    needles: [u8; 4],
    count: usize,
}

impl Stops {
    /// `bytes`: the values (duplicates allowed; at least one).
    pub fn new(bytes: &[u8]) -> Self {
        let mut table = [false; 256];
        let mut needles = [0u8; 4];
        let mut count = 0;
        for &b in bytes {
            if !table[b as usize] {
                table[b as usize] = true;
                if count < needles.len() {
                    needles[count] = b;
                }
                count += 1;
            }
        }
        Stops { table, needles, count }
    }

    /// The first position at or after `from` holding one of the values.
    #[inline]
    pub fn find(&self, data: &[u8], from: usize) -> Option<usize> {
        let near = data.get(from..)?;
        let near = &near[..near.len().min(NEAR)];
        if let Some(offset) = near.iter().position(|b| self.table[*b as usize]) {
            return Some(from + offset);
        }
        let start = from + near.len();
        let rest = data.get(start..).filter(|r| !r.is_empty())?;
        let [a, b, c, _] = self.needles;
        let found = match self.count {
            1 => memchr::memchr(a, rest),
            2 => memchr::memchr2(a, b, rest),
            3 => memchr::memchr3(a, b, c, rest),
            _ => rest.iter().position(|b| self.table[*b as usize]),
        };
        found.map(|offset| start + offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(data: &[u8], from: usize, set: &[u8]) -> Option<usize> {
        (from..data.len()).find(|i| set.contains(&data[*i]))
    }

    #[test]
    fn finds_what_a_plain_search_finds() {
        let mut data = Vec::new();
        for i in 0..1000u32 {
            // Mostly ordinary bytes, so that stops are far apart too.
            let r = (i.wrapping_mul(2654435761) >> 7) as usize;
            data.push(if r % 13 == 0 { b",\"\n'\0\t"[r % 6] } else { b'a' + (r % 26) as u8 });
        }
        for set in [&b","[..], b",\"", b",\"\n", b",\"\n'", b"\0", b"\n\n"] {
            let s = Stops::new(set);
            for from in 0..=data.len() + 1 {
                assert_eq!(s.find(&data, from), naive(&data, from, set), "set {set:?} from {from}");
            }
            for len in [0, 1, 10, 15, 16, 17, 33, 64, 65] {
                assert_eq!(s.find(&data[..len], 0), naive(&data[..len], 0, set));
            }
            assert!(set.iter().all(|b| s.find(&[b'x', *b], 0) == Some(1)));
        }
        let far = [b"x".repeat(100), b"'".to_vec()].concat();
        assert_eq!(Stops::new(b",\"\n'").find(&far, 0), Some(100));
        assert_eq!(Stops::new(b"'").find(&far, 3), Some(100));
    }
}
