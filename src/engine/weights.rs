//! The evaluation's tuned weights, in the order of `eval::PARAM_NAMES`, then the
//! piece-square tables of `pst` (rows of files a-e, edge to middle). Written by
//! `xqdb tune` (352204 training and 38148 held-out positions of 36905 games, K 1.0221, loss 0.120965 -> 0.114337 training, 0.120232 -> 0.114171 held-out).

/// The weights the engine plays with.
#[rustfmt::skip]
pub const TUNED: [i32; 734] = [
    153, // advisor_mg
    67,  // advisor_eg
    160, // elephant_mg
    69,  // elephant_eg
    238, // horse_mg
    469, // horse_eg
    448, // rook_mg
    1267,// rook_eg
    297, // cannon_mg
    522, // cannon_eg
    36,  // pawn_mg
    113, // pawn_eg
    63,  // passed0_mg
    51,  // passed0_eg
    111, // passed1_mg
    48,  // passed1_eg
    157, // passed2_mg
    73,  // passed2_eg
    387, // passed3_mg
    14,  // passed3_eg
    103, // passed4_mg
    0,   // passed4_eg
    0,   // king_shield
    3,   // mob_rook_mg
    2,   // mob_rook_eg
    8,   // mob_horse_mg
    10,  // mob_horse_eg
    3,   // mob_cannon_mg
    2,   // mob_cannon_eg
    24,  // king_attack_horse
    18,  // king_attack_rook
    23,  // king_attack_cannon
    82,  // hollow_cannon
    14,  // screen_cannon
       0,    0,    0,   15,   72, // pst_king_mg_r0
       0,    0,    0,  -79,   -7, // pst_king_mg_r1
       0,    0,    0, -228,  -99, // pst_king_mg_r2
       0,    0,    0,    0,    0, // pst_king_mg_r3
       0,    0,    0,    0,    0, // pst_king_mg_r4
       0,    0,    0,    0,    0, // pst_king_mg_r5
       0,    0,    0,    0,    0, // pst_king_mg_r6
       0,    0,    0,    0,    0, // pst_king_mg_r7
       0,    0,    0,    0,    0, // pst_king_mg_r8
       0,    0,    0,    0,    0, // pst_king_mg_r9
       0,    0,    0,    9,  -18, // pst_king_eg_r0
       0,    0,    0,   19,    1, // pst_king_eg_r1
       0,    0,    0,   -1,  -48, // pst_king_eg_r2
       0,    0,    0,    0,    0, // pst_king_eg_r3
       0,    0,    0,    0,    0, // pst_king_eg_r4
       0,    0,    0,    0,    0, // pst_king_eg_r5
       0,    0,    0,    0,    0, // pst_king_eg_r6
       0,    0,    0,    0,    0, // pst_king_eg_r7
       0,    0,    0,    0,    0, // pst_king_eg_r8
       0,    0,    0,    0,    0, // pst_king_eg_r9
       0,    0,    0,    1,    0, // pst_advisor_mg_r0
       0,    0,    0,    0,   27, // pst_advisor_mg_r1
       0,    0,    0,  -14,    0, // pst_advisor_mg_r2
       0,    0,    0,    0,    0, // pst_advisor_mg_r3
       0,    0,    0,    0,    0, // pst_advisor_mg_r4
       0,    0,    0,    0,    0, // pst_advisor_mg_r5
       0,    0,    0,    0,    0, // pst_advisor_mg_r6
       0,    0,    0,    0,    0, // pst_advisor_mg_r7
       0,    0,    0,    0,    0, // pst_advisor_mg_r8
       0,    0,    0,    0,    0, // pst_advisor_mg_r9
       0,    0,    0,  -15,    0, // pst_advisor_eg_r0
       0,    0,    0,    0,    8, // pst_advisor_eg_r1
       0,    0,    0,    3,    0, // pst_advisor_eg_r2
       0,    0,    0,    0,    0, // pst_advisor_eg_r3
       0,    0,    0,    0,    0, // pst_advisor_eg_r4
       0,    0,    0,    0,    0, // pst_advisor_eg_r5
       0,    0,    0,    0,    0, // pst_advisor_eg_r6
       0,    0,    0,    0,    0, // pst_advisor_eg_r7
       0,    0,    0,    0,    0, // pst_advisor_eg_r8
       0,    0,    0,    0,    0, // pst_advisor_eg_r9
       0,    0,   14,    0,    0, // pst_elephant_mg_r0
       0,    0,    0,    0,    0, // pst_elephant_mg_r1
     -14,    0,    0,    0,   40, // pst_elephant_mg_r2
       0,    0,    0,    0,    0, // pst_elephant_mg_r3
       0,    0,  -12,    0,    0, // pst_elephant_mg_r4
       0,    0,    0,    0,    0, // pst_elephant_mg_r5
       0,    0,    0,    0,    0, // pst_elephant_mg_r6
       0,    0,    0,    0,    0, // pst_elephant_mg_r7
       0,    0,    0,    0,    0, // pst_elephant_mg_r8
       0,    0,    0,    0,    0, // pst_elephant_mg_r9
       0,    0,    1,    0,    0, // pst_elephant_eg_r0
       0,    0,    0,    0,    0, // pst_elephant_eg_r1
      -8,    0,    0,    0,    2, // pst_elephant_eg_r2
       0,    0,    0,    0,    0, // pst_elephant_eg_r3
       0,    0,    2,    0,    0, // pst_elephant_eg_r4
       0,    0,    0,    0,    0, // pst_elephant_eg_r5
       0,    0,    0,    0,    0, // pst_elephant_eg_r6
       0,    0,    0,    0,    0, // pst_elephant_eg_r7
       0,    0,    0,    0,    0, // pst_elephant_eg_r8
       0,    0,    0,    0,    0, // pst_elephant_eg_r9
      23,  -83,  -48, -161, -283, // pst_horse_mg_r0
     -67, -210,  -74,  -39,  -17, // pst_horse_mg_r1
     -46,  -60,  -26,   24,  -71, // pst_horse_mg_r2
     -56,  -47,  -14,  -36,   22, // pst_horse_mg_r3
     -15,   -4,   63,   10,   32, // pst_horse_mg_r4
    -102,    6,   36,   65,   80, // pst_horse_mg_r5
     -14,  129,   17,  141,  -42, // pst_horse_mg_r6
      43,   68,   -7,  198,   13, // pst_horse_mg_r7
     103,  -14,  116,   92,  243, // pst_horse_mg_r8
      27,   60,   -9,  -54,  226, // pst_horse_mg_r9
    -175,   12,  -73,   91,  -17, // pst_horse_eg_r0
     -53,  100,   51,   -8, -167, // pst_horse_eg_r1
      -9,   17,   -6,   39,   -1, // pst_horse_eg_r2
      80,   23,   11,   56,   21, // pst_horse_eg_r3
      41,   10,   20,   48,   28, // pst_horse_eg_r4
      63,   40,   26,   33,   17, // pst_horse_eg_r5
       6,   43,   16,   21,   49, // pst_horse_eg_r6
      99,   28,   39,   -2,  124, // pst_horse_eg_r7
     -44,   44,   56,   41,  -70, // pst_horse_eg_r8
     -12,  -68,   70,  105,  -71, // pst_horse_eg_r9
     -52,   -1,  -10,   -1, -190, // pst_rook_mg_r0
     -23,    4,   11,   -5,   14, // pst_rook_mg_r1
       1,   -6,   32,   33,  -46, // pst_rook_mg_r2
      -7,   27,    8,   18,   32, // pst_rook_mg_r3
      28,   15,   39,   24,    8, // pst_rook_mg_r4
     -26,   10,   12,   17,   10, // pst_rook_mg_r5
      22,   19,   56,   40,   19, // pst_rook_mg_r6
     -11,   25,    1,   56,  155, // pst_rook_mg_r7
      24,   41,   28,   36,  159, // pst_rook_mg_r8
      31,   43,  -43,   27,  107, // pst_rook_mg_r9
     -61,  -43,  -80,  -47, -256, // pst_rook_eg_r0
     -87,  -42,  -30,  -47, -215, // pst_rook_eg_r1
    -125,    7,  -47,  -49,   -3, // pst_rook_eg_r2
      63,   29,   62,   37,   84, // pst_rook_eg_r3
      -7,   65,   16,   19,   54, // pst_rook_eg_r4
      63,   55,   63,   26,   80, // pst_rook_eg_r5
      41,   82,   60,   52,   78, // pst_rook_eg_r6
      76,   21,   50,   27,   -4, // pst_rook_eg_r7
      10,   47,   11,   59,  127, // pst_rook_eg_r8
      49,   29,   84,   52,   61, // pst_rook_eg_r9
     -11,    6,    7,   22,  101, // pst_cannon_mg_r0
      28,   -9,   45,   12,   51, // pst_cannon_mg_r1
     -10,  -27,   20,    2,    8, // pst_cannon_mg_r2
     -92,  -35,   20,  -24,   40, // pst_cannon_mg_r3
       9,  -26,  -16,  -46,   -9, // pst_cannon_mg_r4
      69,  -29,  -25,   -6,   36, // pst_cannon_mg_r5
      28,  -18,   -1,   -1,    8, // pst_cannon_mg_r6
      27,  -16,  -21,  -32,  -98, // pst_cannon_mg_r7
     -23,  -23,  -46,   -8, -337, // pst_cannon_mg_r8
      89,   33,  -70, -159, -394, // pst_cannon_mg_r9
       3,  -48,  -41,   -3,   -1, // pst_cannon_eg_r0
       5,    9,  -31,    0,   17, // pst_cannon_eg_r1
      12,    4,   -7,   -8,   36, // pst_cannon_eg_r2
      44,    8,   -5,   -8,   17, // pst_cannon_eg_r3
      -3,   13,   11,   -1,   24, // pst_cannon_eg_r4
     -32,   33,    1,    8,    1, // pst_cannon_eg_r5
     -12,   12,   -2,   11,   56, // pst_cannon_eg_r6
     -14,  -14,  -27,  -92,  -34, // pst_cannon_eg_r7
      15,    5,   15,  -67,   92, // pst_cannon_eg_r8
     -17,   15,   48,   -7,  133, // pst_cannon_eg_r9
       0,    0,    0,    0,    0, // pst_pawn_mg_r0
       0,    0,    0,    0,    0, // pst_pawn_mg_r1
       0,    0,    0,    0,    0, // pst_pawn_mg_r2
     -39,    0,  -21,    0,   38, // pst_pawn_mg_r3
     -13,    0,   17,    0,   40, // pst_pawn_mg_r4
     -26,  -22,  -29,   67,   52, // pst_pawn_mg_r5
     -28,  -49,   -8,   58,   73, // pst_pawn_mg_r6
    -138,   10,   39,   39,  156, // pst_pawn_mg_r7
    -323,  -21,  -32,  230,  171, // pst_pawn_mg_r8
    -320,   57,   94,  212, -107, // pst_pawn_mg_r9
       0,    0,    0,    0,    0, // pst_pawn_eg_r0
       0,    0,    0,    0,    0, // pst_pawn_eg_r1
       0,    0,    0,    0,    0, // pst_pawn_eg_r2
      -8,    0,  -11,    0,   31, // pst_pawn_eg_r3
      -9,    0,    6,    0,   37, // pst_pawn_eg_r4
     -28,   14,   21,   33,   22, // pst_pawn_eg_r5
     -40,   10,   20,   32,   29, // pst_pawn_eg_r6
      -7,  -63,  -30,   58,   59, // pst_pawn_eg_r7
     -18,  -59,  -75,  -76,  160, // pst_pawn_eg_r8
      66, -116,  -89, -166, -217, // pst_pawn_eg_r9
];
