//! The default repertoire: an opening tree derived from game records (moves played in at
//! least `min_games` games within the first `max_ply` plies), every move checked by a short
//! search so that none loses material outright, written as text small enough to embed.
//!
//! Text format, one line per position reached from the start through kept moves (each
//! position once, at its first path in breadth-first order):
//!
//! ```text
//! # comment lines
//! <path: ICCS moves from the start, space separated> : <move>/<games>/<wins>/<draws>/<losses> ...
//! ```
//!
//! The root's path is empty (the line starts with `:`). Wins, draws and losses count for the
//! side making the move; games with an unknown result are in none of the three.

use super::build::{canonical, canonical_move, BookOptions, Weighting};
use super::file::{BookEntry, BookMove};
use crate::board::{Move, Position};
use crate::engine::search::{Limits, Searcher};
use crate::engine::tt::Tt;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;

/// How a repertoire is derived.
#[derive(Clone, Copy, Debug)]
pub struct RepertoireOptions {
    /// A move enters when played in at least this many games.
    pub min_games: u32,
    /// Plies of each game looked at.
    pub max_ply: u32,
    /// Depth of the search that checks each move.
    pub check_depth: i32,
    /// A move is dropped when the search scores it this many centipawns (or more) below the
    /// best move of its position.
    pub margin: i32,
}

impl Default for RepertoireOptions {
    fn default() -> RepertoireOptions {
        RepertoireOptions {
            min_games: 40,
            max_ply: 20,
            check_depth: 6,
            margin: 150,
        }
    }
}

/// One position of the repertoire: the moves from the start that reach it and its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepertoireNode {
    /// Moves from the start position.
    pub path: Vec<Move>,
    /// Kept moves, in this position's orientation, most played first (weights 0: a book
    /// made from the repertoire weighs them).
    pub moves: Vec<BookMove>,
}

/// A move the check dropped.
#[derive(Clone, Debug)]
pub struct Dropped {
    /// Moves from the start to its position.
    pub path: Vec<Move>,
    /// The move.
    pub mv: Move,
    /// Games that played it.
    pub games: u32,
    /// Centipawns below the best move of the position.
    pub loss: i32,
}

/// A derived repertoire.
#[derive(Clone, Debug, Default)]
pub struct Repertoire {
    /// Positions, breadth first from the start.
    pub nodes: Vec<RepertoireNode>,
    /// Moves dropped by the check.
    pub dropped: Vec<Dropped>,
}

/// Score of each move of `pos` from the mover's side, by a fixed-depth search of the
/// position after it (deterministic: a fresh table per move, no time limit).
fn move_scores(pos: &Position, moves: &[Move], depth: i32) -> Vec<i32> {
    moves
        .par_iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play(m);
            let tt = Tt::new(4);
            let stop = AtomicBool::new(false);
            let limits = Limits {
                depth: Some(depth.max(1) - 1),
                ..Limits::default()
            };
            let history = [(pos.key(), m)];
            let mut s = Searcher::new(&child, &history, &tt, None, &stop, limits, Vec::new());
            match s.run(|_| {}) {
                (_, Some(info)) => -info.score.0,
                // no legal reply: the move mates
                (None, None) => crate::engine::score::MATE,
                (Some(_), None) => 0,
            }
        })
        .collect()
}

/// Derive the repertoire from book entries (as [`super::BookBuilder`] makes them, with
/// `min_games` applied): walk from the start through the entries' moves, breadth first up to
/// `max_ply`, and keep each move that the search does not score `margin` or more below the
/// best move of its position.
pub fn derive(entries: &[BookEntry], opts: &RepertoireOptions) -> Repertoire {
    let by_key: HashMap<u64, &BookEntry> = entries.iter().map(|e| (e.key, e)).collect();
    let mut rep = Repertoire::default();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut layer: Vec<Vec<Move>> = vec![Vec::new()];
    for _ply in 0..opts.max_ply {
        let mut next = Vec::new();
        for path in layer {
            let mut pos = Position::startpos();
            for &m in &path {
                pos.play(m);
            }
            let (key, mirrored) = canonical(&pos);
            if !seen.insert(key) {
                continue;
            }
            let Some(e) = by_key.get(&key) else { continue };
            let mut cands: Vec<BookMove> = e
                .moves
                .iter()
                .filter(|b| b.games >= opts.min_games)
                .map(|b| BookMove {
                    mv: if mirrored { b.mv.mirror() } else { b.mv },
                    weight: 0, // weighed when the book is made
                    ..*b
                })
                .filter(|b| pos.is_legal(b.mv))
                .collect();
            if cands.is_empty() {
                continue;
            }
            cands.sort_by(|a, b| b.games.cmp(&a.games).then(a.mv.cmp(&b.mv)));
            let mvs: Vec<Move> = cands.iter().map(|b| b.mv).collect();
            let scores = move_scores(&pos, &mvs, opts.check_depth);
            let best = scores.iter().copied().max().unwrap_or(0);
            let mut kept = Vec::new();
            for (b, s) in cands.into_iter().zip(scores) {
                if s <= best - opts.margin {
                    rep.dropped.push(Dropped {
                        path: path.clone(),
                        mv: b.mv,
                        games: b.games,
                        loss: best - s,
                    });
                    continue;
                }
                let mut p = path.clone();
                p.push(b.mv);
                next.push(p);
                kept.push(b);
            }
            if !kept.is_empty() {
                rep.nodes.push(RepertoireNode { path, moves: kept });
            }
        }
        layer = next;
    }
    rep
}

/// Why repertoire text cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("repertoire line {line}: {reason}")]
pub struct RepertoireError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

impl Repertoire {
    /// The text form (see the module documentation), after `header` (written as comments).
    pub fn to_text(&self, header: &str) -> String {
        let mut s = String::new();
        for l in header.lines() {
            s.push_str(&format!("# {l}\n"));
        }
        for n in &self.nodes {
            let path: Vec<String> = n.path.iter().map(|m| m.to_string()).collect();
            s.push_str(&path.join(" "));
            s.push(':');
            for b in &n.moves {
                s.push_str(&format!(
                    " {}/{}/{}/{}/{}",
                    b.mv, b.games, b.wins, b.draws, b.losses
                ));
            }
            s.push('\n');
        }
        s
    }

    /// Read the text form; every path and move must be legal.
    pub fn parse(text: &str) -> Result<Repertoire, RepertoireError> {
        let mut rep = Repertoire::default();
        for (i, l) in text.lines().enumerate() {
            let err = |reason: String| RepertoireError {
                line: i + 1,
                reason,
            };
            let l = l.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let (path_s, moves_s) = l
                .split_once(':')
                .ok_or_else(|| err("no ':' between the path and the moves".into()))?;
            let mut pos = Position::startpos();
            let mut path = Vec::new();
            for t in path_s.split_whitespace() {
                let m: Move = t.parse().map_err(|_| err(format!("'{t}' is not a move")))?;
                if !pos.is_legal(m) {
                    return Err(err(format!("{t} is not legal on the path")));
                }
                pos.play(m);
                path.push(m);
            }
            let mut moves = Vec::new();
            for t in moves_s.split_whitespace() {
                let f: Vec<&str> = t.split('/').collect();
                let bad = || err(format!("'{t}' is not MOVE/GAMES/WINS/DRAWS/LOSSES"));
                if f.len() != 5 {
                    return Err(bad());
                }
                let mv: Move = f[0].parse().map_err(|_| bad())?;
                if !pos.is_legal(mv) {
                    return Err(err(format!("{mv} is not legal in its position")));
                }
                let n: Vec<u32> = f[1..]
                    .iter()
                    .map(|x| x.parse().map_err(|_| bad()))
                    .collect::<Result<_, _>>()?;
                if n[1].saturating_add(n[2]).saturating_add(n[3]) > n[0] {
                    return Err(err(format!("'{t}': more results than games")));
                }
                moves.push(BookMove {
                    mv,
                    games: n[0],
                    wins: n[1],
                    draws: n[2],
                    losses: n[3],
                    weight: 0,
                });
            }
            if moves.is_empty() {
                return Err(err("no moves".into()));
            }
            rep.nodes.push(RepertoireNode { path, moves });
        }
        Ok(rep)
    }

    /// Book entries (canonical keys, key order, moves in code order), weighted as `opts`
    /// says; a position given twice keeps its first line.
    pub fn entries(&self, weighting: Weighting) -> Vec<BookEntry> {
        let mut map: HashMap<u64, BookEntry> = HashMap::new();
        for n in &self.nodes {
            let mut pos = Position::startpos();
            for &m in &n.path {
                pos.play(m);
            }
            let (key, _) = canonical(&pos);
            if map.contains_key(&key) {
                continue;
            }
            let mut moves: Vec<BookMove> = n
                .moves
                .iter()
                .map(|b| {
                    let (_, cm) = canonical_move(&pos, b.mv);
                    let mut s = BookMove { mv: cm, ..*b };
                    s.weight = weighting.weight(&s);
                    s
                })
                .collect();
            moves.sort_by_key(|b| b.mv.to_u16());
            moves.dedup_by_key(|b| b.mv);
            map.insert(key, BookEntry { key, moves });
        }
        let mut v: Vec<BookEntry> = map.into_values().collect();
        v.sort_by_key(|e| e.key);
        v
    }

    /// Distinct move sequences of `plies` plies (or fewer, where the tree ends earlier) that
    /// following the repertoire from the start can give: the number of different openings a
    /// match taking `plies` book plies can play.
    pub fn distinct_lines(&self, plies: usize) -> usize {
        // canonical key -> the node and whether its position is the mirrored one
        let by_key: HashMap<u64, (&RepertoireNode, bool)> = self
            .nodes
            .iter()
            .map(|n| {
                let mut pos = Position::startpos();
                for &m in &n.path {
                    pos.play(m);
                }
                let (key, mirrored) = canonical(&pos);
                (key, (n, mirrored))
            })
            .collect();
        fn count(
            pos: &mut Position,
            left: usize,
            by_key: &HashMap<u64, (&RepertoireNode, bool)>,
            memo: &mut HashMap<(u64, usize), usize>,
        ) -> usize {
            if left == 0 {
                return 1;
            }
            let (key, mirrored) = canonical(pos);
            let Some(&(n, node_mirrored)) = by_key.get(&key) else {
                return 1;
            };
            if let Some(&c) = memo.get(&(pos.key(), left)) {
                return c;
            }
            let mut total = 0usize;
            for b in &n.moves {
                let m = if mirrored != node_mirrored {
                    b.mv.mirror()
                } else {
                    b.mv
                };
                if !pos.is_legal(m) {
                    continue; // a symmetric position: cannot happen for a stored move
                }
                let u = pos.play(m);
                total = total.saturating_add(count(pos, left - 1, by_key, memo));
                pos.undo(m, u);
            }
            memo.insert((pos.key(), left), total);
            total
        }
        count(
            &mut Position::startpos(),
            plies,
            &by_key,
            &mut HashMap::new(),
        )
    }

    /// The header of the text form: where it comes from, how to make it again, what it holds.
    pub fn header(&self, games: u64, sources: &str, opts: &RepertoireOptions) -> String {
        let RepertoireOptions {
            min_games,
            max_ply,
            check_depth,
            margin,
        } = *opts;
        format!(
            "xqdb default opening repertoire, derived from {games} games ({sources}).\n\
             Regenerate: xqdb book repertoire <the same files> -o data/repertoire.txt \
             --max-ply {max_ply} --min-games {min_games} --depth {check_depth} --margin {margin}\n\
             Kept: moves played in at least {min_games} games within the first {max_ply} \
             plies, each scored by a depth-{check_depth} search less than {margin} cp below \
             the best of its position.\n\
             {} positions, {} moves; {} moves dropped by the search.\n\
             Line: <path from the start> : <move>/<games>/<wins>/<draws>/<losses> (for the mover)",
            self.nodes.len(),
            self.move_count(),
            self.dropped.len()
        )
    }

    /// Moves in the repertoire.
    pub fn move_count(&self) -> usize {
        self.nodes.iter().map(|n| n.moves.len()).sum()
    }
}

/// Options of a book built from a repertoire (recorded in the book header).
pub fn book_options(opts: &RepertoireOptions) -> BookOptions {
    BookOptions {
        max_ply: opts.max_ply,
        min_games: opts.min_games,
        weighting: Weighting::Score,
    }
}

/// What [`derive_from_files`] made.
pub struct RepertoireRun {
    /// The repertoire (also written to the output file).
    pub repertoire: Repertoire,
    /// Games read and used.
    pub games: u64,
    /// Games skipped by the readers.
    pub skipped: usize,
}

/// Read the games of `paths` (files or folders), derive the repertoire and write it as text
/// to `output` (which must not be one of the inputs), its header naming the inputs.
pub fn derive_from_files(
    paths: &[std::path::PathBuf],
    output: &std::path::Path,
    opts: &RepertoireOptions,
) -> Result<RepertoireRun, String> {
    use crate::records::collection::{collect_files, read_collection};
    let book_opts = book_options(opts);
    let files = collect_files(paths).map_err(|e| e.to_string())?;
    crate::paths::check_output_not_input(output, &files)?;
    let mut builder = super::BookBuilder::new(&book_opts);
    let st = read_collection(paths, |g, _| builder.add(g), |_| {}).map_err(|e| e.to_string())?;
    let games = builder.games_used();
    let (entries, _) = builder.finish();
    let rep = derive(&entries, opts);
    let names: Vec<String> = paths
        .iter()
        .map(|p| {
            p.file_name()
                .map_or(p.display().to_string(), |n| n.to_string_lossy().into())
        })
        .collect();
    let header = rep.header(games, &names.join(", "), opts);
    std::fs::write(output, rep.to_text(&header))
        .map_err(|e| format!("{}: {e}", output.display()))?;
    Ok(RepertoireRun {
        repertoire: rep,
        games,
        skipped: st.skipped.len(),
    })
}
