//! Text encodings of game records: UTF-8 (with or without BOM), GBK/GB18030, Big5.
//!
//! Records are decoded line by line (a line break is never part of a multi-byte character in
//! these encodings), so one stray byte spoils one line, never a file: a line that is valid
//! UTF-8 is read as UTF-8, other lines as whichever of UTF-8 (the bad bytes replaced), GBK
//! and Big5 reads more Xiangqi words with fewer errors, with a bias towards what the file's
//! lines so far have been.

use encoding_rs::{Encoding, BIG5, GB18030, UTF_8};

/// Xiangqi words in simplified characters.
const SIMPLIFIED: &str = "进车马将帅炮兵卒仕象相士平退红黑胜负和";
/// Xiangqi words in traditional characters.
const TRADITIONAL: &str = "進車馬將帥砲兵卒仕象相士平退紅黑勝負和傌俥";

/// The characters of `set`, sorted (for binary search).
fn sorted(set: &str) -> Vec<char> {
    let mut v: Vec<char> = set.chars().collect();
    v.sort_unstable();
    v.dedup();
    v
}

struct Sets {
    simplified: Vec<char>,
    traditional: Vec<char>,
}

fn sets() -> &'static Sets {
    static SETS: std::sync::OnceLock<Sets> = std::sync::OnceLock::new();
    SETS.get_or_init(|| Sets {
        simplified: sorted(SIMPLIFIED),
        traditional: sorted(TRADITIONAL),
    })
}

/// +2 per word of `main`, +1 per word of `other`, -40 per replacement character.
fn score2(text: &str, main: &[char], other: &[char]) -> i64 {
    let mut s = 0;
    for c in text.chars() {
        if c.is_ascii() {
            continue;
        }
        if c == '\u{FFFD}' {
            s -= 40;
        } else if main.binary_search(&c).is_ok() {
            s += 2;
        } else if other.binary_search(&c).is_ok() {
            s += 1;
        }
    }
    s
}

fn score_gbk(text: &str) -> i64 {
    let s = sets();
    score2(text, &s.simplified, &s.traditional)
}

fn score_big5(text: &str) -> i64 {
    let s = sets();
    score2(text, &s.traditional, &s.simplified)
}

fn score_any(text: &str) -> i64 {
    let s = sets();
    score2(text, &s.simplified, &s.traditional).max(score2(text, &s.traditional, &s.simplified))
}

/// Guess the encoding of a whole sample: a BOM, valid UTF-8, else whichever of GBK
/// (GB18030) and Big5 decodes to more Xiangqi words with fewer errors.
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
    if score_big5(&big5) > score_gbk(&gbk) {
        BIG5
    } else {
        GB18030
    }
}

/// Bias (in score points) towards the encoding the file's earlier lines used.
const BIAS: i64 = 60;

/// Decodes the lines of one file, learning from them which encoding the file uses.
#[derive(Clone, Debug, Default)]
pub struct LineDecoder {
    /// Non-ASCII lines read as UTF-8.
    utf8: u64,
    /// Lines read as GBK or Big5.
    legacy: u64,
    /// Running scores of the legacy lines under GBK and Big5.
    gbk: i64,
    big5: i64,
}

impl LineDecoder {
    /// A decoder that knows nothing of the file yet.
    pub fn new() -> LineDecoder {
        LineDecoder::default()
    }

    /// The encoding most of the lines so far used (UTF-8 when none needed a choice).
    pub fn encoding(&self) -> &'static Encoding {
        if self.legacy > self.utf8 {
            self.legacy_choice()
        } else {
            UTF_8
        }
    }

    fn legacy_choice(&self) -> &'static Encoding {
        if self.big5 > self.gbk {
            BIG5
        } else {
            GB18030
        }
    }

    /// Learn from a sample of the file (its first megabyte, say) before decoding it: the
    /// lines are decoded and thrown away, only the counts are kept.
    pub fn learn(&mut self, sample: &[u8]) {
        let mut scratch = String::new();
        let mut lines = sample.split(|&c| c == b'\n');
        let last = sample.last() != Some(&b'\n');
        let n = sample.iter().filter(|&&c| c == b'\n').count();
        for (i, l) in lines.by_ref().enumerate() {
            if last && i == n {
                break; // an unfinished line
            }
            scratch.clear();
            self.decode_into(l, &mut scratch);
        }
    }

    /// Append the text of `line` (bytes without its line break) to `out`, and say how it
    /// was read.
    pub fn decode_into(&mut self, line: &[u8], out: &mut String) -> Decoded {
        const EXACT: Decoded = Decoded {
            exact: true,
            doubtful: false,
        };
        const LEGACY: Decoded = Decoded {
            exact: false,
            doubtful: false,
        };
        if line.is_ascii() {
            out.push_str(std::str::from_utf8(line).unwrap_or_default());
            return EXACT;
        }
        if let Ok(text) = std::str::from_utf8(line) {
            if self.legacy > self.utf8 {
                // a legacy file: a short legacy line can be valid UTF-8 by chance
                let (alt, bad) = self.legacy_choice().decode_without_bom_handling(line);
                if !bad && score_any(&alt) > score_any(text) {
                    out.push_str(&alt);
                    self.legacy += 1;
                    return LEGACY;
                }
            }
            out.push_str(text);
            self.utf8 += 1;
            return EXACT;
        }
        // settled legacy files: one decoding, unless it has errors
        if self.legacy >= 32 && self.legacy > 4 * self.utf8 && (self.gbk - self.big5).abs() > 200 {
            let (text, bad) = self.legacy_choice().decode_without_bom_handling(line);
            if !bad {
                out.push_str(&text);
                self.legacy += 1;
                return LEGACY;
            }
        }
        let u = String::from_utf8_lossy(line);
        let (g, _) = GB18030.decode_without_bom_handling(line);
        let (b, _) = BIG5.decode_without_bom_handling(line);
        let (sg, sb) = (score_gbk(&g), score_big5(&b));
        // characters that decode as UTF-8 are evidence of UTF-8: legacy text rarely forms
        // valid multi-byte sequences, and its lossy UTF-8 reading is mostly replacements
        let valid = u
            .chars()
            .filter(|&c| !c.is_ascii() && c != '\u{FFFD}')
            .count() as i64;
        let mut su = score_any(&u) + 10 * valid;
        let (mut bg, mut bb) = (sg, sb);
        // the file so far: UTF-8 or legacy (when clearly one), and which legacy encoding
        let mostly_utf8 = self.utf8 >= 3 && self.utf8 > 2 * self.legacy;
        if mostly_utf8 {
            su += BIAS;
        } else if self.legacy >= 3 && self.legacy > 2 * self.utf8 {
            bg += BIAS;
            bb += BIAS;
        }
        let lead = ((self.big5 - self.gbk).abs() / 2).min(BIAS);
        if self.big5 > self.gbk {
            bb += lead;
        } else {
            bg += lead;
        }
        let (text, against) = if su > bg && su > bb {
            (&u, false)
        } else {
            (if bb > bg { &b } else { &g }, mostly_utf8)
        };
        let clean = !text.contains('\u{FFFD}');
        // only clean lines say what the file is: junk decodes with errors in every encoding
        if clean {
            self.legacy += 1;
            self.gbk += sg;
            self.big5 += sb;
        }
        out.push_str(text);
        Decoded {
            exact: false,
            doubtful: against || !clean,
        }
    }
}

/// How a line was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text is the bytes themselves (valid UTF-8): offsets in it are byte offsets.
    pub exact: bool,
    /// Undecodable bytes were replaced, or the line was read against the encoding of the
    /// rest of the file: likely not text at all.
    pub doubtful: bool,
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

    fn decode_all(lines: &[Vec<u8>]) -> Vec<String> {
        let mut d = LineDecoder::new();
        lines
            .iter()
            .map(|l| {
                let mut s = String::new();
                d.decode_into(l, &mut s);
                s
            })
            .collect()
    }

    #[test]
    fn one_bad_byte_spoils_one_character_not_the_file() {
        let good = "1. 炮二平五 马８进７".as_bytes().to_vec();
        let mut bad = "2. 马二进三 {注".as_bytes().to_vec();
        bad.push(0xFF);
        bad.extend_from_slice("} 车９平８".as_bytes());
        let out = decode_all(&[good.clone(), bad.clone(), good.clone()]);
        assert_eq!(out[1], "2. 马二进三 {注\u{FFFD}} 车９平８");
        assert_eq!(out[2], "1. 炮二平五 马８进７");
        // also as the very first line of a file
        let out = decode_all(&[bad, good]);
        assert_eq!(out[0], "2. 马二进三 {注\u{FFFD}} 车９平８");
    }

    #[test]
    fn legacy_lines_decode_line_by_line() {
        let simp = "1. 炮二平五 马８进７";
        let trad = "1. 炮二平五 馬８進７";
        let (gbk, _, _) = GB18030.encode(simp);
        let (big5, _, _) = BIG5.encode(trad);
        let out = decode_all(&[gbk.to_vec(), b"[Event \"x\"]".to_vec(), gbk.to_vec()]);
        assert_eq!(out[0], simp);
        assert_eq!(out[2], simp);
        let out = decode_all(&[big5.to_vec(), big5.to_vec()]);
        assert_eq!(out[1], trad);
    }
}
