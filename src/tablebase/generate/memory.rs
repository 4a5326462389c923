//! Memory of a generation: what each step holds, and the estimates `plan` and the
//! out-of-core decision use.
//!
//! One value byte per position and
//! one bit (levels from 128 on) in steps 1, 2 and 4 for every table (the compact layout,
//! see [`compact`](super::compact)). A table with rule rounds (step 3) writes round 0's levels to a
//! work file after round 0 (its values when nothing is ruled), gives up its value bytes and holds
//! the rounds sparse (see [`round_codes`](super::round_codes)): for the positions open after round
//! 0 (a quarter of KRNKR's, 73 % of KCABKCA's, found by a rank over a bit per position, see
//! [`slots`](super::slots)) two bits of code (open, open with the capture-draw flag, decided,
//! drawn: what the rounds read at every move; the code bytes, which only the propagation of a
//! round's decisions reads, in a work file mapped shared, see [`split_codes`](super::split_codes);
//! the pages a step of that propagation touches are let go after it: KCAAKCAA's round 1 touches
//! 9 MiB of them, which else stayed mapped to the end of the rounds and set its peak)
//! and, once the marks are set (four bits each while they are), a flag bit and a flag byte only for
//! those with flags (43 % of KCABKCA's, see [`slots::Flags`](super::slots::Flags)), for every other
//! position a won and a lost bit (found by the same rank), and two worklist bits per index; the
//! sub-table cache, which only the start pass probes, holds next to nothing from then on (see
//! [`params::SUB_CACHE_KEPT_BYTES`](super::params::SUB_CACHE_KEPT_BYTES)). With a ruling the value
//! bytes come back dense from the levels file, and the slots keep what step 4 reads of the codes:
//! packed to a position's rule round in four bits (its full code in a work file, see
//! [`dtm_codes`](super::dtm_codes)) when the rounds are at most 15 and no side has more than 61
//! moves, the drawn positions without a slot, the rank lean (see [`slots`](super::slots)); else the
//! codes themselves. The table handed over keeps its verdicts for the positions decided by the
//! rounds only (every other verdict is the plain one of its value, see
//! [`SparseVerdicts`](super::SparseVerdicts)), in a work file while its WDL file is compressed
//! (with the open bits that find them, which step 4 with packed codes holds sparse when few
//! positions keep a slot: KCAAKCAA's 2,425 a side, its dense bits 4.1 MiB, see
//! [`slots`](super::slots)), and
//! the tables one capture away are read from memory or block by block from their files (see
//! [`subs`](super::subs)). KRNKR's closure, rule set 1, WDL and DTM (2 threads, load 8 to 9): the
//! rule rounds at most 65.3 MiB, step 4 72.4 MiB (its level walk's sub-table blocks add up to 3
//! MiB), the writing of the files 74.5 MiB, a peak of 75.5 MiB (1.49 bytes per position; 85.6 MiB,
//! 1.68, with the codes a byte each and every open position slotted); a
//! table whose positions are nearly all open after round 0 needs up to a byte more per
//! index in step 4 and two in the rounds. The DTC pass that `gen` runs next by default
//! stays below (KRNKR's 70.2 MiB, a byte only for each decided position, see [`dtc`](super::dtc)),
//! so KRNKR's closure with all three metrics peaks at 76.1 MiB (1.50 bytes per position).
//!
//! The fixed part, which sets the peak of a small table: the bare process (`gen KRK`, 7.6
//! to 7.9 MiB: the program's code, which the kernel maps nearly whole, 4.9 MiB, and the C
//! library's; nothing else is mapped), the file writer's zstd contexts next to the value
//! bytes (a level-15 context 3.9 MiB while the WDL file is compressed: one in a table under
//! 40 M positions whose write would else set its peak, two in the others, see
//! `file::write_threads`), a checkpoint's save (about 2 MiB: a frame at a time, after a start pass of 10 s or
//! more), the sub-table cache of the start pass (the capture probes' outcomes, two bits a
//! position of the sides read: KPABKPA's 2.4 MiB), and for a table of 0.5 to 8.4 M
//! positions the DTC file's dictionary trial (about 10 MiB). Alone, default metrics
//! (2026-11-27, KiB and bytes per position): KRABKAAB (11.0 M positions) 23,264 (2.17),
//! KRAKCA (11.7 M) 27,388 (2.40), KCABKC (18.1 M) 34,008 (1.92), KPABKPA (29.9 M) 43,140
//! (1.48, at the end of its generation), KRABKAABB (31.8 M) 45,828 (1.48), KCAAKCAA (34.2 M)
//! 51,944 to 52,252 (1.56 to 1.57, 2026-11-28; its step 4: the value bytes, that step's open
//! bits, 4.1 MiB, and a worker thread's heap, 1 to 3 MiB from run to run); with step 4's open
//! bits sparse and a checkpoint saved a frame at a time (load 9 to 10, sub-tables linked, max
//! RSS sampled every 20 ms): KCAAKCAA 49,216 to 49,364 (1.48; the same build without them
//! 50,264 to 51,088), its peak now round 0 or the checkpoint after a slow start pass, KRAKCA
//! 25,552 (26,424), KCABKC 31,104 (31,492), KPABKPA 42,632 (43,484): a table
//! needs about 30 M positions before its value byte, high bit and this part fit in 1.5
//! bytes per position, more when most of its positions are open after round 0.
//!
//! The fixed part and the part per position, surveyed (2026-11-28, main 5f50409's binary, 17
//! two-sided tables of 2.7 M to 52 M positions with rule rounds, each alone, sub-tables linked,
//! `/proc/PID/smaps` sampled every 30 ms; load 4 to 5): the program's pages (code and C library,
//! 7.0 to 7.8 MiB; the bare process, `gen KRK`, 8,024 KiB with 500 KiB of heap) and the
//! sub-tables' mapped pages (up to 4.5 MiB) come on top of the heap, which in each step is a fixed
//! part plus a part per position (least squares over the 17): the start pass 1.6 MiB plus 1.07
//! bytes per position, round 0 2.3 MiB plus 1.10 (the sub-table cache and the level walk's
//! blocks), the rule rounds 0.5 MiB plus 1.06, step 4 and the hand-over 1.8 MiB plus 1.08, the
//! writing of the files 3.6 MiB (the zstd context) plus 1.12, the DTC pass 2.0 MiB plus 0.54, the
//! DTC file 10.6 MiB (its dictionary trial in a table of 0.5 to 8.4 M positions) plus 0.23. Per
//! table, its heap at each step less that step's fixed part is at most 1.29 bytes per position
//! from 11.7 M positions on (KRAKCA's and KNAKNA's round 0; KCAAKCAA 1.16, KCABBKC 1.15) and 1.57
//! at 2.7 M (KNAKN's files), where a megabyte is 0.4 bytes per position; what stayed above 1.5
//! was the DTC file's dictionary trial of the smallest tables (KRAKC, KCAAKP: 17,928 and 18,288
//! KiB of heap, 7 MiB above that step's fixed part; it runs only on files of 16 to 256 blocks,
//! see `file::tries_dictionary`): zstd's trainer held a table of 2^20 counts. With 2^15
//! (`file/dict.rs`) KRAKC's heap there is 8.3 MiB and its peak 16.2 MiB; re-measured (merged
//! main, load 5-6), every surveyed table's peak is at most 12.3 MiB plus 1.5 bytes per position
//! (KCAAKP 16,356 KiB at 2.8 M positions, KRBKR 17,400 at 4.2 M, KNAKPA 19,356 at 7.2 M, KRAKCA
//! 25,732 at 11.7 M; from 30 M positions on the peak is below 1.5 bytes per position outright). The plan states each table's
//! estimated peak the same way, a fixed part and bytes per position ([`crate::tablebase::plan::TableCost::fixed_bytes`]).

use super::{code, dtm_codes, params, Gen};
use crate::board::rules::RuleSet;
use crate::board::{Color, Role};
use crate::index::Material;

/// What a `gen` process holds besides its tables: the process and its thread pool (the
/// bare process, `gen KRK`, 7.6 to 7.9 MiB, most of it the program's code, see
/// [`memory`](self)) and the file writer's compression contexts next to the values (a
/// level-15 context on the WDL file's 256 KiB blocks 3.9 MiB, the DTM file's level-13 one
/// under 1 MiB: one context in a table under 40 M positions whose files phase would else
/// set its peak, KCABKC's 33.2 MiB; two, 7.8 MiB, in a bigger table, whose peak is then
/// mostly its generation's, see `file::write_threads`; a checkpoint's save a few MiB); so 14
/// MiB. The plan's base ([`crate::tablebase::plan::Params::base_bytes`]) and the
/// out-of-core decision ([`BASE_BYTES`]) use this one figure.
pub const PROCESS_BYTES: u64 = 14 << 20;

/// What a `gen` process holds besides a table's generation state, for the out-of-core
/// decision: [`PROCESS_BYTES`] and the bound of the sub-table block cache (two bits a
/// position, see [`subs`](super::subs); KPABKPA's fill 2.4 MiB of it).
pub const BASE_BYTES: u64 = PROCESS_BYTES + params::SUB_CACHE_BYTES as u64;

/// Bytes of the DTC pass's state for a table of index size `n` (its out-of-core decision),
/// both sides to move: a decided bit per position with its lean rank counts (an eighth of
/// a bit per position, see [`slots`](super::slots)), a byte and a win bit per decided position, and
/// while the win bits move from the positions to the bytes a win bit per position too; the decided
/// positions taken as all of them (KRNKR's are 51 %; the rule rounds, at most a byte per position
/// and none in most tables, come on top).
pub fn dtc_state_bytes(n: u64) -> u64 {
    let words = n.div_ceil(64);
    2 * (3 * words * 8 + n.div_ceil(512) * 8 + n)
}

/// Bytes of generation state of a table of `material` (index size `n`) under `rules`: a
/// value byte and a high level bit per position (the compact layout, see
/// [`compact`](super::compact)); with repetition-rule rounds (rule set 1, both sides attacking) the
/// larger of step 4's (the compact layout, a bit per position for those open after round 0 and
/// their codes, four bits each when packed, see [`dtm_codes`](super::dtm_codes), a byte when a side
/// may have more than 61 moves) and the rounds' (the open bits, two bits of code and a flag bit per
/// open position, a flag byte per open position with flags, a won and a lost bit per other position
/// and two worklist bits per index; the open positions' code bytes, in a work file mapped shared,
/// not counted: the rounds touch those of the positions they decide and of their predecessors only,
/// see [`split_codes`](super::split_codes)), the open positions estimated at half (KRNKR's are a
/// quarter, KRABKRA's 42 %, KCABKCA's 73 %, a table nearly all drawn has up to all) and half of
/// them with flags (KCABKCA's 43 %), and one capture-draw bit per position when the value byte has
/// no room for it (see [`capdraw_in_value`]).
pub fn state_bytes(material: Material, n: u64, rules: RuleSet) -> u64 {
    let bits = 2 * n.div_ceil(64) * 8;
    let compact = 2 * n.next_multiple_of(8) + bits;
    if !Gen::has_rule_rounds(material, rules) {
        return compact;
    }
    // half of the 2n positions open: n bytes per byte kept for them
    let codes = if max_moves(material) as usize <= dtm_codes::MAX_RULED_COUNT {
        n / 2
    } else {
        n
    };
    let dtm = compact + bits + codes;
    // open bits, worklist bits, two bits for each of the other half, and for the open half
    // two bits of code, a flag bit and for half of them a flag byte
    let rounds = 3 * bits + n / 4 + n / 8 + n / 2;
    let capdraw = if capdraw_in_value(material) { 0 } else { bits };
    dtm.max(rounds) + capdraw
}

/// An upper bound of the legal moves of either side of `material`: 17 per rook or cannon
/// (the squares of its rank and file; a cannon's capture beyond a screen replaces a square
/// of that line), 8 per horse, 4 per king, advisor or elephant, 3 per pawn.
pub(super) fn max_moves(material: Material) -> u32 {
    Color::ALL
        .iter()
        .map(|&c| {
            Role::ALL
                .iter()
                .map(|&r| {
                    let per = match r {
                        Role::Rook | Role::Cannon => 17,
                        Role::Horse => 8,
                        Role::Pawn => 3,
                        Role::King | Role::Advisor | Role::Elephant => 4,
                    };
                    per * material.count(c, r) as u32
                })
                .sum()
        })
        .max()
        .unwrap_or(0)
}

/// True when a table of `material` with repetition-rule rounds keeps the capture-draw flag
/// of its open positions in their value bytes ([`code::CAPDRAW`](super::code::CAPDRAW), with
/// six-bit counters) instead of a bit array: when no position can have more than
/// [`code::COUNTER`](super::code::COUNTER) moves (every table of up to four pieces besides the
/// kings).
pub(super) fn capdraw_in_value(material: Material) -> bool {
    max_moves(material) <= code::COUNTER as u32
}
