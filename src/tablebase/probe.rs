//! Probing table files: [`Tablebases::open`] finds the files of a folder; each table is
//! opened (memory-mapped) on first use; decompressed blocks are kept in a bounded cache
//! shared by all threads.

use super::file::{table_path, FileError, Metric, TableFile};
use super::table::table_material;
use super::values::{Ruling, Verdict, Wdl, MAX_DTM};
use crate::board::rules::RuleSet;
use crate::board::{Move, Position, PositionError};
use crate::index::{Material, PlacementIndex};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// Why a probe failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProbeError {
    /// No file for the material.
    #[error("no {metric} table for {material} in {dir}: run `xqdb gen {material}`")]
    Missing {
        /// Table name.
        material: Material,
        /// Which file.
        metric: &'static str,
        /// Folder searched.
        dir: String,
    },
    /// The file is there but unreadable, corrupt, of another version or another table.
    #[error("table {material}: {source}")]
    File {
        /// Table name.
        material: Material,
        /// What is wrong with the file.
        source: Arc<FileError>,
    },
    /// The position itself is not legal.
    #[error("illegal position: {0}")]
    Illegal(#[from] PositionError),
    /// A capture leads into a table of another repetition rule set.
    #[error("table {material} follows rule set {rules} but {sub} follows rule set {sub_rules}: tables of different rule sets cannot be combined")]
    RuleMismatch {
        /// The position's table.
        material: Material,
        /// Its rule set.
        rules: RuleSet,
        /// The table one capture away.
        sub: Material,
        /// Its rule set.
        sub_rules: RuleSet,
    },
    /// A material the index cannot hold.
    #[error("{0}: no index for this material")]
    NoIndex(Material),
}

/// Outcome of one move, from the mover's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveOutcome {
    /// The move.
    pub mv: Move,
    /// Win, draw or loss for the side that makes the move.
    pub wdl: Wdl,
    /// Plies to mate counted from before the move (None for a draw).
    pub dtm: Option<u32>,
    /// The verdict of the position after the move (its side to move's point of view).
    pub after: Verdict,
    /// Set when the position is a ruling and this move continues the violation: the rules
    /// forbid it (a perpetual checker or chaser must deviate).
    pub forbidden: Option<Ruling>,
}

type Opened = Result<Arc<OpenTable>, ProbeError>;

struct OpenTable {
    index: PlacementIndex,
    file: TableFile,
}

/// A folder of table files.
pub struct Tablebases {
    dir: PathBuf,
    open: RwLock<HashMap<(Material, Metric), Opened>>,
    cache: Mutex<BlockCache>,
}

struct BlockCache {
    map: HashMap<(Material, Metric, u32), Arc<Vec<u8>>>,
    order: VecDeque<(Material, Metric, u32)>,
    bytes: usize,
    limit: usize,
}

impl BlockCache {
    fn get(&self, k: &(Material, Metric, u32)) -> Option<Arc<Vec<u8>>> {
        self.map.get(k).cloned()
    }

    fn put(&mut self, k: (Material, Metric, u32), v: Arc<Vec<u8>>) {
        if self.map.contains_key(&k) {
            return;
        }
        self.bytes += v.len();
        self.map.insert(k, v);
        self.order.push_back(k);
        while self.bytes > self.limit {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(b) = self.map.remove(&old) {
                self.bytes -= b.len();
            }
        }
    }
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("dir", &self.dir)
            .finish()
    }
}

/// Default bound of the block cache.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

impl Tablebases {
    /// Tables in `dir`; nothing is read until the first probe.
    pub fn open(dir: impl AsRef<Path>) -> Tablebases {
        Tablebases::with_cache(dir, DEFAULT_CACHE_BYTES)
    }

    /// Like [`Tablebases::open`] with a cache bound in bytes.
    pub fn with_cache(dir: impl AsRef<Path>, cache_bytes: usize) -> Tablebases {
        Tablebases {
            dir: dir.as_ref().to_path_buf(),
            open: RwLock::new(HashMap::new()),
            cache: Mutex::new(BlockCache {
                map: HashMap::new(),
                order: VecDeque::new(),
                bytes: 0,
                limit: cache_bytes,
            }),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True when both files of `m`'s table are in the folder (not checked).
    pub fn has_table(&self, m: &Material) -> bool {
        let (name, _) = table_material(*m);
        [Metric::Wdl, Metric::Dtm]
            .iter()
            .all(|&metric| table_path(&self.dir, &name, metric).exists())
    }

    fn table(&self, name: Material, metric: Metric) -> Opened {
        if let Some(t) = self
            .open
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(name, metric))
        {
            return t.clone();
        }
        let path = table_path(&self.dir, &name, metric);
        let opened = if !path.exists() {
            Err(ProbeError::Missing {
                material: name,
                metric: match metric {
                    Metric::Wdl => "WDL",
                    Metric::Dtm => "DTM",
                    Metric::Dtc => "DTC",
                },
                dir: self.dir.display().to_string(),
            })
        } else {
            match (
                PlacementIndex::new(name),
                TableFile::open(&path, Some((name, metric))),
            ) {
                (Err(_), _) => Err(ProbeError::NoIndex(name)),
                (_, Err(e)) => Err(ProbeError::File {
                    material: name,
                    source: Arc::new(e),
                }),
                (Ok(index), Ok(file)) => {
                    if file.header.positions != index.size() {
                        Err(ProbeError::File {
                            material: name,
                            source: Arc::new(FileError::Corrupt {
                                path: path.display().to_string(),
                                reason: format!(
                                    "{} positions per side, the index has {}",
                                    file.header.positions,
                                    index.size()
                                ),
                            }),
                        })
                    } else {
                        Ok(Arc::new(OpenTable { index, file }))
                    }
                }
            }
        };
        if let Err(ProbeError::Missing { .. }) = opened {
            // not remembered: the table may be generated while this program runs
            return opened;
        }
        self.open
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry((name, metric))
            .or_insert(opened)
            .clone()
    }

    /// The stored byte of a position (in the table's own colours).
    pub(super) fn byte(&self, pos: &Position, metric: Metric) -> Result<u8, ProbeError> {
        pos.check_placement_legal()?;
        let (name, flip) = table_material(Material::of_position(pos));
        let flipped;
        let p = if flip {
            flipped = pos.flip_colors();
            &flipped
        } else {
            pos
        };
        let t = self.table(name, metric)?;
        let i = t.index.rank_position(p).ok_or(ProbeError::NoIndex(name))?;
        let k = p.turn().index() as u64 * t.file.header.positions + i;
        let bs = t.file.header.block_size as u64;
        let block = (k / bs) as u32;
        let key = (name, metric, block);
        let cached = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key);
        let data = match cached {
            Some(d) => d,
            None => {
                let d = Arc::new(t.file.block(block as usize).map_err(|e| ProbeError::File {
                    material: name,
                    source: Arc::new(e),
                })?);
                self.cache
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .put(key, d.clone());
                d
            }
        };
        Ok(data[(k % bs) as usize])
    }

    pub(super) fn corrupt(&self, pos: &Position, reason: String) -> ProbeError {
        let (name, _) = table_material(Material::of_position(pos));
        ProbeError::File {
            material: name,
            source: Arc::new(FileError::Corrupt {
                path: table_path(&self.dir, &name, Metric::Wdl)
                    .display()
                    .to_string(),
                reason,
            }),
        }
    }

    /// The full WDL verdict of a position: outcome, the round of the repetition rules that
    /// decided it (0: no rule needed) and whether it is itself a ruling.
    pub fn probe_verdict(&self, pos: &Position) -> Result<Verdict, ProbeError> {
        let b = self.byte(pos, Metric::Wdl)?;
        Verdict::decode(b).ok_or_else(|| self.corrupt(pos, format!("WDL byte {b} out of range")))
    }

    /// The repetition rule set of the table of `pos`'s material.
    pub fn rules(&self, pos: &Position) -> Result<RuleSet, ProbeError> {
        let (name, _) = table_material(Material::of_position(pos));
        Ok(self.table(name, Metric::Wdl)?.file.header.rules)
    }

    /// Win, draw or loss for the side to move.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        Ok(self.probe_verdict(pos)?.wdl)
    }

    /// Outcome and distance to mate in plies (None for a draw).
    pub fn probe_dtm(&self, pos: &Position) -> Result<(Wdl, Option<u32>), ProbeError> {
        let wdl = self.probe_wdl(pos)?;
        if wdl == Wdl::Draw {
            return Ok((wdl, None));
        }
        let d = self.byte(pos, Metric::Dtm)?;
        if d > MAX_DTM || (d % 2 == 1) != (wdl == Wdl::Win) {
            return Err(self.corrupt(
                pos,
                format!("DTM byte {d} contradicts the WDL value {wdl:?}"),
            ));
        }
        Ok((wdl, Some(d as u32)))
    }

    /// Every legal move with its outcome for the mover, best first: fastest wins, then
    /// draws, then the slowest losses; in a ruling, the moves the rules forbid come last.
    /// Every table involved must follow the rule set of `pos`'s own.
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<MoveOutcome>, ProbeError> {
        pos.check_placement_legal()?;
        let here = self.probe_verdict(pos)?;
        let rules = self.rules(pos)?;
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            let child = pos.after(m);
            let (w, d) = self.probe_dtm(&child)?;
            let capture = pos.piece_at(m.to()).is_some();
            if capture {
                let r = self.rules(&child)?;
                if r != rules {
                    return Err(ProbeError::RuleMismatch {
                        material: table_material(Material::of_position(pos)).0,
                        rules,
                        sub: table_material(Material::of_position(&child)).0,
                        sub_rules: r,
                    });
                }
            }
            let after = self.probe_verdict(&child)?;
            // a ruling's permitted moves are those into positions decided before its round
            let forbidden = here
                .ruling
                .filter(|_| !(capture || (after.wdl == Wdl::Win && after.order < here.order)));
            out.push(MoveOutcome {
                mv: m,
                wdl: w.flip(),
                dtm: d.map(|d| d + 1),
                after,
                forbidden,
            });
        }
        out.sort_by_key(|o| {
            let k = match (o.wdl, o.dtm) {
                (Wdl::Win, Some(d)) => (0, d as i64),
                (Wdl::Draw, _) => (1, 0),
                (_, d) => (2, -(d.unwrap_or(0) as i64)),
            };
            (o.forbidden.is_some(), k)
        });
        Ok(out)
    }

    /// When the verdict of `pos` rests on the repetition rules: the side that must deviate
    /// and its violation, at the first ruling of the optimal line, or (when that line avoids
    /// every ruling: the loser has a plain loss as slow as the one the rules force) of the
    /// line through results of the same rule round (None for a plain result or a draw).
    pub fn rule_behind(
        &self,
        pos: &Position,
    ) -> Result<Option<(crate::board::Color, Ruling)>, ProbeError> {
        let v = self.probe_verdict(pos)?;
        if !v.rests_on_rule() {
            return Ok(None);
        }
        let mut p = pos.clone();
        for m in std::iter::once(None).chain(self.best_line(pos, 400)?.into_iter().map(Some)) {
            if let Some(m) = m {
                p.play(m);
            }
            if let Some(r) = self.probe_verdict(&p)?.ruling {
                return Ok(Some((p.turn(), r)));
            }
        }
        // a result of round k comes from a ruling of round k through results of round k
        let mut p = pos.clone();
        let mut seen = std::collections::HashSet::new();
        while seen.insert(p.key()) && seen.len() <= 400 {
            let v = self.probe_verdict(&p)?;
            if let Some(r) = v.ruling {
                return Ok(Some((p.turn(), r)));
            }
            let moves = self.best_moves(&p)?;
            let same = |o: &&MoveOutcome| o.forbidden.is_none() && o.wdl == v.wdl;
            let next = moves
                .iter()
                .filter(same)
                .find(|o| o.after.order == v.order)
                .or_else(|| moves.iter().filter(same).find(|o| o.after.rests_on_rule()));
            match next {
                Some(o) => {
                    p.play(o.mv);
                }
                None => break,
            }
        }
        Ok(None)
    }

    /// Probe one FEN per line of `input` and write `FEN<TAB>WDL<TAB>DTM<TAB>DTC` lines to
    /// `out` (WDL as W/D/L for the side to move, DTM and DTC in plies or `-`: a draw, or no
    /// DTC file for the table); a line that cannot be probed gets
    /// `FEN<TAB>error: ...`. Blank lines and lines starting with `#` are skipped. Returns the
    /// numbers of lines probed and of error lines.
    pub fn probe_batch(
        &self,
        input: impl std::io::BufRead,
        mut out: impl std::io::Write,
    ) -> std::io::Result<(u64, u64)> {
        let (mut ok, mut bad) = (0u64, 0u64);
        for line in input.lines() {
            let line = match line {
                Ok(l) => l,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    bad += 1;
                    writeln!(out, "?\terror: not UTF-8 text")?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let fen = line.trim();
            if fen.is_empty() || fen.starts_with('#') {
                continue;
            }
            let result = Position::from_fen(fen)
                .map_err(|e| e.to_string())
                .and_then(|p| {
                    let (w, d) = self.probe_dtm(&p).map_err(|e| e.to_string())?;
                    // the DTC column is `-` for a draw and where no DTC file is present
                    let c = match self.probe_dtc(&p) {
                        Ok(c) => c,
                        Err(ProbeError::Missing { .. }) => None,
                        Err(e) => return Err(e.to_string()),
                    };
                    Ok((w, d, c))
                });
            match result {
                Ok((w, d, c)) => {
                    ok += 1;
                    let w = match w {
                        Wdl::Win => "W",
                        Wdl::Draw => "D",
                        Wdl::Loss => "L",
                    };
                    let d = d.map_or("-".to_string(), |d| d.to_string());
                    let c = c.map_or("-".to_string(), |c| c.to_string());
                    writeln!(out, "{fen}\t{w}\t{d}\t{c}")?;
                }
                Err(e) => {
                    bad += 1;
                    writeln!(out, "{fen}\terror: {e}")?;
                }
            }
        }
        out.flush()?;
        Ok((ok, bad))
    }

    /// The optimal line from `pos` to mate: the winner mates as fast as it can, the loser
    /// resists as long as it can without a move the rules forbid. It ends early at a ruling
    /// whose every move is forbidden (the violator loses there by the rules), and is empty
    /// for a draw or a position already lost.
    pub fn best_line(&self, pos: &Position, max_plies: usize) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut p = pos.clone();
        while line.len() < max_plies {
            let (w, _) = self.probe_dtm(&p)?;
            if w == Wdl::Draw {
                break;
            }
            let Some(best) = self.best_moves(&p)?.into_iter().next() else {
                break;
            };
            if best.forbidden.is_some() {
                break;
            }
            line.push(best.mv);
            p.play(best.mv);
        }
        Ok(line)
    }
}
