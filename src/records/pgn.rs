//! PGN for Xiangqi: a game parser for every move notation, and a writer. (The streaming
//! reader that splits a file into games is in `reader.rs`.)

use super::game::{Game, GameError, GameResult};
pub use super::reader::{PgnReader, RawGame, MAX_GAME_BYTES};
use crate::board::notation::{parse_any, to_chinese, to_wxf, NotationError};
use crate::board::{Position, Setup};

/// A tag name: ASCII letters, digits and `_`, starting with a letter.
fn tag_name_ok(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
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

/// Bytes of a game's stretch of file that are not part of the game: text after its result
/// token, or from a token that is not text (control characters, undecodable bytes) on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Offset in the file.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// Why they were skipped.
    pub why: &'static str,
}

/// Parse one game's text. `file` names the source in errors.
pub fn parse_game(raw: &RawGame, file: &str) -> Result<Game, GameError> {
    parse_game_full(raw, file).map(|(g, _)| g)
}

/// What a stretch of a file held: a game (and the bytes after it that are not part of it),
/// or no game at all (bytes that are neither tags nor moves).
#[derive(Clone, Debug)]
pub enum Parsed {
    /// A game.
    Game(Box<Game>, Vec<Skipped>),
    /// Junk: no tag, no move, no result.
    Junk(Skipped),
}

/// Parse one game's text, telling what of its stretch of file was skipped.
pub fn parse_game_full(raw: &RawGame, file: &str) -> Result<(Game, Vec<Skipped>), GameError> {
    match parse_stretch(raw, file)? {
        Parsed::Game(g, s) => Ok((*g, s)),
        Parsed::Junk(s) => Err(GameError {
            file: file.to_string(),
            ordinal: raw.ordinal,
            ply: 0,
            token: String::new(),
            reason: format!("no game, {} bytes of junk", s.len),
            bytes: Some((raw.offset, raw.end())),
        }),
    }
}

/// Parse one game's text: a game, or junk.
pub fn parse_stretch(raw: &RawGame, file: &str) -> Result<Parsed, GameError> {
    let err = |ply: usize, token: &str, reason: String| GameError {
        file: file.to_string(),
        ordinal: raw.ordinal,
        ply,
        token: token.chars().take(40).collect(),
        reason,
        bytes: Some((raw.offset, raw.end())),
    };
    if raw.oversize {
        return Err(err(
            0,
            "",
            format!(
                "longer than {} MiB: not a game record; skipped up to the next tag",
                MAX_GAME_BYTES >> 20
            ),
        ));
    }
    let mut tags = Vec::new();
    let mut skipped = Vec::new();
    let mut body_start = 0;
    let text = raw.text.as_str();
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') && t.ends_with(']') {
            match parse_tag(t) {
                Some(tag) if tag_name_ok(&tag.0) => tags.push(tag),
                _ => {
                    // bracketed junk in the header: not a tag
                    let (from, to) = raw.line_bytes(body_start);
                    skipped.push(Skipped {
                        offset: from,
                        len: to - from,
                        why: "not a tag",
                    });
                }
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
    let mut sink = Sink::default();
    let doubtful = |at: usize| raw.doubtful_at(body_start + at);
    let line = parse_line(
        body,
        &mut it,
        start.clone(),
        0,
        &mut result,
        &mut sink,
        &Ctx {
            err: &err,
            doubtful: &doubtful,
        },
    )?;
    let (moves, variations) = (line.moves, line.variations);
    let Sink { comments, stop } = sink;
    if let Some((at, why)) = stop {
        let rest = &body[at..];
        let lead = rest.len() - rest.trim_start().len();
        if lead < rest.len() {
            let from = raw.file_offset(body_start + at + lead).min(raw.end());
            skipped.push(Skipped {
                offset: from,
                len: raw.end() - from,
                why,
            });
        }
    }
    let has_tags = !tags.is_empty();
    if moves.is_empty() && result.is_none() && !has_tags {
        return Ok(Parsed::Junk(Skipped {
            offset: raw.offset,
            len: raw.len,
            why: "neither tags nor moves",
        }));
    }
    if result.is_none() {
        if let Some((_, r)) = tags.iter().find(|(k, _)| k.eq_ignore_ascii_case("Result")) {
            result = GameResult::from_token(r.trim()).flatten();
        }
    }
    Ok(Parsed::Game(
        Box::new(Game {
            tags,
            start,
            moves,
            result,
            variations,
            comments,
        }),
        skipped,
    ))
}

struct Line {
    moves: Vec<crate::board::Move>,
    variations: Vec<super::game::Variation>,
}

type Chars<'a> = std::iter::Peekable<std::str::CharIndices<'a>>;

/// What parse_line gathers besides the moves: main-line comments, and where the game was
/// cut (and why), if it was.
#[derive(Default)]
struct Sink {
    comments: Vec<(usize, String)>,
    stop: Option<(usize, &'static str)>,
}

/// What parse_line needs besides the text: the error maker, and whether a position of the
/// body is in a line that was hard to decode.
struct Ctx<'a> {
    err: &'a dyn Fn(usize, &str, String) -> GameError,
    doubtful: &'a dyn Fn(usize) -> bool,
}

/// Parse a line of moves from `pos` until its end: the end of the text or a result token
/// (depth 0), or the closing parenthesis (inside a variation).
fn parse_line(
    body: &str,
    it: &mut Chars<'_>,
    mut pos: Position,
    depth: usize,
    result: &mut Option<GameResult>,
    sink: &mut Sink,
    ctx: &Ctx<'_>,
) -> Result<Line, GameError> {
    let err = ctx.err;
    let mut line = Line {
        moves: Vec::new(),
        variations: Vec::new(),
    };
    let mut before_last: Option<Position> = None;
    // where the junk starts when the game is cut: after the last move of the main line
    // (stray brackets, numbers or comments between it and the junk are junk too)
    let mut last_move_end = it.peek().map_or(body.len(), |&(i, _)| i);
    let cut = |i: usize, last: usize| if depth == 0 { last.min(i) } else { i };
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
                        sink.comments.push((line.moves.len(), text.to_string()));
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
                let junk = |stop: &mut Option<(usize, &'static str)>, it: &mut Chars<'_>| {
                    // a bracket in binary junk: the game ends before it
                    *stop = Some((cut(i, last_move_end), "not text"));
                    while it.next().is_some() {}
                };
                let is_junk = depth == 0 && ((ctx.doubtful)(i) || junk_ahead(&body[i..]));
                let Some(from) = before_last.clone() else {
                    if is_junk {
                        junk(&mut sink.stop, it);
                        return Ok(line);
                    }
                    return Err(err(
                        line.moves.len(),
                        "(",
                        "variation before any move".into(),
                    ));
                };
                let mut ignored = None;
                let sub = parse_line(body, it, from, depth + 1, &mut ignored, sink, ctx);
                let sub = match sub {
                    Err(_) if is_junk => {
                        junk(&mut sink.stop, it);
                        return Ok(line);
                    }
                    other => other?,
                };
                if sink.stop.is_some() {
                    // junk inside the variation ended the game: it ends before the bracket
                    if depth == 0 {
                        junk(&mut sink.stop, it);
                    }
                    return Ok(line);
                }
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
                sink.stop = Some((end, "after the result"));
                while it.next().is_some() {}
                return Ok(line);
            }
            continue;
        }
        if tok.chars().any(not_text) {
            // not text: the game ends before it, the rest is reported as skipped
            sink.stop = Some((cut(i, last_move_end), "not text"));
            while it.next().is_some() {}
            return Ok(line);
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
                last_move_end = end;
            }
            Err(_) if (ctx.doubtful)(i) || junk_ahead(&body[i..]) => {
                // binary junk after the moves (no result token to end the game)
                sink.stop = Some((cut(i, last_move_end), "not text"));
                while it.next().is_some() {}
                return Ok(line);
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

/// A character no game record holds outside comments: controls (but tabs and line
/// breaks) and the replacement of undecodable bytes.
fn not_text(c: char) -> bool {
    c == '\u{FFFD}' || (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// True when the text from a token that is not a move on looks like binary junk: a
/// character that is not text before the end of its line (or within 200 characters).
fn junk_ahead(rest: &str) -> bool {
    rest.chars()
        .take(200)
        .take_while(|&c| c != '\n')
        .any(not_text)
}

/// Notation of written moves (`--notation iccs|wxf|chinese` on the command line).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Notation {
    /// `h2e2`.
    Iccs,
    /// `C2.5`.
    Wxf,
    /// `炮二平五`.
    Chinese,
}

impl Notation {
    /// A legal move `m` of `pos` in this notation (ICCS when the notation cannot name it).
    pub fn write_move(self, pos: &Position, m: crate::board::Move) -> String {
        let text = match self {
            Notation::Iccs => None,
            Notation::Wxf => to_wxf(pos, m),
            Notation::Chinese => to_chinese(pos, m),
        };
        text.unwrap_or_else(|| m.to_string())
    }
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
        out.push_str(&notation.write_move(&pos, m));
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

    #[test]
    fn notations_by_name_and_moves_in_each() {
        use clap::ValueEnum;
        for (name, n) in [
            ("iccs", Notation::Iccs),
            ("WXF", Notation::Wxf),
            ("Chinese", Notation::Chinese),
        ] {
            assert_eq!(Notation::from_str(name, true), Ok(n));
        }
        let e = Notation::from_str("san", true).unwrap_err();
        assert!(e.contains("san"), "{e}");
        let pos = Position::startpos();
        let m = "h2e2".parse().unwrap();
        assert_eq!(Notation::Iccs.write_move(&pos, m), "h2e2");
        assert_eq!(Notation::Wxf.write_move(&pos, m), "C2.5");
        assert_eq!(Notation::Chinese.write_move(&pos, m), "炮二平五");
        // Black's cannon: WXF and Chinese count files from Black's side
        let mut p = pos.clone();
        p.play(m);
        let b = "h7e7".parse().unwrap();
        assert_eq!(Notation::Wxf.write_move(&p, b), "C8.5");
        assert_eq!(Notation::Chinese.write_move(&p, b), "炮８平５");
    }

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
