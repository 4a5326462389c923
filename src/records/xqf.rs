//! XQF (binary, from Chinese tools), every version: plain up to 10, encrypted from 11,
//! shuffled piece table from 12. See ../shared/reference/formats.md for the layout.

use super::game::{Game, GameResult, Variation};
use crate::board::{Color, Move, Piece, Position, Role, Setup, Square};

const HEADER: usize = 0x400;

/// Why an XQF file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum XqfError {
    /// No `XQ` signature, or shorter than the 1024-byte header.
    #[error("not an XQF file (no 'XQ' signature or shorter than its header)")]
    NotXqf,
    /// Two pieces on one point of the start position.
    #[error("two pieces on {0}")]
    TwoPieces(Square),
    /// The start position breaks the rules.
    #[error("illegal start position: {0}")]
    IllegalStart(String),
    /// The file ends inside a record.
    #[error("truncated {what} at byte {at}")]
    Truncated {
        /// Which record.
        what: &'static str,
        /// Where.
        at: usize,
    },
    /// A comment longer than what is left of the file.
    #[error("comment of {len} bytes at byte {at} runs past the end of the file")]
    CommentBeyond {
        /// Its length.
        len: u64,
        /// Where.
        at: usize,
    },
    /// More nesting or more records than any real game.
    #[error("{0}")]
    TooBig(&'static str),
    /// A move record off the board.
    #[error("ply {ply}: move record {from}->{to} off the board")]
    OffBoard {
        /// Ply.
        ply: usize,
        /// Raw from point.
        from: u8,
        /// Raw to point.
        to: u8,
    },
    /// An illegal move.
    #[error("ply {ply}: illegal move {mv} in {fen}")]
    Illegal {
        /// Ply.
        ply: usize,
        /// The move.
        mv: Move,
        /// The position.
        fen: String,
    },
}

impl XqfError {
    /// Plies read before the error.
    pub fn ply(&self) -> usize {
        match self {
            XqfError::OffBoard { ply, .. } | XqfError::Illegal { ply, .. } => *ply,
            _ => 0,
        }
    }
}
const ROLES: [Role; 16] = [
    Role::Rook,
    Role::Horse,
    Role::Elephant,
    Role::Advisor,
    Role::King,
    Role::Advisor,
    Role::Elephant,
    Role::Horse,
    Role::Rook,
    Role::Cannon,
    Role::Cannon,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
];

fn square(v: u8) -> Option<Square> {
    if v > 89 {
        return None;
    }
    Square::from_coords(v / 10, v % 10)
}

fn gbk_string(b: &[u8], at: usize, max: usize) -> String {
    let Some(&len) = b.get(at) else {
        return String::new();
    };
    let len = (len as usize).min(max);
    let bytes = b.get(at + 1..at + 1 + len).unwrap_or(&[]);
    encoding_rs::GB18030
        .decode_without_bom_handling(bytes)
        .0
        .trim()
        .to_string()
}

struct Node {
    mv: Option<(u8, u8)>,
    comment: Option<String>,
    children: Vec<Node>,
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
    version: u8,
    kxyf: u8,
    kxyt: u8,
    bias: u32,
    records: usize,
}

impl Cursor<'_> {
    fn u32(&mut self) -> Result<u32, XqfError> {
        let s = self
            .b
            .get(self.at..self.at + 4)
            .ok_or(XqfError::Truncated {
                what: "comment length",
                at: self.at,
            })?;
        self.at += 4;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// One record and (depth first) its continuation; returns the node and whether a
    /// sibling follows it.
    fn node(&mut self, depth: usize) -> Result<(Node, bool), XqfError> {
        if depth > 2000 {
            return Err(XqfError::TooBig("move tree deeper than 2000 plies"));
        }
        self.records += 1;
        if self.records > 1_000_000 {
            return Err(XqfError::TooBig("more than a million move records"));
        }
        let r = self
            .b
            .get(self.at..self.at + 4)
            .ok_or(XqfError::Truncated {
                what: "move record",
                at: self.at,
            })?;
        let (b0, b1, flags) = (r[0], r[1], r[2]);
        self.at += 4;
        let from = b0.wrapping_sub(0x18).wrapping_sub(self.kxyf);
        let to = b1.wrapping_sub(0x20).wrapping_sub(self.kxyt);
        let (next, sibling, comment) = if self.version >= 11 {
            let f = flags & 0xE0;
            (f & 0x80 != 0, f & 0x40 != 0, f & 0x20 != 0)
        } else {
            (flags & 0xF0 != 0, flags & 0x0F != 0, true)
        };
        let mut comment_text = None;
        if comment {
            let raw = self.u32()?;
            let len = if self.version >= 11 {
                raw.wrapping_sub(self.bias)
            } else {
                raw
            } as usize;
            if len > self.b.len() || self.at + len > self.b.len() {
                return Err(XqfError::CommentBeyond {
                    len: len as u64,
                    at: self.at,
                });
            }
            let text = encoding_rs::GB18030
                .decode_without_bom_handling(&self.b[self.at..self.at + len])
                .0
                .trim()
                .to_string();
            self.at += len;
            comment_text = (!text.is_empty()).then_some(text);
        }
        let mut node = Node {
            mv: Some((from, to)),
            comment: comment_text,
            children: Vec::new(),
        };
        if next {
            // the continuation and its siblings (alternatives to it)
            loop {
                let (child, more) = self.node(depth + 1)?;
                node.children.push(child);
                if !more {
                    break;
                }
            }
        }
        Ok((node, sibling))
    }
}

/// Decode an XQF file: its main line, its variation tree and the main line's comments.
pub fn parse_xqf(b: &[u8]) -> Result<Game, XqfError> {
    if b.len() < HEADER || &b[0..2] != b"XQ" {
        return Err(XqfError::NotXqf);
    }
    let version = b[2];
    let (mask, ors, sum, k) = (
        b[3],
        [b[8], b[9], b[10], b[11]],
        b[0x0C],
        [b[0x0D], b[0x0E], b[0x0F]],
    );
    let f = |x: u8| 54u8.wrapping_mul(x).wrapping_mul(x).wrapping_add(221);
    let (kxy, kxyf, kxyt) = if version >= 11 {
        let kxy = f(k[0]).wrapping_mul(k[0]);
        let kxyf = f(k[1]).wrapping_mul(kxy);
        let kxyt = f(k[2]).wrapping_mul(kxyf);
        (kxy, kxyf, kxyt)
    } else {
        (0, 0, 0)
    };
    let bias = ((sum as u32 * 256 + k[0] as u32) % 32000) + 767;
    let mut data = b.to_vec();
    if version >= 11 {
        let key = [
            (sum & mask) | ors[0],
            (k[0] & mask) | ors[1],
            (k[1] & mask) | ors[2],
            (k[2] & mask) | ors[3],
        ];
        let text = b"[(C) Copyright Mr. Dong Shiwei.]";
        let stream: Vec<u8> = text
            .iter()
            .enumerate()
            .map(|(i, &c)| c & key[i % 4])
            .collect();
        for (i, x) in data[HEADER..].iter_mut().enumerate() {
            *x = x.wrapping_sub(stream[i % 32]);
        }
    }
    let mut raw = [0u8; 32];
    raw.copy_from_slice(&b[0x10..0x30]);
    let mut table = [0u8; 32];
    if version >= 11 {
        for r in raw.iter_mut() {
            *r = r.wrapping_sub(kxy);
        }
    }
    if version >= 12 {
        for (i, &r) in raw.iter().enumerate() {
            table[(kxy as usize + i + 1) & 31] = r;
        }
    } else {
        table = raw;
    }
    let mut setup = Setup::empty();
    for (i, &v) in table.iter().enumerate() {
        if let Some(sq) = square(v) {
            let color = if i < 16 { Color::Red } else { Color::Black };
            if setup.piece_at(sq).is_some() {
                return Err(XqfError::TwoPieces(sq));
            }
            setup.put(sq, Piece::new(color, ROLES[i % 16]));
        }
    }
    let mut cur = Cursor {
        b: &data,
        at: HEADER,
        version,
        kxyf,
        kxyt,
        bias,
        records: 0,
    };
    let (root, _) = cur.node(0)?;
    let start_plain = Position::from_setup(&setup);
    // who moves first: the side of the first move's piece
    let first = root
        .children
        .first()
        .and_then(|n| n.mv)
        .and_then(|(fr, _)| square(fr));
    if let Some(fr) = first {
        if let Some(p) = setup.piece_at(fr) {
            setup.turn = p.color;
        }
    }
    let start = Position::from_setup(&setup)
        .or(start_plain)
        .map_err(|e| XqfError::IllegalStart(e.to_string()))?;
    let (moves, variations) = line_of(&root, start.clone(), 0)?;
    let mut comments = Vec::new();
    let mut node = &root;
    let mut ply = 0;
    loop {
        if let Some(c) = &node.comment {
            comments.push((ply, c.clone()));
        }
        match node.children.first() {
            Some(ch) => {
                node = ch;
                ply += 1;
            }
            None => break,
        }
    }
    let result = match b[0x33] {
        1 => Some(GameResult::RedWins),
        2 => Some(GameResult::BlackWins),
        3 => Some(GameResult::Draw),
        _ => None,
    };
    let mut tags = Vec::new();
    for (name, at, max) in [
        ("Title", 0x50, 0x7F),
        ("Event", 0xD0, 0x3F),
        ("Date", 0x110, 0x0F),
        ("Site", 0x120, 0x0F),
        ("Red", 0x130, 0x0F),
        ("Black", 0x140, 0x0F),
        ("Annotator", 0x1D0, 0x0F),
        ("Author", 0x1E0, 0x0F),
    ] {
        let v = gbk_string(b, at, max);
        if !v.is_empty() {
            tags.push((name.to_string(), v));
        }
    }
    tags.push((
        "Result".into(),
        result.map_or("*", |r| r.token()).to_string(),
    ));
    if start != Position::startpos() {
        tags.push(("FEN".into(), start.to_fen()));
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

/// The main line below `node` (first children) with the other children as variations.
fn line_of(
    node: &Node,
    mut pos: Position,
    depth: usize,
) -> Result<(Vec<Move>, Vec<Variation>), XqfError> {
    if depth > 64 {
        return Err(XqfError::TooBig("variations nested more than 64 deep"));
    }
    let mut moves = Vec::new();
    let mut variations = Vec::new();
    let mut node = node;
    while let Some(child) = node.children.first() {
        for alt in &node.children[1..] {
            let m = record_move(alt, &pos, moves.len())?;
            let mut p2 = pos.clone();
            p2.play(m);
            let (mut sub, subvars) = line_of(alt, p2, depth + 1)?;
            sub.insert(0, m);
            let subvars = subvars.into_iter().map(|mut v| {
                v.at += 1;
                v
            });
            variations.push(Variation {
                at: moves.len(),
                moves: sub,
                variations: subvars.collect(),
            });
        }
        let m = record_move(child, &pos, moves.len())?;
        pos.play(m);
        moves.push(m);
        node = child;
    }
    Ok((moves, variations))
}

fn record_move(n: &Node, pos: &Position, ply: usize) -> Result<Move, XqfError> {
    let (fr, to) = n.mv.unwrap_or((u8::MAX, u8::MAX));
    let (Some(a), Some(z)) = (square(fr), square(to)) else {
        return Err(XqfError::OffBoard { ply, from: fr, to });
    };
    let m = Move::new(a, z);
    if !pos.is_legal(m) {
        return Err(XqfError::Illegal {
            ply,
            mv: m,
            fen: pos.to_fen(),
        });
    }
    Ok(m)
}
