//! PGN for Xiangqi: a streaming reader that splits a file into games without loading it
//! whole, a game parser for every move notation, and a writer.

use super::encoding::detect;
use super::game::{Game, GameError, GameResult};
use crate::board::notation::{parse_any, to_chinese, to_wxf, NotationError};
use crate::board::{Position, Setup};
use encoding_rs::{CoderResult, Decoder, Encoding};
use std::io::Read;

/// The text of one game, not parsed yet (parse it with [`parse_game`], or skip it).
#[derive(Clone, Debug)]
pub struct RawGame {
    /// 1-based number of the game in its file.
    pub ordinal: usize,
    /// Its text (tags and movetext), decoded.
    pub text: String,
}

/// Splits a PGN stream into games, decoding it in chunks.
pub struct PgnReader<R: Read> {
    src: R,
    decoder: Option<Decoder>,
    encoding: Option<&'static Encoding>,
    pending: String,
    scan_from: usize,
    in_moves: bool,
    depth: i32,
    game_start: usize,
    header_tags: Vec<String>,
    eof: bool,
    ordinal: usize,
    buf: Vec<u8>,
}

const CHUNK: usize = 1 << 20;

impl<R: Read> PgnReader<R> {
    /// Read games from `src`; the encoding is detected from the first megabyte.
    pub fn new(src: R) -> PgnReader<R> {
        PgnReader {
            src,
            decoder: None,
            encoding: None,
            pending: String::new(),
            scan_from: 0,
            in_moves: false,
            depth: 0,
            game_start: 0,
            header_tags: Vec::new(),
            eof: false,
            ordinal: 0,
            buf: vec![0; CHUNK],
        }
    }

    /// The encoding detected (after the first game was read).
    pub fn encoding(&self) -> Option<&'static Encoding> {
        self.encoding
    }

    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let mut n = 0;
        while n < self.buf.len() {
            let k = self.src.read(&mut self.buf[n..])?;
            if k == 0 {
                break;
            }
            n += k;
        }
        let last = n < self.buf.len();
        if self.decoder.is_none() {
            let enc = detect(&self.buf[..n]);
            self.encoding = Some(enc);
            self.decoder = Some(enc.new_decoder_with_bom_removal());
        }
        let dec = self.decoder.as_mut().expect("set above");
        self.pending.reserve(n * 3 / 2 + 16);
        let mut input = &self.buf[..n];
        loop {
            let need = dec
                .max_utf8_buffer_length(input.len())
                .unwrap_or(input.len() * 4);
            self.pending.reserve(need);
            let (res, read, _) = dec.decode_to_string(input, &mut self.pending, last);
            input = &input[read..];
            if res == CoderResult::InputEmpty {
                break;
            }
        }
        if last {
            self.eof = true;
        }
        Ok(true)
    }

    /// The next game's text, or None at the end of the stream.
    pub fn next_game(&mut self) -> std::io::Result<Option<RawGame>> {
        loop {
            // scan complete lines for the start of the next game
            while let Some(nl) = self.pending[self.scan_from..].find('\n') {
                let line_start = self.scan_from;
                let line = &self.pending[line_start..line_start + nl];
                self.scan_from += nl + 1;
                let t = line.trim_start_matches(['\u{feff}', ' ', '\t', '\r']);
                if self.depth == 0 && t.starts_with('[') {
                    // a tag: a new game starts after movetext, or when a tag name repeats
                    // in one header (a game without movetext)
                    let name: String = t[1..].chars().take_while(|c| !c.is_whitespace()).collect();
                    let repeated = self
                        .header_tags
                        .iter()
                        .any(|n| n.eq_ignore_ascii_case(&name));
                    if self.in_moves || repeated {
                        let text = self.pending[self.game_start..line_start].to_string();
                        self.game_start = line_start;
                        self.in_moves = false;
                        self.header_tags.clear();
                        self.header_tags.push(name);
                        self.ordinal += 1;
                        return Ok(Some(RawGame {
                            ordinal: self.ordinal,
                            text,
                        }));
                    }
                    self.header_tags.push(name);
                    continue;
                }
                for c in line.chars() {
                    match c {
                        '{' => self.depth += 1,
                        '}' => self.depth = (self.depth - 1).max(0),
                        _ => {}
                    }
                }
                if !t.trim().is_empty() {
                    self.in_moves = true;
                }
            }
            // drop the text of games already returned before reading more
            if self.game_start > 0 {
                self.pending.drain(..self.game_start);
                self.scan_from -= self.game_start;
                self.game_start = 0;
            }
            if !self.fill()? {
                // the rest is the last game
                let rest = self.pending[self.game_start..].trim();
                if rest.is_empty() {
                    return Ok(None);
                }
                let text = rest.to_string();
                self.pending.clear();
                self.scan_from = 0;
                self.ordinal += 1;
                return Ok(Some(RawGame {
                    ordinal: self.ordinal,
                    text,
                }));
            }
            if self.eof && !self.pending.ends_with('\n') {
                self.pending.push('\n');
            }
        }
    }
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line
        .trim()
        .strip_prefix('[')?
        .trim_end()
        .strip_suffix(']')?;
    let sp = inner.find(|c: char| c.is_whitespace())?;
    let name = inner[..sp].to_string();
    let v = inner[sp..].trim();
    let v = v.strip_prefix('"').unwrap_or(v);
    let v = v.strip_suffix('"').unwrap_or(v);
    Some((name, v.replace("\\\"", "\"")))
}

/// Parse one game's text. `file` names the source in errors.
pub fn parse_game(raw: &RawGame, file: &str) -> Result<Game, GameError> {
    let err = |ply: usize, token: &str, reason: String| GameError {
        file: file.to_string(),
        ordinal: raw.ordinal,
        ply,
        token: token.chars().take(40).collect(),
        reason,
    };
    let mut tags = Vec::new();
    let mut body_start = 0;
    let text = raw.text.as_str();
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') && t.ends_with(']') {
            if let Some(tag) = parse_tag(t) {
                tags.push(tag);
            }
            body_start += line.len();
        } else if t.is_empty() {
            body_start += line.len();
        } else {
            break;
        }
    }
    let fen = tags
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("FEN"))
        .map(|(_, v)| v.clone());
    let start = match fen.as_deref().filter(|f| !f.trim().is_empty()) {
        Some(f) => Setup::from_fen(f)
            .map_err(|e| err(0, f, format!("bad FEN: {e}")))
            .and_then(|s| {
                Position::from_setup(&s).map_err(|e| err(0, f, format!("illegal position: {e}")))
            })?,
        None => Position::startpos(),
    };
    let body = &text[body_start..];
    let mut it = body.char_indices().peekable();
    let mut result = None;
    let mut comments = Vec::new();
    let line = parse_line(
        body,
        &mut it,
        start.clone(),
        0,
        &mut result,
        &mut comments,
        &err,
    )?;
    let (moves, variations) = (line.moves, line.variations);
    if result.is_none() {
        if let Some((_, r)) = tags.iter().find(|(k, _)| k.eq_ignore_ascii_case("Result")) {
            result = GameResult::from_token(r.trim()).flatten();
        }
    }
    Ok(Game {
        tags,
        start,
        moves,
        result,
        variations,
        comments,
    })
}

struct Line {
    moves: Vec<crate::board::Move>,
    variations: Vec<super::game::Variation>,
}

type Chars<'a> = std::iter::Peekable<std::str::CharIndices<'a>>;

/// Parse a line of moves from `pos` until its end: the end of the text or a result token
/// (depth 0), or the closing parenthesis (inside a variation).
fn parse_line(
    body: &str,
    it: &mut Chars<'_>,
    mut pos: Position,
    depth: usize,
    result: &mut Option<GameResult>,
    comments: &mut Vec<(usize, String)>,
    err: &dyn Fn(usize, &str, String) -> GameError,
) -> Result<Line, GameError> {
    let mut line = Line {
        moves: Vec::new(),
        variations: Vec::new(),
    };
    let mut before_last: Option<Position> = None;
    if depth > 64 {
        return Err(err(0, "(", "variations nested too deep".into()));
    }
    while let Some(&(i, c)) = it.peek() {
        if c.is_whitespace() {
            it.next();
            continue;
        }
        match c {
            '{' => {
                it.next();
                let start = i + 1;
                let mut end = None;
                for (j, c) in it.by_ref() {
                    if c == '}' {
                        end = Some(j);
                        break;
                    }
                }
                let Some(end) = end else {
                    return Err(err(line.moves.len(), "{", "unterminated comment".into()));
                };
                if depth == 0 {
                    let text = body[start..end].trim();
                    if !text.is_empty() {
                        comments.push((line.moves.len(), text.to_string()));
                    }
                }
                continue;
            }
            ';' => {
                for (_, c) in it.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                continue;
            }
            ')' => {
                it.next();
                if depth > 0 {
                    return Ok(line);
                }
                continue; // a stray closing parenthesis
            }
            '}' => {
                it.next();
                continue;
            }
            '(' => {
                it.next();
                let Some(from) = before_last.clone() else {
                    return Err(err(
                        line.moves.len(),
                        "(",
                        "variation before any move".into(),
                    ));
                };
                let mut ignored = None;
                let sub = parse_line(body, it, from, depth + 1, &mut ignored, comments, err)?;
                line.variations.push(super::game::Variation {
                    at: line.moves.len() - 1,
                    moves: sub.moves,
                    variations: sub.variations,
                });
                continue;
            }
            _ => {}
        }
        // a token up to whitespace or a bracket
        let mut end = body.len();
        while let Some(&(j, c)) = it.peek() {
            if c.is_whitespace() || "{}();".contains(c) {
                end = j;
                break;
            }
            it.next();
        }
        let mut tok = &body[i..end];
        if let Some(r) = GameResult::from_token(tok) {
            if depth == 0 {
                *result = r;
                // whatever follows (banners, separators) is not part of the game
                while it.next().is_some() {}
                return Ok(line);
            }
            continue;
        }
        // move numbers, possibly glued to the move: "12." "12..." "1.炮二平五"
        let digits = tok.bytes().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 && tok[digits..].starts_with('.') {
            tok = tok[digits..].trim_start_matches('.');
            if tok.is_empty() {
                continue;
            }
        }
        if tok.starts_with('$') {
            continue;
        }
        let tok = tok.trim_end_matches(['!', '?', '#']);
        if tok.is_empty() {
            continue;
        }
        match parse_any(&pos, tok) {
            Ok(m) => {
                before_last = Some(pos.clone());
                pos.play(m);
                line.moves.push(m);
            }
            Err(e) => {
                let reason = match &e {
                    NotationError::Syntax(_) => format!("unreadable move: {e}"),
                    _ => e.to_string(),
                };
                let where_ = if depth > 0 { " (in a variation)" } else { "" };
                return Err(err(line.moves.len(), tok, format!("{reason}{where_}")));
            }
        }
    }
    if depth > 0 {
        return Err(err(line.moves.len(), "(", "unterminated variation".into()));
    }
    Ok(line)
}

/// Notation of exported moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Notation {
    /// `h2e2`.
    Iccs,
    /// `C2.5`.
    Wxf,
    /// `炮二平五`.
    Chinese,
}

/// Write a game as UTF-8 PGN in the chosen notation, keeping its tags and result, with a
/// `Format` tag (and a FEN tag when it does not start from the standard position).
pub fn write_game(g: &Game, notation: Notation) -> String {
    let mut s = String::new();
    let format = match notation {
        Notation::Iccs => "ICCS",
        Notation::Wxf => "WXF",
        Notation::Chinese => "Chinese",
    };
    let mut has_fen = false;
    for (k, v) in &g.tags {
        if k.eq_ignore_ascii_case("Format") {
            continue;
        }
        if k.eq_ignore_ascii_case("FEN") {
            has_fen = true;
        }
        if k.eq_ignore_ascii_case("Result") {
            continue;
        }
        s.push_str(&format!("[{k} \"{}\"]\n", v.replace('"', "\\\"")));
    }
    let result = g.result.map_or("*", |r| r.token());
    s.push_str(&format!("[Result \"{result}\"]\n"));
    if !has_fen && g.start != Position::startpos() {
        s.push_str(&format!("[FEN \"{}\"]\n", g.start.to_fen()));
    }
    s.push_str(&format!("[Format \"{format}\"]\n\n"));
    let mut line = String::new();
    for (k, c) in g.comments.iter().filter(|(k, _)| *k == 0).enumerate() {
        let _ = k;
        line.push_str(&format!("{{{}}} ", c.1.replace('}', ")")));
    }
    write_line(
        &mut line,
        &g.start,
        &g.moves,
        &g.variations,
        &g.comments,
        notation,
    );
    line.push_str(result);
    // wrap long lines at spaces outside comments
    let mut width = 0;
    let mut in_comment = false;
    for ch in line.chars() {
        match ch {
            '{' => in_comment = true,
            '}' => in_comment = false,
            _ => {}
        }
        if ch == ' ' && width > 70 && !in_comment {
            s.push('\n');
            width = 0;
            continue;
        }
        s.push(ch);
        width += 1;
    }
    s.push_str("\n\n");
    s
}

fn write_line(
    out: &mut String,
    start: &Position,
    moves: &[crate::board::Move],
    variations: &[super::game::Variation],
    comments: &[(usize, String)],
    notation: Notation,
) {
    let mut pos = start.clone();
    for (i, &m) in moves.iter().enumerate() {
        let black_first = i == 0 && pos.turn() == crate::board::Color::Black;
        if pos.turn() == crate::board::Color::Red || black_first {
            let n = pos.fullmoves();
            out.push_str(&format!("{n}.{} ", if black_first { ".." } else { "" }));
        }
        let text = match notation {
            Notation::Iccs => Some(m.to_string()),
            Notation::Wxf => to_wxf(&pos, m),
            Notation::Chinese => to_chinese(&pos, m),
        };
        out.push_str(&text.unwrap_or_else(|| m.to_string()));
        out.push(' ');
        for v in variations.iter().filter(|v| v.at == i) {
            out.push_str("( ");
            let mut sub = String::new();
            write_line(&mut sub, &pos, &v.moves, &v.variations, &[], notation);
            out.push_str(sub.trim_end());
            out.push_str(" ) ");
        }
        pos.play(m);
        for c in comments.iter().filter(|(k, _)| *k == i + 1) {
            out.push_str(&format!("{{{}}} ", c.1.replace('}', ")")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(text: &str) -> Vec<Result<Game, GameError>> {
        let mut r = PgnReader::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(g) = r.next_game().unwrap() {
            out.push(parse_game(&g, "test"));
        }
        out
    }

    #[test]
    fn reads_comments_variations_and_repeated_numbers() {
        let text = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. 炮二平五 {中炮 [note] (x)} 马８进７\n2. 马二进三 (2. 兵七进一 卒７进１) 车９平８ $1\n 2.          车９平８?\n";
        let g = games(text);
        assert_eq!(g.len(), 1);
        let e = g[0].as_ref().unwrap_err();
        assert_eq!(e.ply, 4); // the repeated black move is not legal twice
        let text = "[Event \"a\"]\n\n1. 炮二平五 {c} 马８进７\n2. 马二进三 (2. 兵七进一) 2... 车９平８ 1-0\n=====\nbanner\n[Event \"b\"]\n1. h2e2 h9g7 *";
        let g = games(text);
        assert_eq!(g.len(), 2);
        let a = g[0].as_ref().unwrap();
        assert_eq!(a.moves.len(), 4);
        assert_eq!(a.variation_count(), 1);
        assert_eq!(a.variations[0].at, 2);
        assert_eq!(a.variations[0].moves.len(), 1);
        assert_eq!(a.comments, vec![(1, "c".to_string())]);
        assert_eq!(a.result, Some(GameResult::RedWins));
        let b = g[1].as_ref().unwrap();
        assert_eq!(b.moves, a.moves[..2].to_vec());
        assert_eq!(b.result, None);
    }

    #[test]
    fn export_round_trips_in_every_notation() {
        let text =
            "[Event \"x\"]\n1. 炮二平五 马８进７ 2. 马二进三 车９平８ 3. 车一平二 马２进３ 0-1\n";
        let g = games(text).remove(0).unwrap();
        for n in [Notation::Iccs, Notation::Wxf, Notation::Chinese] {
            let out = write_game(&g, n);
            let back = games(&out).remove(0).unwrap();
            assert_eq!(back.moves, g.moves, "{n:?}\n{out}");
            assert_eq!(back.result, g.result);
            assert_eq!(back.tag("Event"), Some("x"));
        }
    }
}
