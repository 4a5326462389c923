//! Zobrist hashing, scheme version 1.
//!
//! Opening books on disk store these keys, so the scheme is fixed and versioned:
//!
//! * a SplitMix64 generator seeded with [`SEED`] (`0x7871_6462_5a6f_6231`, "xqdbZob1");
//! * keys drawn in this order: for colour Red then Black, for role King, Advisor, Elephant,
//!   Horse, Rook, Cannon, Pawn, for square index 0..90 (`rank * 9 + file`): one key each;
//!   then one key for "Black to move";
//! * the key of a position is the XOR of the keys of its pieces, XOR the side key when Black
//!   is to move. Move counters do not enter the key.
//!
//! Any change to the generator, the seed or the order must bump [`ZOBRIST_VERSION`].

use super::{Color, Piece, Role, Square};

/// Version of the key scheme, written into book headers.
pub const ZOBRIST_VERSION: u32 = 1;
/// Seed of the SplitMix64 generator.
pub const SEED: u64 = 0x7871_6462_5a6f_6231;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

struct Keys {
    pieces: [[u64; 90]; 14],
    side: u64,
}

const fn make_keys() -> Keys {
    let mut pieces = [[0u64; 90]; 14];
    let mut state = SEED;
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            let (ns, v) = splitmix(state);
            state = ns;
            pieces[p][s] = v;
            s += 1;
        }
        p += 1;
    }
    let (_, side) = splitmix(state);
    Keys { pieces, side }
}

static KEYS: Keys = make_keys();

/// Key of `piece` standing on `sq`.
#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[piece.index()][sq.index()]
}

/// Key of `color`'s `role` on `sq`.
#[inline(always)]
pub fn role_key(color: Color, role: Role, sq: Square) -> u64 {
    KEYS.pieces[color.index() * 7 + role.index()][sq.index()]
}

/// Key XORed in when Black is to move.
#[inline(always)]
pub fn side_key() -> u64 {
    KEYS.side
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fixed_and_distinct() {
        // Pinned values, computed apart from this code (SplitMix64 from the seed, by hand in
        // another language): books on disk depend on them. Changing these needs a version
        // bump.
        let key = |c, r, s| piece_key(Piece::new(c, r), s);
        assert_eq!(
            key(Color::Red, Role::King, Square::A0),
            0xcb95_c368_004a_6ef3
        );
        assert_eq!(
            key(Color::Red, Role::Rook, Square::A0),
            0x8a30_995c_5372_e62d
        );
        assert_eq!(
            key(Color::Black, Role::Pawn, Square::I9),
            0x8acc_060e_b2e2_8dc5
        );
        assert_eq!(
            role_key(Color::Black, Role::Pawn, Square::I9),
            0x8acc_060e_b2e2_8dc5
        );
        assert_eq!(side_key(), 0x454b_2c5f_2790_3d8e);
        let start = crate::board::Position::startpos();
        assert_eq!(start.key(), 0x639f_c099_de4f_01d8);
        let mut black = start.clone();
        black.play_null();
        assert_eq!(black.key(), 0x26d4_ecc6_f9df_3c56);
        let mut all: Vec<u64> = KEYS.pieces.iter().flatten().copied().collect();
        all.push(KEYS.side);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
