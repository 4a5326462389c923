//! The positions of one material as an explicit graph, and plain retrograde analysis on it.

use super::{Mat, Res, Val};
use rayon::prelude::*;
use std::collections::HashMap;

/// Position keys are Zobrist keys: a fast hash is enough.
pub type Map<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;
use xqdb::board::{Color, Piece, Position, Role, Square};

/// The points a piece can ever stand on.
fn points(p: Piece) -> Vec<Square> {
    let own = |r: u8| match p.color {
        Color::Red => r,
        Color::Black => 9 - r,
    };
    let at = |f: u8, r: u8| Square::from_coords(f, own(r)).expect("on the board");
    match p.role {
        Role::King => (0..3)
            .flat_map(|r| (3..6).map(move |f| (f, r)))
            .map(|(f, r)| at(f, r))
            .collect(),
        Role::Advisor => [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)]
            .iter()
            .map(|&(f, r)| at(f, r))
            .collect(),
        Role::Elephant => [(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)]
            .iter()
            .map(|&(f, r)| at(f, r))
            .collect(),
        Role::Pawn => {
            let mut v: Vec<Square> = [3, 4]
                .iter()
                .flat_map(|&r| [0, 2, 4, 6, 8].map(|f| at(f, r)))
                .collect();
            v.extend(
                (5..10)
                    .flat_map(|r| (0..9).map(move |f| (f, r)))
                    .map(|(f, r)| at(f, r)),
            );
            v
        }
        _ => Square::ALL.to_vec(),
    }
}

/// Every placement of `pieces` on their points, one point per piece, pieces of one kind on
/// increasing points (so that each set of points comes once), at most one unpassed pawn of a
/// colour per file.
fn place(pieces: &[Piece], placed: &mut Vec<Square>, out: &mut Vec<Square>) {
    let k = placed.len();
    if k == pieces.len() {
        for a in 0..k {
            for b in a + 1..k {
                let p = pieces[a];
                let unpassed = |s: Square| (p.color == Color::Red) == (s.rank() < 5);
                if p == pieces[b]
                    && p.role == Role::Pawn
                    && unpassed(placed[a])
                    && unpassed(placed[b])
                    && placed[a].file() == placed[b].file()
                {
                    return;
                }
            }
        }
        out.extend_from_slice(placed);
        return;
    }
    for s in points(pieces[k]) {
        if placed.contains(&s) || (k > 0 && pieces[k - 1] == pieces[k] && placed[k - 1] >= s) {
            continue;
        }
        placed.push(s);
        place(pieces, placed, out);
        placed.pop();
    }
}

/// Captures of a position into smaller materials, summarised.
#[derive(Copy, Clone, Default)]
pub struct Ext {
    /// Number of captures.
    pub count: u8,
    /// Some capture reaches a drawn position.
    pub draw: bool,
    /// Fastest capture into a position lost for its side to move (its distance).
    pub loss: Option<u16>,
    /// Slowest capture into a position won for its side to move (its distance).
    pub win: Option<u16>,
}

/// Compressed rows: the `u32` list of each position.
#[derive(Default)]
pub struct Rows {
    first: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    pub fn row(&self, i: usize) -> &[u32] {
        &self.items[self.first[i] as usize..self.first[i + 1] as usize]
    }

    /// The rows of the reversed edges.
    fn reversed(&self) -> Rows {
        let n = self.first.len() - 1;
        let mut first = vec![0u32; n + 1];
        for &j in &self.items {
            first[j as usize + 1] += 1;
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut items = vec![0u32; self.items.len()];
        for i in 0..n {
            for &j in self.row(i) {
                items[fill[j as usize] as usize] = i as u32;
                fill[j as usize] += 1;
            }
        }
        Rows { first, items }
    }

    fn from_lists(lists: impl Iterator<Item = Vec<u32>>) -> Rows {
        let mut r = Rows {
            first: vec![0],
            items: Vec::new(),
        };
        for l in lists {
            r.items.extend(l);
            r.first.push(r.items.len() as u32);
        }
        r
    }
}

/// The legal positions of one material (both sides to move) with their quiet moves as
/// edges; captures are summarised from the values of the smaller materials.
pub struct Graph {
    pub pieces: Vec<Piece>,
    /// Points of position `i`: `squares[i * pieces.len()..]`.
    pub squares: Vec<u8>,
    pub side: Vec<Color>,
    pub id: Map<u64, u32>,
    /// Quiet moves: the positions they reach.
    pub kids: Rows,
    /// The positions with a quiet move into each position.
    pub parents: Rows,
    pub ext: Vec<Ext>,
}

impl Graph {
    pub fn len(&self) -> usize {
        self.side.len()
    }

    pub fn position(&self, i: usize) -> Position {
        position_of(&self.pieces, &self.squares, &self.side, i)
    }

    pub fn kids(&self, i: usize) -> &[u32] {
        self.kids.row(i)
    }

    pub fn parents(&self, i: usize) -> &[u32] {
        self.parents.row(i)
    }

    /// Every legal position of `mat` and its moves; captures are looked up in `known`.
    pub fn build(mat: &Mat, known: &Map<u64, Val>) -> Graph {
        let pieces = mat.pieces();
        let k = pieces.len();
        let mut all = Vec::new();
        place(&pieces, &mut Vec::with_capacity(k), &mut all);
        // the legal positions of each placement (key and side to move)
        let legal: Vec<Vec<(u64, Color)>> = all
            .par_chunks(k)
            .map(|sq| {
                let list: Vec<(Piece, Square)> =
                    pieces.iter().copied().zip(sq.iter().copied()).collect();
                Color::ALL
                    .into_iter()
                    .filter_map(|s| {
                        let pos = Position::from_pieces(&list, s).ok()?;
                        pos.check_placement_legal().ok()?;
                        Some((pos.key(), s))
                    })
                    .collect()
            })
            .collect();
        let (mut squares, mut side, mut id) = (Vec::new(), Vec::new(), Map::default());
        for (sq, found) in all.chunks(k).zip(legal) {
            for (key, s) in found {
                let n = side.len() as u32;
                assert!(id.insert(key, n).is_none(), "two placements with one key");
                squares.extend(sq.iter().map(|s| s.index() as u8));
                side.push(s);
            }
        }
        let rows: Vec<(Vec<u32>, Ext)> = (0..side.len())
            .into_par_iter()
            .map(|i| {
                let mut pos = position_of(&pieces, &squares, &side, i);
                let mut ext = Ext::default();
                let mut kids = Vec::new();
                for m in pos.legal_moves() {
                    let capture = pos.piece_at(m.to()).is_some();
                    let undo = pos.play(m);
                    let key = pos.key();
                    pos.undo(m, undo);
                    if capture {
                        let v = known.get(&key).unwrap_or_else(|| {
                            panic!("{}: {m} captures into an unknown position", pos.to_fen())
                        });
                        ext.count += 1;
                        match v.res {
                            Res::Draw => ext.draw = true,
                            Res::Loss => ext.loss = Some(ext.loss.map_or(v.dtm, |d| d.min(v.dtm))),
                            Res::Win => ext.win = Some(ext.win.map_or(v.dtm, |d| d.max(v.dtm))),
                        }
                    } else {
                        kids.push(*id.get(&key).unwrap_or_else(|| {
                            panic!("{}: {m} reaches an unknown position", pos.to_fen())
                        }));
                    }
                }
                (kids, ext)
            })
            .collect();
        let ext = rows.iter().map(|r| r.1).collect();
        let kids = Rows::from_lists(rows.into_iter().map(|r| r.0));
        let parents = kids.reversed();
        Graph {
            pieces,
            squares,
            side,
            id,
            kids,
            parents,
            ext,
        }
    }
}

pub fn position_of(pieces: &[Piece], squares: &[u8], side: &[Color], i: usize) -> Position {
    let k = pieces.len();
    let list: Vec<(Piece, Square)> = pieces
        .iter()
        .zip(&squares[i * k..(i + 1) * k])
        .map(|(&p, &s)| (p, Square::new(s).expect("stored point")))
        .collect();
    Position::from_pieces(&list, side[i]).expect("stored position")
}

/// Plain retrograde analysis by levels over `g`, where position `i` may move to its own
/// child `j` only when `allowed(i, j)` (captures are always allowed). Level `L` decides the
/// wins in `L` (odd `L`: a move into a loss in `L - 1`) and the losses in `L` (even `L`: every
/// move into a win, the slowest in `L - 1`) from what the levels before decided: the fastest
/// win and the slowest loss. Only the positions with a move into a position decided at
/// `L - 1` can be decided at `L`. None: not decided.
pub fn levels(g: &Graph, allowed: &dyn Fn(usize, u32) -> bool) -> Vec<Option<(Res, u16)>> {
    let n = g.len();
    let mut val: Vec<Option<(Res, u16)>> = vec![None; n];
    // captures decided at distance d act at level d + 1
    let mut trig: Vec<Vec<u32>> = Vec::new();
    let mut frontier = Vec::new();
    for (i, (e, v)) in g.ext.iter().zip(val.iter_mut()).enumerate() {
        for d in [e.loss, e.win].into_iter().flatten() {
            if trig.len() <= d as usize {
                trig.resize(d as usize + 1, Vec::new());
            }
            trig[d as usize].push(i as u32);
        }
        if e.count == 0 && !g.kids(i).iter().any(|&j| allowed(i, j)) {
            *v = Some((Res::Loss, 0));
            frontier.push(i as u32);
        }
    }
    let mut level: u16 = 0;
    while !frontier.is_empty() || (level as usize) < trig.len() {
        let mut cand: Vec<u32> = frontier
            .iter()
            .flat_map(|&j| g.parents(j as usize).iter().copied())
            .chain(trig.get(level as usize).into_iter().flatten().copied())
            .collect();
        cand.sort_unstable();
        cand.dedup();
        level += 1;
        frontier.clear();
        for i in cand {
            let i = i as usize;
            if val[i].is_some() {
                continue;
            }
            let e = g.ext[i];
            let kids = g.kids(i).iter().filter(|&&j| allowed(i, j));
            let decided = if level % 2 == 1 {
                let mut k = kids;
                (e.loss == Some(level - 1)
                    || k.any(|&j| val[j as usize] == Some((Res::Loss, level - 1))))
                .then_some(Res::Win)
            } else if e.draw || e.loss.is_some() {
                None
            } else {
                let mut longest = e.win.map_or(-1, |d| d as i32);
                let mut all = true;
                for &j in kids {
                    match val[j as usize] {
                        Some((Res::Win, d)) if d < level => longest = longest.max(d as i32),
                        _ => {
                            all = false;
                            break;
                        }
                    }
                }
                (all && longest == level as i32 - 1).then_some(Res::Loss)
            };
            if let Some(r) = decided {
                val[i] = Some((r, level));
                frontier.push(i as u32);
            }
        }
    }
    val
}
