//! The tuner's data: quiet positions of real games with the games' results, each as the
//! evaluation's linear form ([`crate::engine::eval::linear`]).
//!
//! A position is taken every `every` plies (offset by the game's number, so that games do
//! not all give the same plies) after the first `skip_plies`, when the side to move is not
//! in check and has no capture that wins material by static exchange (the position a short
//! quiescence would stand pat on). Every tenth game (by its number in the input) goes to
//! the held-out set. The order is the input's, so the data and the fit are reproducible.

use super::eval::{linear, NUM_PARAMS};
use super::see::see;
use crate::progress::{Phase, Progress};
use crate::records::collection::read_collection;
use crate::records::GameResult;
use std::path::PathBuf;

/// One position: the linear form of its evaluation and the game's result.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The weights with a coefficient other than 0 and their coefficients, from Red's point
    /// of view (indexes below [`NUM_PARAMS`]).
    pub coef: Vec<(u16, f32)>,
    /// The part of the evaluation no weight changes, from Red's point of view.
    pub fixed: f32,
    /// Red's score in the game: 1, 0.5 or 0.
    pub result: f32,
}

impl Sample {
    /// The evaluation with weights `w`, from Red's point of view.
    #[inline]
    pub fn eval(&self, w: &[f32; NUM_PARAMS]) -> f32 {
        self.fixed
            + self
                .coef
                .iter()
                .map(|&(i, c)| c * w[i as usize])
                .sum::<f32>()
    }
}

/// How positions are picked.
#[derive(Clone, Debug)]
pub struct DataOptions {
    /// A position every this many plies.
    pub every: usize,
    /// Plies skipped at the start of each game (the opening, which books play).
    pub skip_plies: usize,
    /// Stop after this many positions.
    pub max_positions: usize,
}

impl Default for DataOptions {
    fn default() -> DataOptions {
        DataOptions {
            every: 4,
            skip_plies: 10,
            max_positions: 400_000,
        }
    }
}

/// Training and held-out positions.
#[derive(Clone, Debug, Default)]
pub struct Data {
    /// Positions of nine games in ten.
    pub train: Vec<Sample>,
    /// Positions of every tenth game.
    pub held_out: Vec<Sample>,
    /// Games with a result that gave positions.
    pub games: usize,
    /// Games read without a result (not used).
    pub no_result: usize,
    /// Positions passed over as not quiet.
    pub not_quiet: usize,
}

/// Whether the side to move may stand pat: not in check, no capture winning by exchange.
fn quiet(pos: &crate::board::Position) -> bool {
    !pos.in_check() && pos.capture_moves().iter().all(|&m| see(pos, m) <= 0)
}

/// Gather positions from the game records under `paths`.
pub fn gather(
    paths: &[PathBuf],
    opt: &DataOptions,
    progress: &dyn Progress,
) -> Result<Data, String> {
    if opt.every == 0 {
        return Err("tune: a position every 0 plies is no sampling; give 1 or more".into());
    }
    let files = crate::records::collection::collect_files(paths).map_err(|e| e.to_string())?;
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let phase = Phase::begin(progress, "tune", "reading games", total);
    let mut data = Data::default();
    let mut ordinal = 0usize;
    let mut read = 0u64;
    let stats = read_collection(
        paths,
        |g, _| {
            let n = ordinal;
            ordinal += 1;
            if data.train.len() + data.held_out.len() >= opt.max_positions {
                return;
            }
            let result = match g.result {
                Some(GameResult::RedWins) => 1.0,
                Some(GameResult::Draw) => 0.5,
                Some(GameResult::BlackWins) => 0.0,
                None => {
                    data.no_result += 1;
                    return;
                }
            };
            let mut pos = g.start.clone();
            let mut took = false;
            for (ply, &m) in g.moves.iter().enumerate() {
                if ply >= opt.skip_plies && (ply + n).is_multiple_of(opt.every) {
                    if quiet(&pos) {
                        let l = linear(&pos);
                        let sign = if pos.turn() == crate::board::Color::Red {
                            1.0
                        } else {
                            -1.0
                        };
                        let s = Sample {
                            coef: l.coef.iter().map(|&(i, c)| (i, c * sign)).collect(),
                            fixed: l.fixed * sign,
                            result,
                        };
                        if n.is_multiple_of(10) {
                            data.held_out.push(s);
                        } else {
                            data.train.push(s);
                        }
                        took = true;
                    } else {
                        data.not_quiet += 1;
                    }
                }
                pos.play(m);
            }
            data.games += usize::from(took);
        },
        |bytes| {
            phase.inc(bytes.saturating_sub(read));
            read = bytes;
        },
    )
    .map_err(|e| format!("tune: reading games: {e}"))?;
    phase.end();
    if data.train.is_empty() || data.held_out.is_empty() {
        return Err(format!(
            "tune: {} games read ({} without a result) gave {} training and {} held-out \
             positions: too few to tune on",
            stats.games,
            data.no_result,
            data.train.len(),
            data.held_out.len()
        ));
    }
    Ok(data)
}
