//! How the DTC file stores a distance to conversion: only for wins, relative to the
//! position's distance to mate, which a DTC probe reads anyway (the DTM decides the outcome).
//!
//! * A won position with DTM >= 3 is stored as `DTM - DTC` (never negative: the winner's
//!   fastest mate is itself a conversion, so DTC <= DTM; 0 when it converts by the mate it is
//!   headed for). A mate in one has DTC 1 = DTM: not stored.
//! * A lost position is not stored: its DTC follows from its moves in one ply (every move
//!   of a loss loses, so a capture converts in 1 and a non-capture leads to a won position,
//!   whose DTC is stored): the largest of 1 for a capture and 1 + the DTC after each
//!   non-capture the rules permit (a ruling may not play its violating moves), 0 with no
//!   such move. See [`loss_dtc`].
//! * Draws and illegal placements are not stored.
//!
//! Bytes not stored repeat the preceding byte so that runs stay long. Measured on KRNKR
//! (`cargo bench --bench dtc_size`): storing the losses too costs 5.7 MB instead of 3.3 MB
//! at the same block size and level, against 7.2 MB for the public generator's file.

use super::values::MAX_DTM;

/// Positions per block and zstd level of the DTC file (as the DTM file's: a probe
/// decompresses one block of each).
pub const BLOCK_PARAMS: (u32, i32) = (32768, 12);

/// What the DTC pass hands the file's writer for a position without a stored byte (the
/// writer repeats the byte before it): no stored byte is above [`MAX_DTM`].
pub const NOT_STORED: u8 = 0xFF;

/// The stored byte of a decided position (DTM `dtm`, DTC `dtc`), None when it is not
/// stored (a loss, a mate in one, or an impossible pair).
pub fn encode(dtm: u8, dtc: u8) -> Option<u8> {
    if dtm > MAX_DTM || dtm.is_multiple_of(2) || dtm <= 1 || dtc > dtm {
        return None;
    }
    Some(dtm - dtc)
}

/// The DTC of a won position from its DTM and stored byte (None when the byte cannot be
/// right, a DTC above the DTM, or the position is not a win).
pub fn decode_win(dtm: u8, stored: u8) -> Option<u8> {
    if dtm > MAX_DTM || dtm.is_multiple_of(2) {
        return None;
    }
    if dtm == 1 {
        return Some(1);
    }
    dtm.checked_sub(stored).filter(|&c| c >= 1)
}

/// The DTC of a lost position from its moves: `moves` yields, per legal move the rules
/// permit, None for a capture and Some(DTC after the move) for a non-capture.
pub fn loss_dtc(moves: impl IntoIterator<Item = Option<u8>>) -> u8 {
    moves
        .into_iter()
        .map(|m| m.map_or(1, |c| c.saturating_add(1)))
        .max()
        .unwrap_or(0)
}
