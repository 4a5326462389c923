//! Xiangqi's repetition rules: which moves check, chase or escape, and how a cycle of moves
//! is ruled. One implementation for the whole project: the tablebase generator and verifier,
//! the engine's search and the match runner all decide cycles here.

mod attack;
mod cycle;

pub use attack::{
    chase_attacks, escape_targets, escaping_moves, escaping_moves_with, for_each_escape,
    gives_check, is_chase_attack, new_attacks,
};
pub use cycle::{judge_cycle, CycleVerdict, Violation};

/// How a position that can only repeat is judged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, clap::ValueEnum)]
pub enum RuleSet {
    /// Rule set 0 (chess's convention): every cycle is a draw.
    #[value(name = "none")]
    CyclesDraw,
    /// Rule set 1: perpetual check loses, perpetual chase (ranked below check) loses, every
    /// other cycle is drawn (README, "Repetition rules").
    #[default]
    #[value(name = "check-chase")]
    CheckChase,
}

impl RuleSet {
    /// The number written in table headers.
    pub fn code(self) -> u8 {
        match self {
            RuleSet::CyclesDraw => 0,
            RuleSet::CheckChase => 1,
        }
    }

    /// The rule set of a header number.
    pub fn from_code(c: u8) -> Option<RuleSet> {
        match c {
            0 => Some(RuleSet::CyclesDraw),
            1 => Some(RuleSet::CheckChase),
            _ => None,
        }
    }

    /// Short name for messages and the command line (`none`, `check-chase`).
    pub fn name(self) -> &'static str {
        match self {
            RuleSet::CyclesDraw => "none",
            RuleSet::CheckChase => "check-chase",
        }
    }
}

impl std::fmt::Display for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuleSet::CyclesDraw => f.write_str("0 (every cycle is a draw)"),
            RuleSet::CheckChase => f.write_str("1 (perpetual check and chase lose)"),
        }
    }
}
