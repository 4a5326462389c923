//! The evaluation's tuned weights, in the order of `eval::PARAM_NAMES`. Written by
//! `xqdb tune` (these are the hand-set weights it starts from until a tuning run replaces
//! them).

/// The weights the engine plays with.
pub const TUNED: [i32; 34] = [
    120, // advisor_mg
    110, // advisor_eg
    120, // elephant_mg
    110, // elephant_eg
    270, // horse_mg
    300, // horse_eg
    600, // rook_mg
    650, // rook_eg
    285, // cannon_mg
    255, // cannon_eg
    30,  // pawn_mg
    60,  // pawn_eg
    40,  // passed0_mg
    60,  // passed0_eg
    55,  // passed1_mg
    80,  // passed1_eg
    60,  // passed2_mg
    90,  // passed2_eg
    45,  // passed3_mg
    70,  // passed3_eg
    10,  // passed4_mg
    30,  // passed4_eg
    6,   // king_shield
    4,   // mob_rook_mg
    5,   // mob_rook_eg
    9,   // mob_horse_mg
    8,   // mob_horse_eg
    2,   // mob_cannon_mg
    2,   // mob_cannon_eg
    20,  // king_attack_horse
    25,  // king_attack_rook
    18,  // king_attack_cannon
    60,  // hollow_cannon
    15,  // screen_cannon
];
