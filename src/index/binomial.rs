//! Binomial coefficients and the combinatorial number system.

/// Largest n for which the table holds C(n, k).
pub const MAX_N: usize = 90;
/// Largest k in the table (no group has more than 5 identical pieces).
pub const MAX_K: usize = 5;

const fn make() -> [[u64; MAX_K + 1]; MAX_N + 1] {
    let mut t = [[0u64; MAX_K + 1]; MAX_N + 1];
    let mut n = 0;
    while n <= MAX_N {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_K {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}

static TABLE: [[u64; MAX_K + 1]; MAX_N + 1] = make();
const TABLE_CONST: [[u64; MAX_K + 1]; MAX_N + 1] = make();

/// C(n, k) in constant evaluation (n <= 90, k <= 5).
pub const fn binom_const(n: usize, k: usize) -> u64 {
    TABLE_CONST[n][k]
}

/// C(n, k) for n <= 90, k <= 5 (0 when k > n).
#[inline(always)]
pub fn binom(n: usize, k: usize) -> u64 {
    TABLE[n][k]
}

/// The `k` distinct relative indices with colex rank `x` (the sum of `C(out[i], i + 1)`),
/// in increasing order in `out[..k]`.
#[inline(always)]
pub fn comb_unrank(mut x: u64, k: usize, out: &mut [u8]) {
    let mut hi = MAX_N;
    for i in (0..k).rev() {
        if i == 0 {
            out[0] = x as u8;
            break;
        }
        // largest v with C(v, i + 1) <= x, v < hi
        let col = i + 1;
        let (mut lo, mut h) = (i, hi);
        while h - lo > 1 {
            let mid = (lo + h) / 2;
            if TABLE[mid][col] <= x {
                lo = mid;
            } else {
                h = mid;
            }
        }
        out[i] = lo as u8;
        x -= TABLE[lo][col];
        hi = lo;
    }
}

/// Exact C(n, k) in u128 for any n, k (used by counting).
pub fn binom_u128(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Colex rank of a sorted set of distinct relative indices (`r[0] < r[1] < ...`):
    /// sum of `C(r[i], i + 1)`.
    fn comb_rank(r: &[u8]) -> u64 {
        let mut x = 0;
        for (i, &v) in r.iter().enumerate() {
            x += TABLE[v as usize][i + 1];
        }
        x
    }

    #[test]
    fn ranks_round_trip() {
        for k in 1..=4usize {
            let n = 12u8;
            let total = binom(n as usize, k);
            let mut seen = vec![false; total as usize];
            let mut out = [0u8; 5];
            for x in 0..total {
                comb_unrank(x, k, &mut out);
                assert!(out[..k].windows(2).all(|w| w[0] < w[1]));
                assert!(out[k - 1] < n);
                assert_eq!(comb_rank(&out[..k]), x);
                seen[x as usize] = true;
            }
            assert!(seen.iter().all(|&s| s));
        }
        assert_eq!(binom(90, 2), 4005);
        assert_eq!(binom_u128(90, 45), 103_827_421_287_553_411_369_671_120);
    }
}
