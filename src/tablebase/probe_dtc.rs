//! Probing the distance to conversion (DTC) and the natural limit.
//!
//! Under Chinese rules a game is drawn after a number of plies without a capture (the natural
//! limit: 60 moves by each side, 120 plies; some engines count 100). A won position whose DTC
//! is within the limit can be converted before the limit draws it; one beyond it is a win the
//! limit may spoil (as chess's cursed wins under the 50-move rule), and its loser may be saved.

use super::dtc_code;
use super::file::Metric;
use super::probe::{MoveOutcome, ProbeError, Tablebases};
use super::values::Wdl;
use crate::board::{Move, Position};

/// The natural limit in plies when none is given: 60 moves by each side.
pub const DEFAULT_NATURAL_LIMIT: u32 = 120;

/// The outcome of a position with the natural limit in mind (for the side to move).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LimitClass {
    /// Wins, and can capture or mate within the limit.
    WinWithinLimit,
    /// Wins by the tables, but best play needs more plies to the next capture or mate than
    /// the limit: the limit may spoil the win (a cursed win).
    WinLimitMaySpoil,
    /// Draw.
    Draw,
    /// Loses, and the limit may save it (the winner's conversion takes longer than the limit).
    LossLimitMaySave,
    /// Loses within the limit.
    LossWithinLimit,
}

impl LimitClass {
    /// The class of an outcome and DTC under a natural limit of `limit` plies.
    pub fn of(wdl: Wdl, dtc: Option<u32>, limit: u32) -> LimitClass {
        match (wdl, dtc) {
            (Wdl::Win, Some(c)) if c <= limit => LimitClass::WinWithinLimit,
            (Wdl::Win, _) => LimitClass::WinLimitMaySpoil,
            (Wdl::Loss, Some(c)) if c <= limit => LimitClass::LossWithinLimit,
            (Wdl::Loss, _) => LimitClass::LossLimitMaySave,
            (Wdl::Draw, _) => LimitClass::Draw,
        }
    }

    /// In words, for the side to move.
    pub fn describe(self) -> &'static str {
        match self {
            LimitClass::WinWithinLimit => "win within the limit",
            LimitClass::WinLimitMaySpoil => "win that the limit may spoil",
            LimitClass::Draw => "draw",
            LimitClass::LossLimitMaySave => "loss that the limit may save",
            LimitClass::LossWithinLimit => "loss within the limit",
        }
    }
}

/// A legal move with its outcome, DTM and DTC (both counted from before the move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveDtc {
    /// The move, its outcome for the mover and its DTM.
    pub outcome: MoveOutcome,
    /// Plies to conversion from before the move: 1 for a capture, else one more than the
    /// position after it (None for a draw).
    pub dtc: Option<u32>,
}

impl Tablebases {
    /// True when the DTC file of `m`'s table is in the folder (not checked).
    pub fn has_dtc(&self, m: &crate::index::Material) -> bool {
        let (name, _) = super::table::table_material(*m);
        super::file::table_path(self.dir(), &name, Metric::Dtc).exists()
    }

    /// Distance to conversion in plies (None for a draw); needs the table's DTC file. A win
    /// reads one byte; a loss is derived from its moves (the file stores wins only: see
    /// [`dtc_code`]).
    pub fn probe_dtc(&self, pos: &Position) -> Result<Option<u32>, ProbeError> {
        let here = self.probe_verdict(pos)?;
        match here.wdl {
            Wdl::Draw => Ok(None),
            Wdl::Win => self.win_dtc(pos).map(|c| Some(c as u32)),
            Wdl::Loss => {
                let mut moves = Vec::new();
                for m in pos.legal_moves() {
                    if pos.piece_at(m.to()).is_some() {
                        moves.push(None);
                        continue;
                    }
                    let child = pos.after(m);
                    if here.ruling.is_some() {
                        // a ruling may play only moves into positions decided before its round
                        let cv = self.probe_verdict(&child)?;
                        if !(cv.wdl == Wdl::Win && cv.order < here.order) {
                            continue;
                        }
                    }
                    moves.push(Some(self.win_dtc(&child)?));
                }
                Ok(Some(dtc_code::loss_dtc(moves) as u32))
            }
        }
    }

    /// The DTC of a position that must be a win (an error otherwise: a corrupt table).
    fn win_dtc(&self, pos: &Position) -> Result<u8, ProbeError> {
        let (wdl, dtm) = self.probe_dtm(pos)?;
        let dtm = match (wdl, dtm) {
            (Wdl::Win, Some(d)) => d as u8,
            _ => {
                return Err(self.corrupt(
                    pos,
                    format!("a lost position's move leads to {wdl:?}, not a win"),
                ))
            }
        };
        if dtm == 1 {
            // a mate in one is not stored
            return Ok(1);
        }
        let b = self.byte(pos, Metric::Dtc)?;
        dtc_code::decode_win(dtm, b)
            .ok_or_else(|| self.corrupt(pos, format!("DTC byte {b} contradicts the DTM {dtm}")))
    }

    /// Outcome, DTM and DTC of a position, and its class under a natural limit of `limit`
    /// plies.
    pub fn probe_limit(
        &self,
        pos: &Position,
        limit: u32,
    ) -> Result<(Wdl, Option<u32>, Option<u32>, LimitClass), ProbeError> {
        let (wdl, dtm) = self.probe_dtm(pos)?;
        let dtc = self.probe_dtc(pos)?;
        Ok((wdl, dtm, dtc, LimitClass::of(wdl, dtc, limit)))
    }

    /// Every legal move with its DTM and DTC, in the order of [`Tablebases::best_moves`].
    pub fn moves_dtc(&self, pos: &Position) -> Result<Vec<MoveDtc>, ProbeError> {
        let mut out = Vec::new();
        for o in self.best_moves(pos)? {
            let dtc = if o.wdl == Wdl::Draw {
                None
            } else if pos.piece_at(o.mv.to()).is_some() {
                Some(1)
            } else {
                self.probe_dtc(&pos.after(o.mv))?.map(|c| c + 1)
            };
            out.push(MoveDtc { outcome: o, dtc });
        }
        Ok(out)
    }

    /// The move that converts fastest for a winner (the smallest DTC among winning moves,
    /// then the fastest mate) or delays longest for a loser (the largest DTC among the moves
    /// the rules permit, then the slowest mate); None for a draw or no move.
    pub fn best_dtc_move(&self, pos: &Position) -> Result<Option<MoveDtc>, ProbeError> {
        let (wdl, _) = self.probe_dtm(pos)?;
        let moves = self.moves_dtc(pos)?;
        let pick = match wdl {
            Wdl::Draw => None,
            Wdl::Win => moves
                .into_iter()
                .filter(|m| m.outcome.wdl == Wdl::Win)
                .min_by_key(|m| (m.dtc, m.outcome.dtm)),
            Wdl::Loss => moves
                .into_iter()
                .filter(|m| m.outcome.forbidden.is_none())
                .max_by_key(|m| (m.dtc, m.outcome.dtm)),
        };
        Ok(pick)
    }

    /// The line from `pos` to the next conversion: the winner converts as fast as it can,
    /// the loser delays as long as it can without a move the rules forbid. It ends with the
    /// capture, at mate, or at a ruling whose every move is forbidden; its length is the
    /// DTC of `pos` (empty for a draw or a position lost now).
    pub fn best_dtc_line(&self, pos: &Position, max_plies: usize) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut p = pos.clone();
        while line.len() < max_plies {
            let Some(best) = self.best_dtc_move(&p)? else {
                break;
            };
            line.push(best.outcome.mv);
            let capture = p.piece_at(best.outcome.mv.to()).is_some();
            p.play(best.outcome.mv);
            if capture {
                break;
            }
        }
        Ok(line)
    }
}
