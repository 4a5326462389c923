//! Piece-square tables as tuned weights: for each role, a middle-game and an end-game table
//! of 10 ranks (counted from the owner's back rank) by 5 files (the board folded at its
//! middle file, which a position's mirror image evaluates the same). They follow the 34
//! other weights of [`super::weights::TUNED`]; squares a role never reaches keep 0.

use crate::board::{Color, Role, Square};

/// Index of the first piece-square weight.
pub const W_PST: usize = 34;
/// Squares of one table: 10 ranks by 5 folded files.
pub const PST_SQUARES: usize = 50;
/// Number of piece-square weights: 7 roles, middle game and end game.
pub const PST_LEN: usize = 7 * 2 * PST_SQUARES;

/// The rank from `c`'s back rank (0) and the file folded onto 0 (edge) to 4 (middle).
#[inline]
pub fn folded(c: Color, sq: Square) -> (usize, usize) {
    let r = match c {
        Color::Red => sq.rank() as usize,
        Color::Black => 9 - sq.rank() as usize,
    };
    let f = sq.file() as usize;
    (r, f.min(8 - f))
}

/// Index of the weight of `role` on the folded square (`rank`, `file`), middle game or end
/// game.
#[inline]
pub const fn pst_index(role: Role, eg: bool, rank: usize, file: usize) -> usize {
    W_PST + (role.index() * 2 + eg as usize) * PST_SQUARES + rank * 5 + file
}

/// The name of the table row holding weight `i` (`pst_horse_mg_r3`) and its file (0-4), for
/// a piece-square weight.
pub fn row_name(i: usize) -> Option<(String, usize)> {
    let j = i.checked_sub(W_PST).filter(|&j| j < PST_LEN)?;
    let table = j / PST_SQUARES;
    let role = Role::ALL[table / 2];
    let phase = if table.is_multiple_of(2) { "mg" } else { "eg" };
    let sq = j % PST_SQUARES;
    Some((format!("pst_{}_{phase}_r{}", role.name(), sq / 5), sq % 5))
}

/// The name of piece-square weight `i`: its row's name and the file letter (`pst_horse_mg_r3c`,
/// files a-e from the edge to the middle).
pub fn pst_name(i: usize) -> Option<String> {
    let (row, f) = row_name(i)?;
    Some(format!("{row}{}", (b'a' + f as u8) as char))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_are_dense_and_named_once() {
        let mut seen = vec![false; PST_LEN];
        for role in Role::ALL {
            for eg in [false, true] {
                for r in 0..10 {
                    for f in 0..5 {
                        let i = pst_index(role, eg, r, f);
                        assert!(!seen[i - W_PST]);
                        seen[i - W_PST] = true;
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(
            pst_name(pst_index(Role::Horse, false, 3, 2)).as_deref(),
            Some("pst_horse_mg_r3c")
        );
        assert_eq!(pst_name(W_PST + PST_LEN), None);
        let a = Square::from_coords(0, 0).unwrap();
        let i = Square::from_coords(8, 9).unwrap();
        assert_eq!(folded(Color::Red, a), folded(Color::Black, i));
    }
}
