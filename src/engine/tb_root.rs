//! The root move when the position's material has tables: with the DTC file, the natural
//! limit decides first (a win is kept within the limit, a loss reaches beyond it when it
//! can), then the distance to mate; without it, the DTM-best move.
//!
//! `limit` is what is left of the natural limit at the root (the engine subtracts the plies
//! already played without a capture: the game's moves since the last capture, or the FEN's
//! counter): a winning move whose DTC is at most the limit converts (captures or mates)
//! before the limit can draw the game, and every conversion starts the count anew.

use crate::board::{Move, Position};
use crate::tablebase::probe::{MoveOutcome, ProbeError};
use crate::tablebase::{Tablebases, Wdl};

/// The chosen move and why, in words (for `info string`).
#[derive(Clone, Debug)]
pub struct RootChoice {
    /// The move.
    pub mv: Move,
    /// Its outcome and distances.
    pub why: String,
}

fn plies(d: u32) -> String {
    if d == 1 {
        "1 ply".to_string()
    } else {
        format!("{d} plies")
    }
}

fn verdict(o: &MoveOutcome, dtc: Option<u32>, limit: u32) -> String {
    let base = match (o.wdl, o.dtm) {
        (Wdl::Win, Some(d)) => format!("wins, mate in {}", plies(d)),
        (Wdl::Loss, Some(d)) => format!("loses, mated in {}", plies(d)),
        _ => "draws".to_string(),
    };
    match (o.wdl, dtc) {
        (Wdl::Draw, _) | (_, None) => base,
        (Wdl::Win, Some(c)) if c <= limit => {
            format!(
                "{base}, converts in {} (within the limit {limit})",
                plies(c)
            )
        }
        (Wdl::Win, Some(c)) => format!(
            "{base}, converts in {} (the limit {limit} may spoil it)",
            plies(c)
        ),
        (_, Some(c)) => format!("{base}, conversion in {}", plies(c)),
    }
}

/// The move to play in `pos` by the tables (none of `banned`), with the natural limit of
/// `limit` plies; None when every move is banned or there is none.
pub fn choose(
    tb: &Tablebases,
    pos: &Position,
    banned: &[Move],
    limit: u32,
) -> Result<Option<RootChoice>, ProbeError> {
    let with_dtc = match tb.moves_dtc(pos) {
        Ok(list) => list,
        Err(ProbeError::Missing { .. }) => {
            // no DTC file: the DTM-best move
            let best = tb
                .best_moves(pos)?
                .into_iter()
                .find(|o| !banned.contains(&o.mv));
            return Ok(best.map(|o| RootChoice {
                mv: o.mv,
                why: verdict(&o, None, limit),
            }));
        }
        Err(e) => return Err(e),
    };
    let moves: Vec<_> = with_dtc
        .into_iter()
        .filter(|m| !banned.contains(&m.outcome.mv))
        .collect();
    let (wdl, _) = tb.probe_dtm(pos)?;
    let pick = match wdl {
        Wdl::Win => {
            let wins = moves.iter().filter(|m| m.outcome.wdl == Wdl::Win);
            // within the limit: the fastest mate among them; else the fastest conversion
            wins.clone()
                .filter(|m| m.dtc.is_some_and(|c| c <= limit))
                .min_by_key(|m| (m.outcome.dtm, m.dtc))
                .or_else(|| wins.min_by_key(|m| (m.dtc, m.outcome.dtm)))
        }
        Wdl::Loss => {
            let permitted = moves.iter().filter(|m| m.outcome.forbidden.is_none());
            // beyond the limit when possible (it may save the game), then the slowest mate
            permitted
                .clone()
                .filter(|m| m.dtc.is_some_and(|c| c > limit))
                .max_by_key(|m| (m.outcome.dtm, m.dtc))
                .or_else(|| permitted.max_by_key(|m| (m.outcome.dtm, m.dtc)))
        }
        Wdl::Draw => None,
    }
    // a draw, or every winning or permitted move banned: the DTM order
    .or_else(|| moves.first());
    Ok(pick.map(|m| RootChoice {
        mv: m.outcome.mv,
        why: verdict(&m.outcome, m.dtc, limit),
    }))
}
