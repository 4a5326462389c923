//! What one block of a table file holds once its zstd frame is decompressed (format
//! version 2; see FORMAT.md, "Blocks"): a tag byte, then the block's values either byte by
//! byte or as runs.
//!
//! Runs pay where a block's values are long stretches of one byte (the WDL of a one-sided
//! ending: 88 positions a run on average in KRNKAABB): zstd then sees a stream many times
//! shorter, compresses it faster and smaller (KRNKAABB's WDL: 325.5 KB against 380.9 KB in
//! blocks of 256K positions at level 15). In two-sided tables under the repetition rules (a
//! run of 4 positions on average in KRNKR's WDL) and in most blocks of DTM files the bytes as
//! they are compress better (KRNKR's WDL as runs: 4.20 MB against 3.09 MB). The writer
//! decides per block from the average run length ([`RUNS_MIN_AVERAGE`]); a reader accepts
//! either in any block.

/// The values follow byte by byte.
pub const TAG_BYTES: u8 = 0;
/// The values follow as runs: a value byte, then the run's length (at least 1) as an
/// unsigned LEB128 number; the lengths add up to the block's positions.
pub const TAG_RUNS: u8 = 1;

/// A block is written as runs when its runs are at least this long on average (measured on
/// KRNKAABB and KRNKR, WDL and DTM: within 0.2 % of keeping the smaller of the two
/// encodings of each block, without compressing twice; 8, 32 or 64 do worse).
pub const RUNS_MIN_AVERAGE: usize = 16;

/// The content written for a block of `values`.
pub fn encode(values: &[u8]) -> Vec<u8> {
    let runs = 1 + values.windows(2).filter(|w| w[0] != w[1]).count();
    if values.len() < RUNS_MIN_AVERAGE * runs {
        let mut out = Vec::with_capacity(values.len() + 1);
        out.push(TAG_BYTES);
        out.extend_from_slice(values);
        return out;
    }
    let mut out = Vec::with_capacity(1 + 3 * runs);
    out.push(TAG_RUNS);
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        let mut j = i + 1;
        while j < values.len() && values[j] == v {
            j += 1;
        }
        out.push(v);
        let mut len = (j - i) as u64;
        loop {
            let low = (len & 0x7F) as u8;
            len >>= 7;
            if len == 0 {
                out.push(low);
                break;
            }
            out.push(low | 0x80);
        }
        i = j;
    }
    out
}

/// Largest content a block of `positions` values can have: one byte per position, or runs
/// of one position (two bytes each), plus the tag. Longer runs take fewer bytes a position.
pub fn max_content(positions: usize) -> usize {
    1 + 2 * positions
}

/// The values of a block of `positions` from its content; the error says what is wrong.
pub fn decode(content: &[u8], positions: usize) -> Result<Vec<u8>, String> {
    let (&tag, body) = content.split_first().ok_or("empty block")?;
    match tag {
        TAG_BYTES => {
            if body.len() != positions {
                return Err(format!(
                    "holds {} positions, expected {positions}",
                    body.len()
                ));
            }
            Ok(body.to_vec())
        }
        TAG_RUNS => {
            let mut out = Vec::with_capacity(positions);
            let mut rest = body;
            while let Some((&v, tail)) = rest.split_first() {
                let mut len = 0u64;
                let mut shift = 0;
                let mut used = 0;
                loop {
                    let &b = tail.get(used).ok_or("a run is cut short")?;
                    used += 1;
                    if shift > 28 {
                        return Err("a run length is too long".into());
                    }
                    len |= u64::from(b & 0x7F) << shift;
                    shift += 7;
                    if b & 0x80 == 0 {
                        break;
                    }
                }
                rest = &tail[used..];
                if len == 0 {
                    return Err("a run of length 0".into());
                }
                if len > (positions - out.len()) as u64 {
                    return Err(format!("runs go past the block's {positions} positions"));
                }
                out.resize(out.len() + len as usize, v);
            }
            if out.len() != positions {
                return Err(format!(
                    "runs hold {} positions, expected {positions}",
                    out.len()
                ));
            }
            Ok(out)
        }
        t => Err(format!("unknown block encoding {t}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_encodings_round_trip() {
        let long: Vec<u8> = (0..10_000).map(|i| (i / 700 % 3) as u8).collect();
        let short: Vec<u8> = (0..10_000).map(|i| (i * 7 % 5) as u8).collect();
        for (values, tag) in [(&long, TAG_RUNS), (&short, TAG_BYTES)] {
            let c = encode(values);
            assert_eq!(c[0], tag);
            assert!(c.len() <= max_content(values.len()));
            assert_eq!(&decode(&c, values.len()).unwrap(), values);
        }
        // a run longer than 2^14 positions needs three length bytes
        let one = vec![2u8; 100_000];
        assert_eq!(decode(&encode(&one), one.len()).unwrap(), one);
    }

    #[test]
    fn bad_content_is_an_error() {
        let c = encode(&[1u8; 64]);
        assert!(decode(&c, 63).unwrap_err().contains("past the block"));
        assert!(decode(&c, 65).unwrap_err().contains("runs hold 64"));
        assert!(decode(&[TAG_RUNS, 1, 0x80], 5).is_err());
        assert!(decode(&[TAG_RUNS, 1, 0], 5)
            .unwrap_err()
            .contains("length 0"));
        assert!(decode(&[TAG_RUNS, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1], 5).is_err());
        assert!(decode(&[7, 1], 1)
            .unwrap_err()
            .contains("unknown block encoding 7"));
        assert!(decode(&[], 1).is_err());
        assert!(decode(&[TAG_BYTES, 1, 2], 3).is_err());
    }
}
