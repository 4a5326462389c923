//! How the DTC file stores a distance to conversion: relative to the position's distance to
//! mate, which a DTC probe reads anyway (the DTM decides the outcome and the sign).
//!
//! A decided position is stored as `DTM - DTC` (never negative: the winner's fastest mate is
//! itself a conversion, so DTC <= DTM). Mates and mates in one (DTM 0 and 1, where DTC = DTM
//! necessarily), draws and illegal placements are not stored: the writer fills them with the
//! preceding byte so that runs stay long. Most positions convert by the mate they are headed
//! for, so the file is mostly zeros.

use super::values::MAX_DTM;

/// Positions per block and zstd level of the DTC file (measured on KRNKR: see README).
pub const BLOCK_PARAMS: (u32, i32) = (32768, 12);

/// The stored byte of a decided position (DTM `dtm`, DTC `dtc`), None when it does not
/// matter (implied by the DTM) or when the pair is impossible.
pub fn encode(dtm: u8, dtc: u8) -> Option<u8> {
    if dtm > MAX_DTM || dtc > dtm || dtm <= 1 {
        return None;
    }
    Some(dtm - dtc)
}

/// The DTC of a decided position from its DTM and stored byte (None when the byte cannot be
/// right: a DTC above the DTM).
pub fn decode(dtm: u8, stored: u8) -> Option<u8> {
    if dtm > MAX_DTM {
        return None;
    }
    if dtm <= 1 {
        return Some(dtm);
    }
    dtm.checked_sub(stored)
}
