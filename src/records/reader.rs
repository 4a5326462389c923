//! Splitting a PGN byte stream into games without loading it whole, and decoding each game.
//!
//! The split works on bytes (line breaks and the ASCII of tags and braces mean the same in
//! UTF-8, GBK and Big5), so that the encoding can be chosen line by line afterwards (see
//! [`LineDecoder`]). A game starts at a tag line after movetext, or at a repeated tag name
//! in one header. Inside a comment (`{` not closed yet) a line is a tag only when it is a
//! whole, well-formed tag (`[Name "value"]`): an unclosed brace then ends its own game (which
//! is reported as unterminated) instead of swallowing every later game. A whole tag at the
//! end of a line of other text (junk without a line break before the next game) starts a
//! game too. A game longer than [`MAX_GAME_BYTES`] is
//! skipped up to the next tag line, with constant memory.

use super::encoding::LineDecoder;
use encoding_rs::Encoding;
use std::io::Read;

/// The longest game kept, in bytes; longer ones are skipped (and reported).
pub const MAX_GAME_BYTES: usize = 16 << 20;

const CHUNK: usize = 1 << 20;

/// Where a line of a game's text comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LineMap {
    /// Start of the line in the game's text.
    text: usize,
    /// Its offset in the file.
    file: u64,
    /// The text is the bytes themselves (so offsets inside the line are exact).
    exact: bool,
    /// The line was hard to decode: likely not text (see [`super::encoding::Decoded`]).
    doubtful: bool,
}

/// The text of one game, not parsed yet (parse it with [`super::parse_game`], or skip it).
#[derive(Clone, Debug)]
pub struct RawGame {
    /// 1-based number of the game in its file.
    pub ordinal: usize,
    /// Its text (tags and movetext), decoded.
    pub text: String,
    /// Offset of its first byte in the file.
    pub offset: u64,
    /// Its length in bytes in the file.
    pub len: u64,
    /// True when it was longer than [`MAX_GAME_BYTES`] and skipped (its text is empty).
    pub oversize: bool,
    lines: Vec<LineMap>,
}

impl RawGame {
    /// A game from text alone (offsets are those of the text).
    pub fn from_text(ordinal: usize, text: &str) -> RawGame {
        RawGame {
            ordinal,
            text: text.to_string(),
            offset: 0,
            len: text.len() as u64,
            oversize: false,
            lines: vec![LineMap {
                text: 0,
                file: 0,
                exact: true,
                doubtful: false,
            }],
        }
    }

    /// The file offset of position `at` of the text (exact in UTF-8 lines, else the start of
    /// its line).
    pub fn file_offset(&self, at: usize) -> u64 {
        let i = self.lines.partition_point(|l| l.text <= at);
        match i.checked_sub(1).and_then(|k| self.lines.get(k)) {
            Some(l) if l.exact => l.file + (at - l.text) as u64,
            Some(l) => l.file,
            None => self.offset,
        }
    }

    /// The bytes in the file of the line holding position `at` of the text (without its
    /// line break).
    pub fn line_bytes(&self, at: usize) -> (u64, u64) {
        let i = self.lines.partition_point(|l| l.text <= at).max(1) - 1;
        let Some(l) = self.lines.get(i) else {
            return (self.offset, self.end());
        };
        let end = self
            .lines
            .get(i + 1)
            .map_or(self.end(), |n| n.file.saturating_sub(1));
        (l.file, end.max(l.file))
    }

    /// True when position `at` of the text is in a line that was hard to decode (likely
    /// binary junk rather than text).
    pub fn doubtful_at(&self, at: usize) -> bool {
        let i = self.lines.partition_point(|l| l.text <= at);
        i.checked_sub(1)
            .and_then(|k| self.lines.get(k))
            .is_some_and(|l| l.doubtful)
    }

    /// The file offset just past the game.
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}

/// Splits a PGN stream into games and decodes them.
pub struct PgnReader<R: Read> {
    src: R,
    /// Bytes read and not yet given out; `buf[0]` is at file offset `base`.
    buf: Vec<u8>,
    base: u64,
    /// Start of the next line to look at.
    scan: usize,
    /// Start of the current game.
    game_start: usize,
    in_moves: bool,
    depth: i64,
    header: Vec<Vec<u8>>,
    eof: bool,
    /// A line break was added after the last byte of the input.
    added_newline: bool,
    ordinal: usize,
    decoder: LineDecoder,
    /// Skipping an oversize game that started at this offset.
    skipping: Option<u64>,
    /// In skip mode, the bytes at `scan` continue a line whose start was dropped.
    midline: bool,
}

/// Strip leading blanks (and a UTF-8 BOM) of a line.
fn trim_start(line: &[u8]) -> &[u8] {
    let mut t = line;
    loop {
        if let Some(r) = t.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
            t = r;
        } else if let [b' ' | b'\t' | b'\r', r @ ..] = t {
            t = r;
        } else {
            return t;
        }
    }
}

fn trim_end(line: &[u8]) -> &[u8] {
    let mut t = line;
    while let [r @ .., b' ' | b'\t' | b'\r' | b'\n'] = t {
        t = r;
    }
    t
}

/// The tag name after `[` (up to a blank, a quote or `]`).
fn tag_name(t: &[u8]) -> &[u8] {
    let rest = &t[1..];
    let n = rest
        .iter()
        .position(|&c| c.is_ascii_whitespace() || c == b'"' || c == b']')
        .unwrap_or(rest.len());
    &rest[..n]
}

/// A whole, well-formed tag: `[Name "value"]`, the name ASCII letters, digits or `_`.
fn strict_tag(t: &[u8]) -> bool {
    let t = trim_end(t);
    let name = tag_name(t);
    if name.is_empty()
        || !name[0].is_ascii_alphabetic()
        || !name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        return false;
    }
    let rest = &t[1 + name.len()..];
    let value = rest.trim_ascii_start();
    rest.len() > value.len() && value.len() >= 3 && value[0] == b'"' && value.ends_with(b"\"]")
}

/// Change of brace depth over a line: braces in valid UTF-8 are characters; in legacy
/// text the byte after a lead byte (0x81 and up) is skipped, as it may be a `{` or `}` that
/// is half of a character.
fn braces(line: &[u8], depth: &mut i64) {
    let utf8 = std::str::from_utf8(line).is_ok();
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'{' => *depth += 1,
            b'}' => *depth = (*depth - 1).max(0),
            c if c >= 0x81 && !utf8 => i += 1,
            _ => {}
        }
        i += 1;
    }
}

impl<R: Read> PgnReader<R> {
    /// Read games from `src`.
    pub fn new(src: R) -> PgnReader<R> {
        PgnReader {
            src,
            buf: Vec::new(),
            base: 0,
            scan: 0,
            game_start: 0,
            in_moves: false,
            depth: 0,
            header: Vec::new(),
            eof: false,
            added_newline: false,
            ordinal: 0,
            decoder: LineDecoder::new(),
            skipping: None,
            midline: false,
        }
    }

    /// The encoding most lines read so far used.
    pub fn encoding(&self) -> Option<&'static Encoding> {
        Some(self.decoder.encoding())
    }

    fn fill(&mut self) -> std::io::Result<()> {
        if self.game_start > 0 {
            self.buf.drain(..self.game_start);
            self.base += self.game_start as u64;
            self.scan -= self.game_start;
            self.game_start = 0;
        }
        let n0 = self.buf.len();
        self.buf.resize(n0 + CHUNK, 0);
        let mut n = n0;
        while n < self.buf.len() {
            match self.src.read(&mut self.buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(n);
                    return Err(e);
                }
            }
        }
        self.buf.truncate(n);
        if self.base == 0 && n0 == 0 {
            // the first chunk tells which encoding the file mostly uses
            self.decoder.learn(&self.buf);
        }
        if n < n0 + CHUNK {
            self.eof = true;
            if !self.buf.is_empty() && !self.buf.ends_with(b"\n") {
                self.buf.push(b'\n');
                self.added_newline = true;
            }
        }
        Ok(())
    }

    /// Start a new game's header with the tag `name`.
    fn restart(&mut self, name: &[u8]) {
        self.in_moves = false;
        self.depth = 0;
        self.header.clear();
        self.header.push(name.to_vec());
    }

    /// Look at one line (`line` from a line start, with its line break): the offset in it
    /// where a new game starts, if one does.
    fn classify(&mut self, line: &[u8]) -> Option<usize> {
        let t = trim_start(line);
        let lead = line.len() - t.len();
        if self.skipping.is_some() {
            return t.starts_with(b"[").then_some(lead);
        }
        if t.starts_with(b"[") {
            let name = tag_name(t).to_vec();
            if self.depth == 0 {
                let repeated = self.header.iter().any(|n| n.eq_ignore_ascii_case(&name));
                if self.in_moves || repeated {
                    self.restart(&name);
                    return Some(0);
                }
                self.header.push(name);
                return None;
            }
            if strict_tag(t) {
                // an unclosed brace must not swallow the games after it
                self.restart(&name);
                return Some(0);
            }
        }
        let body = trim_end(t);
        if body.ends_with(b"\"]") {
            // a tag glued to the end of a line of junk
            if let Some(p) = body.iter().rposition(|&c| c == b'[') {
                let prefix = &body[..p];
                if !prefix.trim_ascii().is_empty() && strict_tag(&body[p..]) {
                    let name = tag_name(&body[p..]).to_vec();
                    self.restart(&name);
                    return Some(lead + p);
                }
            }
        }
        braces(line, &mut self.depth);
        if !body.is_empty() {
            self.in_moves = true;
        }
        None
    }

    /// Decode `buf[start..end]` (whole lines) as one game.
    fn game(&mut self, start: usize, end: usize) -> RawGame {
        let offset = self.base + start as u64;
        let mut len = (end - start) as u64;
        if self.eof && self.added_newline && end == self.buf.len() {
            len -= 1;
        }
        self.ordinal += 1;
        let mut text = String::with_capacity(end - start);
        let mut lines = Vec::new();
        let mut at = start;
        while at < end {
            let stop = self.buf[at..end]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(end, |i| at + i);
            let mut line = &self.buf[at..stop];
            if self.base + at as u64 == 0 {
                line = line.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(line);
            }
            let file = self.base + (stop - line.len()) as u64;
            let t = text.len();
            let d = self.decoder.decode_into(line, &mut text);
            lines.push(LineMap {
                text: t,
                file,
                exact: d.exact,
                doubtful: d.doubtful,
            });
            if stop < end {
                text.push('\n');
            }
            at = stop + 1;
        }
        RawGame {
            ordinal: self.ordinal,
            text,
            offset,
            len,
            oversize: false,
            lines,
        }
    }

    fn oversize(&mut self, from: u64, to: u64) -> RawGame {
        self.ordinal += 1;
        RawGame {
            ordinal: self.ordinal,
            text: String::new(),
            offset: from,
            len: to - from,
            oversize: true,
            lines: Vec::new(),
        }
    }

    /// The next game, or None at the end of the stream. Whitespace between games is not a
    /// game.
    pub fn next_game(&mut self) -> std::io::Result<Option<RawGame>> {
        loop {
            while let Some(nl) = self.buf[self.scan..].iter().position(|&c| c == b'\n') {
                let (ls, le) = (self.scan, self.scan + nl + 1);
                self.scan = le;
                if self.midline {
                    // the rest of a line whose start was dropped
                    self.midline = false;
                    self.game_start = le;
                    continue;
                }
                let buf = std::mem::take(&mut self.buf);
                let found = self.classify(&buf[ls..le]);
                self.buf = buf;
                if let Some(off) = found {
                    let at = ls + off;
                    if let Some(from) = self.skipping.take() {
                        let to = self.base + at as u64;
                        self.game_start = at;
                        self.scan = at;
                        // the tag line is looked at again as the start of the next game
                        self.restart(b"");
                        self.header.clear();
                        return Ok(Some(self.oversize(from, to)));
                    }
                    let (s, e) = (self.game_start, at);
                    self.game_start = at;
                    if self.buf[s..e].iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Ok(Some(self.game(s, e)));
                }
                if self.skipping.is_some() {
                    self.game_start = le;
                } else if le - self.game_start > MAX_GAME_BYTES {
                    self.skipping = Some(self.base + self.game_start as u64);
                    self.game_start = le;
                }
            }
            if self.eof {
                let end = self.buf.len();
                if let Some(from) = self.skipping.take() {
                    let mut to = self.base + end as u64;
                    if self.added_newline {
                        to -= 1;
                    }
                    self.game_start = end;
                    self.scan = end;
                    return Ok(Some(self.oversize(from, to)));
                }
                let s = self.game_start;
                self.game_start = end;
                if self.buf[s..end].iter().all(u8::is_ascii_whitespace) {
                    return Ok(None);
                }
                return Ok(Some(self.game(s, end)));
            }
            // an unfinished line too long for the game limit: skip the game
            if self.buf.len() - self.game_start > MAX_GAME_BYTES && self.skipping.is_none() {
                self.skipping = Some(self.base + self.game_start as u64);
            }
            if self.skipping.is_some() && self.buf.len() - self.scan > CHUNK {
                // keep no more of a huge line than its start was worth
                self.midline = true;
                self.scan = self.buf.len();
                self.game_start = self.scan;
            }
            self.fill()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(bytes: &[u8]) -> Vec<RawGame> {
        let mut r = PgnReader::new(bytes);
        let mut out = Vec::new();
        while let Some(g) = r.next_game().unwrap() {
            out.push(g);
        }
        out
    }

    #[test]
    fn games_split_at_tags_after_movetext_and_offsets_are_bytes() {
        let text = "[Event \"a\"]\n1. h2e2 h9g7 *\n\n[Event \"b\"]\n[Site \"c\"]\n1. 炮二平五 *\n";
        let g = split(text.as_bytes());
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].offset, 0);
        assert_eq!(g[1].offset as usize, text.find("[Event \"b\"]").unwrap());
        assert_eq!(g[1].end() as usize, text.len());
        let at = g[1].text.find('*').unwrap();
        assert_eq!(g[1].file_offset(at) as usize, text.rfind('*').unwrap());
    }

    #[test]
    fn an_unclosed_brace_ends_its_own_game_only() {
        let text =
            "[Event \"a\"]\n1. h2e2 { oops\n\n[Event \"b\"]\n1. h2e2 *\n[Event \"c\"]\n1. b2e2 *\n";
        let g = split(text.as_bytes());
        assert_eq!(g.len(), 3, "{g:?}");
        assert!(g[2].text.contains("b2e2"));
        // a tag-like line inside a comment that is not a whole tag stays in the comment
        let text = "[Event \"a\"]\n1. h2e2 { see\n[this]\n} h9g7 *\n";
        assert_eq!(split(text.as_bytes()).len(), 1);
    }

    #[test]
    fn a_tag_glued_to_junk_starts_a_game() {
        let mut bytes = b"[Event \"a\"]\n1. h2e2 *\n\x00\x01\xff\xfe junk".to_vec();
        bytes.extend_from_slice(b"[Event \"b\"]\n1. b2e2 *\n");
        let g = split(&bytes);
        assert_eq!(g.len(), 2);
        assert!(g[1].text.starts_with("[Event \"b\"]"), "{:?}", g[1].text);
    }

    #[test]
    fn oversize_games_are_skipped_with_their_range() {
        let mut bytes = b"[Event \"a\"]\n1. h2e2 ".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', MAX_GAME_BYTES + 10));
        bytes.extend_from_slice(b"\n[Event \"b\"]\n1. b2e2 *\n");
        let g = split(&bytes);
        assert_eq!(g.len(), 2);
        assert!(g[0].oversize && g[0].offset == 0);
        assert_eq!(g[0].end(), g[1].offset);
        assert!(g[1].text.contains("b2e2"));
    }
}
