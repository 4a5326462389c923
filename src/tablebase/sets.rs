//! Named sets of tables: what `gen --set NAME` builds, `plan` schedules and `status` checks.
//!
//! A set names its *targets*; generating it means generating the targets and every table
//! they reach by captures ([`super::pipeline::closure`]), so the tables of a set are always
//! the closure of its targets, smallest first.

use super::pipeline::closure;
use crate::board::Role;
use crate::index::Material;
use std::fmt;
use std::str::FromStr;

/// A named set of tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NamedSet {
    /// Every material with at most two pieces besides the kings (what `setup` builds).
    Default,
    /// One side has exactly one attacker (rook, horse, cannon or pawn) and any advisors and
    /// elephants, the other side advisors and elephants only: 4 × 9 × 9 = 324 endings, the
    /// coverage of the largest public Xiangqi DTM tablebase.
    OneSided,
    /// Each side has at most one attacker and any advisors and elephants.
    OneEach,
}

/// The attackers: the pieces that can cross the river.
pub const ATTACKERS: [Role; 4] = [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn];

impl NamedSet {
    /// Every named set, smallest first.
    pub const ALL: [NamedSet; 3] = [NamedSet::Default, NamedSet::OneSided, NamedSet::OneEach];

    /// The name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            NamedSet::Default => "default",
            NamedSet::OneSided => "one-sided",
            NamedSet::OneEach => "one-each",
        }
    }

    /// One line describing the set.
    pub const fn description(self) -> &'static str {
        match self {
            NamedSet::Default => "every material with at most two pieces besides the kings",
            NamedSet::OneSided => {
                "one attacker (R, N, C or P) with any advisors and elephants against advisors and elephants only (324 endings)"
            }
            NamedSet::OneEach => {
                "each side at most one attacker, with any advisors and elephants"
            }
        }
    }

    /// The materials the set names (each as its table: stronger side as Red), sorted
    /// smallest first. Use [`NamedSet::tables`] for everything generation needs.
    pub fn targets(self) -> Vec<Material> {
        let mut out: Vec<Material> = match self {
            NamedSet::Default => Material::all_up_to(2),
            NamedSet::OneSided => {
                let mut v = Vec::new();
                for a in ATTACKERS {
                    for own in defenders() {
                        for their in defenders() {
                            v.push(side_pair(Some(a), own, None, their));
                        }
                    }
                }
                v
            }
            NamedSet::OneEach => {
                let mut v = Vec::new();
                let attackers = || std::iter::once(None).chain(ATTACKERS.iter().copied().map(Some));
                for a in attackers() {
                    for own in defenders() {
                        for b in attackers() {
                            for their in defenders() {
                                v.push(side_pair(a, own, b, their));
                            }
                        }
                    }
                }
                v
            }
        };
        sort_dedup(&mut out);
        out
    }

    /// Every table the set needs: the targets and every material they reach by captures,
    /// smallest first (the order they are generated in).
    pub fn tables(self) -> Vec<Material> {
        closure(&self.targets())
    }
}

/// Advisor and elephant counts of one side: (0..=2) × (0..=2).
fn defenders() -> impl Iterator<Item = (u8, u8)> {
    (0..=2u8).flat_map(|a| (0..=2u8).map(move |b| (a, b)))
}

/// The table of Red `a + own` against Black `b + their`.
fn side_pair(a: Option<Role>, own: (u8, u8), b: Option<Role>, their: (u8, u8)) -> Material {
    let mut counts = [[0u8; 7]; 2];
    for (side, att, (adv, ele)) in [(0, a, own), (1, b, their)] {
        counts[side][Role::King.index()] = 1;
        if let Some(r) = att {
            counts[side][r.index()] = 1;
        }
        counts[side][Role::Advisor.index()] = adv;
        counts[side][Role::Elephant.index()] = ele;
    }
    // Proved: at most one attacker, two advisors and two elephants per side are within the
    // counts the game allows.
    let m = Material::from_counts(counts).expect("a set's material is within the game's counts");
    m.normalized().0
}

fn sort_dedup(v: &mut Vec<Material>) {
    v.sort_by_key(|m| (m.pieces_besides_kings(), m.to_string()));
    v.dedup();
}

impl fmt::Display for NamedSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set name that is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown set '{0}': the sets are default, one-sided and one-each (see `xqdb sets`)")]
pub struct UnknownSet(pub String);

impl FromStr for NamedSet {
    type Err = UnknownSet;
    fn from_str(s: &str) -> Result<NamedSet, UnknownSet> {
        NamedSet::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownSet(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sided_has_the_public_324_endings() {
        let t = NamedSet::OneSided.targets();
        assert_eq!(t.len(), 324);
        assert!(t.contains(&"KRKAABB".parse().unwrap()));
        assert!(t.contains(&"KPAABBK".parse::<Material>().unwrap().normalized().0));
        // every target has exactly one attacker (on either side: a table puts the side with
        // more material as Red, and KAKP counts the two advisors' worth against one pawn)
        for m in &t {
            let red: u8 = ATTACKERS
                .iter()
                .map(|r| m.count(crate::board::Color::Red, *r))
                .sum();
            let black: u8 = ATTACKERS
                .iter()
                .map(|r| m.count(crate::board::Color::Black, *r))
                .sum();
            assert_eq!(red + black, 1, "{m}");
        }
    }

    #[test]
    fn one_each_counts_every_pair_once() {
        // 45 sides (5 attacker choices × 9 defences); unordered pairs with repetition.
        assert_eq!(NamedSet::OneEach.targets().len(), 45 * 46 / 2);
        let tables = NamedSet::OneEach.tables();
        assert!(tables.contains(&"KRAABBKRAABB".parse().unwrap()));
        // closed under captures: it already is, as every capture stays inside the set
        assert_eq!(tables.len(), 45 * 46 / 2);
    }

    #[test]
    fn default_is_setup_and_names_parse() {
        assert_eq!(NamedSet::Default.targets(), Material::all_up_to(2));
        for s in NamedSet::ALL {
            assert_eq!(s.name().parse::<NamedSet>(), Ok(s));
        }
        assert!("two-each".parse::<NamedSet>().is_err());
        // the closure of one-sided adds the defender-only tables its captures reach
        let t = NamedSet::OneSided.tables();
        assert!(t.contains(&"KAABBKAABB".parse().unwrap()));
        assert!(t.len() > 324);
    }
}
