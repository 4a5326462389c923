//! The evaluation's tuned weights, in the order of `eval::PARAM_NAMES`. Written by
//! `xqdb tune` (352204 training and 38148 held-out positions of 36905 games, K 0.9956, loss 0.126710 -> 0.120978 training, 0.126436 -> 0.120229 held-out).

/// The weights the engine plays with.
pub const TUNED: [i32; 34] = [
    72,   // advisor_mg
    70,   // advisor_eg
    98,   // elephant_mg
    73,   // elephant_eg
    217,  // horse_mg
    385,  // horse_eg
    468,  // rook_mg
    1048, // rook_eg
    296,  // cannon_mg
    428,  // cannon_eg
    31,   // pawn_mg
    107,  // pawn_eg
    21,   // passed0_mg
    79,   // passed0_eg
    95,   // passed1_mg
    72,   // passed1_eg
    126,  // passed2_mg
    85,   // passed2_eg
    310,  // passed3_mg
    0,    // passed3_eg
    15,   // passed4_mg
    0,    // passed4_eg
    9,    // king_shield
    4,    // mob_rook_mg
    5,    // mob_rook_eg
    11,   // mob_horse_mg
    16,   // mob_horse_eg
    2,    // mob_cannon_mg
    3,    // mob_cannon_eg
    120,  // king_attack_horse
    10,   // king_attack_rook
    36,   // king_attack_cannon
    126,  // hollow_cannon
    31,   // screen_cannon
];
