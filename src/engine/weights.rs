//! The evaluation's tuned weights, in the order of `eval::PARAM_NAMES`, then the
//! piece-square tables of `pst` (rows of files a-e, edge to middle). Written by
//! `xqdb tune` (named weights: 352204 training and 38148 held-out positions of 36905 games, K 0.9956, loss 0.126710 -> 0.120978 training, 0.126436 -> 0.120229 held-out; piece-square tables: the hand-set shapes, not tuned).

/// The weights the engine plays with.
#[rustfmt::skip]
pub const TUNED: [i32; 734] = [
    72,  // advisor_mg
    70,  // advisor_eg
    98,  // elephant_mg
    73,  // elephant_eg
    217, // horse_mg
    385, // horse_eg
    468, // rook_mg
    1048,// rook_eg
    296, // cannon_mg
    428, // cannon_eg
    31,  // pawn_mg
    107, // pawn_eg
    21,  // passed0_mg
    79,  // passed0_eg
    95,  // passed1_mg
    72,  // passed1_eg
    126, // passed2_mg
    85,  // passed2_eg
    310, // passed3_mg
    0,   // passed3_eg
    15,  // passed4_mg
    0,   // passed4_eg
    9,   // king_shield
    4,   // mob_rook_mg
    5,   // mob_rook_eg
    11,  // mob_horse_mg
    16,  // mob_horse_eg
    2,   // mob_cannon_mg
    3,   // mob_cannon_eg
    120, // king_attack_horse
    10,  // king_attack_rook
    36,  // king_attack_cannon
    126, // hollow_cannon
    31,  // screen_cannon
       0,    0,    0,   -3,    0, // pst_king_mg_r0
       0,    0,    0,   -7,   -4, // pst_king_mg_r1
       0,    0,    0,  -11,   -8, // pst_king_mg_r2
       0,    0,    0,    0,    0, // pst_king_mg_r3
       0,    0,    0,    0,    0, // pst_king_mg_r4
       0,    0,    0,    0,    0, // pst_king_mg_r5
       0,    0,    0,    0,    0, // pst_king_mg_r6
       0,    0,    0,    0,    0, // pst_king_mg_r7
       0,    0,    0,    0,    0, // pst_king_mg_r8
       0,    0,    0,    0,    0, // pst_king_mg_r9
       0,    0,    0,    0,    0, // pst_king_eg_r0
       0,    0,    0,   -2,   -2, // pst_king_eg_r1
       0,    0,    0,   -4,   -4, // pst_king_eg_r2
       0,    0,    0,    0,    0, // pst_king_eg_r3
       0,    0,    0,    0,    0, // pst_king_eg_r4
       0,    0,    0,    0,    0, // pst_king_eg_r5
       0,    0,    0,    0,    0, // pst_king_eg_r6
       0,    0,    0,    0,    0, // pst_king_eg_r7
       0,    0,    0,    0,    0, // pst_king_eg_r8
       0,    0,    0,    0,    0, // pst_king_eg_r9
       0,    0,    0,    0,    0, // pst_advisor_mg_r0
       0,    0,    0,    0,    6, // pst_advisor_mg_r1
       0,    0,    0,    0,    0, // pst_advisor_mg_r2
       0,    0,    0,    0,    0, // pst_advisor_mg_r3
       0,    0,    0,    0,    0, // pst_advisor_mg_r4
       0,    0,    0,    0,    0, // pst_advisor_mg_r5
       0,    0,    0,    0,    0, // pst_advisor_mg_r6
       0,    0,    0,    0,    0, // pst_advisor_mg_r7
       0,    0,    0,    0,    0, // pst_advisor_mg_r8
       0,    0,    0,    0,    0, // pst_advisor_mg_r9
       0,    0,    0,    0,    0, // pst_advisor_eg_r0
       0,    0,    0,    0,    0, // pst_advisor_eg_r1
       0,    0,    0,    0,    0, // pst_advisor_eg_r2
       0,    0,    0,    0,    0, // pst_advisor_eg_r3
       0,    0,    0,    0,    0, // pst_advisor_eg_r4
       0,    0,    0,    0,    0, // pst_advisor_eg_r5
       0,    0,    0,    0,    0, // pst_advisor_eg_r6
       0,    0,    0,    0,    0, // pst_advisor_eg_r7
       0,    0,    0,    0,    0, // pst_advisor_eg_r8
       0,    0,    0,    0,    0, // pst_advisor_eg_r9
       0,    0,    0,    0,    0, // pst_elephant_mg_r0
       0,    0,    0,    0,    0, // pst_elephant_mg_r1
       0,    0,    0,    0,    6, // pst_elephant_mg_r2
       0,    0,    0,    0,    0, // pst_elephant_mg_r3
       0,    0,    0,    0,    0, // pst_elephant_mg_r4
       0,    0,    0,    0,    0, // pst_elephant_mg_r5
       0,    0,    0,    0,    0, // pst_elephant_mg_r6
       0,    0,    0,    0,    0, // pst_elephant_mg_r7
       0,    0,    0,    0,    0, // pst_elephant_mg_r8
       0,    0,    0,    0,    0, // pst_elephant_mg_r9
       0,    0,    0,    0,    0, // pst_elephant_eg_r0
       0,    0,    0,    0,    0, // pst_elephant_eg_r1
       0,    0,    0,    0,    0, // pst_elephant_eg_r2
       0,    0,    0,    0,    0, // pst_elephant_eg_r3
       0,    0,    0,    0,    0, // pst_elephant_eg_r4
       0,    0,    0,    0,    0, // pst_elephant_eg_r5
       0,    0,    0,    0,    0, // pst_elephant_eg_r6
       0,    0,    0,    0,    0, // pst_elephant_eg_r7
       0,    0,    0,    0,    0, // pst_elephant_eg_r8
       0,    0,    0,    0,    0, // pst_elephant_eg_r9
     -22,   -9,   -6,   -3,    0, // pst_horse_mg_r0
      -8,    5,    8,   11,   14, // pst_horse_mg_r1
      -6,    7,   10,   13,   16, // pst_horse_mg_r2
      -4,    9,   12,   15,   18, // pst_horse_mg_r3
      -2,   11,   14,   17,   20, // pst_horse_mg_r4
      -6,    7,   10,   13,   16, // pst_horse_mg_r5
      -2,   11,   14,   17,   20, // pst_horse_mg_r6
       2,   15,   18,   21,   24, // pst_horse_mg_r7
       2,   15,   18,   21,   24, // pst_horse_mg_r8
       2,   15,   18,   21,   24, // pst_horse_mg_r9
       0,    4,    8,   12,   16, // pst_horse_eg_r0
       1,    5,    9,   13,   17, // pst_horse_eg_r1
       2,    6,   10,   14,   18, // pst_horse_eg_r2
       3,    7,   11,   15,   19, // pst_horse_eg_r3
       4,    8,   12,   16,   20, // pst_horse_eg_r4
       2,    6,   10,   14,   18, // pst_horse_eg_r5
       4,    8,   12,   16,   20, // pst_horse_eg_r6
       6,   10,   14,   18,   22, // pst_horse_eg_r7
       6,   10,   14,   18,   22, // pst_horse_eg_r8
       6,   10,   14,   18,   22, // pst_horse_eg_r9
       0,    0,    0,    6,    0, // pst_rook_mg_r0
       0,    0,    0,    6,    0, // pst_rook_mg_r1
       0,    0,    0,    6,    0, // pst_rook_mg_r2
       0,    0,    0,    6,    0, // pst_rook_mg_r3
       0,    0,    0,    6,    0, // pst_rook_mg_r4
      10,   10,   10,   16,   10, // pst_rook_mg_r5
      10,   10,   10,   16,   10, // pst_rook_mg_r6
      10,   10,   10,   16,   10, // pst_rook_mg_r7
      10,   10,   10,   16,   10, // pst_rook_mg_r8
      10,   10,   10,   16,   10, // pst_rook_mg_r9
       0,    0,    0,    0,    0, // pst_rook_eg_r0
       0,    0,    0,    0,    0, // pst_rook_eg_r1
       0,    0,    0,    0,    0, // pst_rook_eg_r2
       0,    0,    0,    0,    0, // pst_rook_eg_r3
       0,    0,    0,    0,    0, // pst_rook_eg_r4
       5,    5,    5,    5,    5, // pst_rook_eg_r5
       5,    5,    5,    5,    5, // pst_rook_eg_r6
       5,    5,    5,    5,    5, // pst_rook_eg_r7
       5,    5,    5,    5,    5, // pst_rook_eg_r8
       5,    5,    5,    5,    5, // pst_rook_eg_r9
       0,    0,    0,    0,   16, // pst_cannon_mg_r0
       0,    0,    0,    0,   16, // pst_cannon_mg_r1
       4,    4,    4,    4,   20, // pst_cannon_mg_r2
       0,    0,    0,    0,   16, // pst_cannon_mg_r3
       0,    0,    0,    0,    0, // pst_cannon_mg_r4
       0,    0,    0,    0,    0, // pst_cannon_mg_r5
       0,    0,    0,    0,    0, // pst_cannon_mg_r6
       0,    0,    0,    0,    0, // pst_cannon_mg_r7
       0,    0,    0,    0,    0, // pst_cannon_mg_r8
       0,    0,    0,    0,    0, // pst_cannon_mg_r9
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r0
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r1
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r2
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r3
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r4
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r5
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r6
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r7
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r8
      -5,   -5,   -5,   -5,   -5, // pst_cannon_eg_r9
       0,    0,    0,    0,    0, // pst_pawn_mg_r0
       0,    0,    0,    0,    0, // pst_pawn_mg_r1
       0,    0,    0,    0,    0, // pst_pawn_mg_r2
       0,    0,    0,    0,    0, // pst_pawn_mg_r3
       5,    0,    5,    0,   13, // pst_pawn_mg_r4
       0,    6,   12,   18,   24, // pst_pawn_mg_r5
       0,    6,   12,   18,   24, // pst_pawn_mg_r6
       0,    6,   12,   18,   24, // pst_pawn_mg_r7
       0,    6,   12,   18,   24, // pst_pawn_mg_r8
       0,    6,   12,   18,   24, // pst_pawn_mg_r9
       0,    0,    0,    0,    0, // pst_pawn_eg_r0
       0,    0,    0,    0,    0, // pst_pawn_eg_r1
       0,    0,    0,    0,    0, // pst_pawn_eg_r2
       0,    0,    0,    0,    0, // pst_pawn_eg_r3
       0,    0,    0,    0,    0, // pst_pawn_eg_r4
       0,    4,    8,   12,   16, // pst_pawn_eg_r5
       0,    4,    8,   12,   16, // pst_pawn_eg_r6
       0,    4,    8,   12,   16, // pst_pawn_eg_r7
       0,    4,    8,   12,   16, // pst_pawn_eg_r8
       0,    4,    8,   12,   16, // pst_pawn_eg_r9
];
