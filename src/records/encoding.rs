//! Text encodings of game records: UTF-8 (with or without BOM), GBK/GB18030, Big5.

use encoding_rs::{Encoding, BIG5, GB18030, UTF_8};

const SIMPLIFIED: &str = "进车马将帅炮兵卒仕象相士平退红黑胜负和";
const TRADITIONAL: &str = "進車馬將帥砲兵卒仕象相士平退紅黑勝負和傌俥";

fn score(text: &str, set: &str) -> i64 {
    let mut s = 0;
    for c in text.chars() {
        if c == '\u{FFFD}' {
            s -= 20;
        } else if set.contains(c) {
            s += 1;
        }
    }
    s
}

/// Guess the encoding of a file from its first bytes: a BOM, valid UTF-8, else whichever of
/// GBK (GB18030) and Big5 decodes to more Xiangqi words with fewer errors.
pub fn detect(sample: &[u8]) -> &'static Encoding {
    if sample.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return UTF_8;
    }
    match std::str::from_utf8(sample) {
        Ok(_) => return UTF_8,
        // a multi-byte character cut at the end of the sample is fine
        Err(e) if e.error_len().is_none() && e.valid_up_to() + 4 > sample.len() => return UTF_8,
        Err(_) => {}
    }
    let (gbk, _) = GB18030.decode_without_bom_handling(sample);
    let (big5, _) = BIG5.decode_without_bom_handling(sample);
    let g = score(&gbk, SIMPLIFIED) + score(&gbk, TRADITIONAL) / 2;
    let b = score(&big5, TRADITIONAL) + score(&big5, SIMPLIFIED) / 2;
    if b > g {
        BIG5
    } else {
        GB18030
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_the_three_encodings() {
        let text = "1. 炮二平五 馬８進７ 2. 馬二進三 車９平８";
        assert_eq!(detect(text.as_bytes()), UTF_8);
        let (big5, _, _) = BIG5.encode(text);
        assert_eq!(detect(&big5), BIG5);
        let simp = "1. 炮二平五 马８进７ 2. 马二进三 车９平８";
        let (gbk, _, _) = GB18030.encode(simp);
        assert_eq!(detect(&gbk), GB18030);
    }
}
