//! Division of 32-bit numbers by a fixed divisor with one multiplication.
//!
//! For a divisor `d` below 2^32 and `M = ⌈2^64 / d⌉`, `⌊n / d⌋ = ⌊M·n / 2^64⌋` for every
//! `n` below 2^32 (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
//! 2019, theorem 1 with N = 32, F = 64). `strength_reduce::StrengthReducedU32` avoids the
//! 64×64-bit product and needs five multiplications and shifts more; the index divides on
//! every unrank, so the one-instruction form is kept here.

/// A fixed divisor below 2^32 (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub struct Div32 {
    /// `⌈2^64 / d⌉`, or 0 for `d = 1` (whose multiplier 2^64 does not fit).
    m: u64,
    d: u32,
}

impl Div32 {
    /// The divisor `d` (at least 1).
    pub const fn new(d: u32) -> Div32 {
        assert!(d > 0, "division by zero");
        let m = if d == 1 { 0 } else { u64::MAX / d as u64 + 1 };
        Div32 { m, d }
    }

    /// The divisor.
    #[inline(always)]
    pub fn get(self) -> u32 {
        self.d
    }

    /// `n / d`.
    #[inline(always)]
    pub fn quot(self, n: u32) -> u32 {
        let q = ((self.m as u128 * n as u128) >> 64) as u32;
        if self.m == 0 {
            n
        } else {
            q
        }
    }

    /// `(n / d, n % d)`.
    #[inline(always)]
    pub fn div_rem(self, n: u32) -> (u32, u32) {
        let q = self.quot(n);
        (q, n - q * self.d)
    }
}

#[cfg(test)]
mod tests {
    use super::Div32;

    #[test]
    fn agrees_with_division() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let divisors = (1..300u32).chain([u32::MAX, u32::MAX - 1, 1 << 31, 641, 6_700_417]);
        for d in divisors {
            let f = Div32::new(d);
            for n in [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1] {
                assert_eq!(f.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
            for _ in 0..2000 {
                let n = next() as u32;
                assert_eq!(f.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }
}
