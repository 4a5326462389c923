//! A slow, independent reference for tables under rule set 1 (../shared/reference/rules.md,
//! "Repetition: rule set 1"): a plain fixpoint over explicit positions. It shares nothing with
//! the fast path beyond move generation and the `Position` type: positions are enumerated by
//! placing pieces on points, keyed by their Zobrist key in a hash map, moves come from
//! `Position::legal_moves` and `Position::play`, and the check and chase predicates are the
//! reference's own (`attacks.rs`). No `xqdb::index`, no `xqdb::tablebase`, no
//! `xqdb::board::rules`. It keeps every position and move in memory (about 400 bytes a
//! position at peak): fine up to a few million positions, 5 GB for KNKPP's 13 million.
//!
//! Per material (smaller materials first, so that every capture lands in a known position):
//!
//! 1. **Round 0**: plain retrograde analysis by levels (a position without a legal move is
//!    lost in 0; a win is as fast, a loss as slow as possible). Every cycle is still open.
//! 2. **Rule rounds** (only when both sides have a rook, horse, cannon or pawn), modelled on
//!    the public generator's passes as rules.md outlines them:
//!    * marks, once, on the open positions: a position whose side to move is in check and
//!      can reply into an open position is *checked*, each such reply's result a *checker*
//!      position (its side to move has just given check); a position not in check with a
//!      quiet move that escapes an attack into an open position is *chased*, each such
//!      result a *chaser* position;
//!    * each round: flags `cl`/`zl` ("loses if it goes on checking/chasing") start on the
//!      checker/chaser positions, `cw`/`zw` ("wins if the opponent goes on") on the
//!      checked/chased ones; a capture into a drawn position of a smaller table (a way out
//!      of any cycle) drops `cl` (`zl`) unless the position also has `cw` (`zw`);
//!    * clean-up, to a fixpoint: `cl` stays only while every move into an open position
//!      reaches a `cw` position (every way to keep the draw is a check); `cw` stays while
//!      some reply reaches a `cl` position; `zl` stays only while every move into an open
//!      position reaches a `zw` position and all of them attack one target anew (and, when
//!      the chaser is in check, the victim can answer each chase with a non-checking escape
//!      into a `zl` position); `zw` stays while some escape reaches a `zl` position whose
//!      every move attacks the escaped piece anew. Then positions carrying both flags of a
//!      pair (mutual check, mutual chase) lose both, and the clean-up runs again;
//!    * ruling, for Red's benefit first: every open Black position with `cl` and not `cw`
//!      (or, with neither, `zl` and not `zw`) and no capture into a draw is lost by the
//!      ruling, and plain propagation follows; then the same for Black's benefit. A side for
//!      which a round rules nothing is done; rounds go on while a side is not done.
//!
//!    Whatever is still open is a draw.
//! 3. **Distance to mate under the rules**: plain retrograde analysis once more, in the game
//!    where a ruled position may only play moves into positions decided (won for the
//!    opponent) in an earlier round, or captures. It must give the same wins and losses.
//!
//! Written from the rules and the outline alone, it is simpler than the generator in two
//! places: a mutual check or chase simply loses both flags (the generator resolves mutual
//! chases by three strengths of clean-up first), and one notion of escape serves both the
//! marks and the clean-up (the generator's marks also count a piece that moves along the
//! line of its attacker to a point where that attack no longer counts). Neither changes a
//! value on any material compared (tests/rules_reference.rs).

pub mod attacks;
mod graph;
mod rounds;

use graph::{levels, position_of, Graph, Map};
use rounds::Rounds;
use std::collections::HashMap;
use xqdb::board::{Color, Piece, Position, Role};

/// Outcome for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Res {
    Win,
    Draw,
    Loss,
}

/// Which rule lost a ruled position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Check,
    Chase,
}

/// The reference value of a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Val {
    pub res: Res,
    /// Plies to mate (0 for a draw).
    pub dtm: u16,
    /// The rule round that decided it (0: plain retrograde analysis; draws 0).
    pub order: u8,
    /// Set on a position lost by the ruling itself.
    pub ruling: Option<Kind>,
}

/// A material: the pieces of each side besides the king, Red first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mat {
    pub red: Vec<Role>,
    pub black: Vec<Role>,
}

impl Mat {
    /// From a name like `KRKN` (Red's king and pieces, then Black's).
    pub fn parse(name: &str) -> Mat {
        let b = name[1..].find('K').expect("two kings") + 1;
        let side = |s: &str| {
            let mut v: Vec<Role> = s[1..]
                .chars()
                .map(|c| Role::from_char(c.to_ascii_lowercase()).expect("piece letter"))
                .collect();
            v.sort_by_key(|r| r.index());
            v
        };
        Mat {
            red: side(&name[..b]),
            black: side(&name[b..]),
        }
    }

    pub fn name(&self) -> String {
        let s = |v: &[Role]| {
            v.iter()
                .map(|r| r.char().to_ascii_uppercase())
                .collect::<String>()
        };
        format!("K{}K{}", s(&self.red), s(&self.black))
    }

    /// The materials one capture away.
    pub fn subs(&self) -> Vec<Mat> {
        let mut out = Vec::new();
        for i in 0..self.red.len() {
            let mut m = self.clone();
            m.red.remove(i);
            out.push(m);
        }
        for i in 0..self.black.len() {
            let mut m = self.clone();
            m.black.remove(i);
            out.push(m);
        }
        out.sort();
        out.dedup();
        out
    }

    /// Both sides have a piece that can check or chase.
    pub fn both_attack(&self) -> bool {
        let attacker = |v: &[Role]| {
            v.iter()
                .any(|r| matches!(r, Role::Rook | Role::Horse | Role::Cannon | Role::Pawn))
        };
        attacker(&self.red) && attacker(&self.black)
    }

    /// Every piece, kings first.
    pub fn pieces(&self) -> Vec<Piece> {
        let mut v = vec![
            Piece::new(Color::Red, Role::King),
            Piece::new(Color::Black, Role::King),
        ];
        v.extend(self.red.iter().map(|&r| Piece::new(Color::Red, r)));
        v.extend(self.black.iter().map(|&r| Piece::new(Color::Black, r)));
        v
    }
}

/// The positions of a solved material, kept compactly.
struct Kept {
    pieces: Vec<Piece>,
    squares: Vec<u8>,
    side: Vec<Color>,
}

/// Reference values of every position of the materials solved.
#[derive(Default)]
pub struct Reference {
    values: Map<u64, Val>,
    kept: HashMap<Mat, Kept>,
}

impl Reference {
    pub fn new() -> Reference {
        Reference::default()
    }

    /// Solve `mat` and every material it captures into.
    pub fn solve(&mut self, mat: &Mat) {
        if self.kept.contains_key(mat) {
            return;
        }
        for s in mat.subs() {
            self.solve(&s);
        }
        let g = Graph::build(mat, &self.values);
        let plain = levels(&g, &|_, _| true);
        let mut r = Rounds::new(&g, plain.iter().map(|v| v.map(|x| x.0)).collect());
        let ruled = mat.both_attack() && r.run();
        let dist = if ruled {
            let (res, order, ruling) = (&r.res, &r.order, &r.ruling);
            // a ruled position may only play moves into positions won (for the opponent)
            // in an earlier round
            let allowed = |i: usize, j: u32| {
                ruling[i].is_none()
                    || (res[j as usize] == Some(Res::Win) && order[j as usize] < order[i])
            };
            levels(&g, &allowed)
        } else {
            plain
        };
        for (i, d) in dist.iter().enumerate() {
            let res = r.res[i].unwrap_or(Res::Draw);
            let pos = g.position(i);
            assert_eq!(
                d.map(|x| x.0),
                (res != Res::Draw).then_some(res),
                "{}: the distances under the rules disagree with the rounds",
                pos.to_fen()
            );
            let val = Val {
                res,
                dtm: d.map_or(0, |x| x.1),
                order: if res == Res::Draw { 0 } else { r.order[i] },
                ruling: r.ruling[i],
            };
            self.values.insert(pos.key(), val);
        }
        let Graph {
            pieces,
            squares,
            side,
            ..
        } = g;
        self.kept.insert(
            mat.clone(),
            Kept {
                pieces,
                squares,
                side,
            },
        );
    }

    /// The materials solved, smallest first.
    pub fn materials(&self) -> Vec<Mat> {
        let mut v: Vec<Mat> = self.kept.keys().cloned().collect();
        v.sort_by_key(|m| (m.red.len() + m.black.len(), m.clone()));
        v
    }

    /// The positions of a solved material.
    pub fn positions(&self, mat: &Mat) -> impl Iterator<Item = Position> + '_ {
        let k = self.kept.get(mat);
        (0..k.map_or(0, |k| k.side.len())).map(move |i| {
            let k = k.expect("solved material");
            position_of(&k.pieces, &k.squares, &k.side, i)
        })
    }

    /// The value of a position of a solved material.
    pub fn value(&self, pos: &Position) -> Option<Val> {
        self.values.get(&pos.key()).copied()
    }
}
