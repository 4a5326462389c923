//! The constants of the plan's cost model ([`Params`]) and what they were measured on.

/// The constants of the cost model, measured on this machine. Every figure is per position
/// (an index entry with a side to move: a table of index size n has 2n positions); the
/// per-shape arrays are indexed no-attacker, one-sided, two-sided, the per-rule-set ones
/// rule set 0 (`none`), rule set 1 (`check-chase`).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Worker threads the times are for (the cores of this machine).
    pub threads: u32,
    /// How many of `threads` cores a `gen` or `verify` process keeps busy on average
    /// (CPU seconds over wall seconds).
    pub busy_cores: f64,
    /// Peak resident memory of a `gen` process besides its tables (bytes).
    pub base_bytes: f64,
    /// Peak bytes per position of the table being generated (`--metrics wdl,dtm`): without
    /// repetition-rule rounds (rule set 0, or a side without attacker: the generator's
    /// compact layout), with them (rule set 1, both sides attacking).
    pub bytes_per_position: [f64; 2],
    /// Peak bytes per position of the DTC step that `gen` runs after it by default (its
    /// bits per position, a byte per decided position, the rule rounds of the verdicts),
    /// by the same layouts: the peak is the larger of the two.
    pub dtc_bytes_per_position: [f64; 2],
    /// What the DTC file's writer adds when it tries a trained dictionary (a table of 0.5 to
    /// 8.4 M positions: its file has 16 to 256 blocks, see
    /// [`crate::tablebase::file::tries_dictionary`]): the training's buffers and the blocks
    /// compressed in memory (bytes; about 1 MiB measured on KRAKC since the trainer's smaller
    /// table, `file/dict.rs`).
    pub dtc_dictionary_bytes: f64,
    /// Bytes per position of the direct sub-tables that `verify` holds in its cache of
    /// decoded blocks (a block of each of the two files per position looked up), up to
    /// `verify_sub_cache_bytes`.
    pub bytes_per_sub_position: f64,
    /// The bound of `verify`'s cache of sub-table blocks
    /// ([`crate::tablebase::verify::params::SUB_CACHE_BYTES`]).
    pub verify_sub_cache_bytes: f64,
    /// What `gen` holds of its sub-tables: the WDL blocks of the side each capture leads
    /// to (half of a sub-table's positions) that its probes decode, two bits a position, at
    /// most this cache (a table with repetition-rule rounds empties it after round 0, before
    /// its rounds).
    pub sub_cache_bytes: f64,
    /// Generation CPU seconds per position under rule set 1, by shape.
    pub cpu_per_position: [f64; 3],
    /// Generation time under rule set 0 as a fraction of rule set 1's, by shape.
    pub rules_none_time_factor: [f64; 3],
    /// Wall seconds of a `gen` or `verify` process besides its positions.
    pub seconds_per_process: f64,
    /// `verify` CPU seconds per position, by shape.
    pub verify_cpu_per_position: [f64; 3],
    /// Peak bytes per position of `verify`, by rule set and shape.
    pub verify_bytes_per_position: [[f64; 3]; 2],
    /// File bytes per position (WDL and DTM files together), by shape.
    pub disk_bytes_per_position: [f64; 3],
    /// File bytes per table besides its positions (the two headers and block offsets).
    pub disk_bytes_per_table: f64,
    /// Generation time out of core (`gen --memory`, arrays in a work file) as a multiple
    /// of the time in memory.
    pub out_of_core_time_factor: f64,
}

impl Params {
    /// Measured on this machine (2 cores, 24 GiB), release build, 2026-11-23, with
    /// `/usr/bin/time xqdb gen --no-deps T --threads 2` and `xqdb verify T --threads 2` on
    /// tables whose sub-tables were present. The machine was shared (load average 6 to 12
    /// on 2 cores), so times are CPU seconds (user + sys), which contention changes little,
    /// turned into wall time by [`Params::busy_cores`]. The measurements (positions; gen CPU
    /// s, peak RSS; verify CPU s, peak RSS; file bytes):
    ///
    /// | table | shape | positions | gen CPU | gen peak | verify CPU | verify peak | files |
    /// |---|---|---:|---:|---:|---:|---:|---:|
    /// | KK | none | 90 | 0.00 | 5.8 MB | 0.00 | 5.9 MB | 364 |
    /// | KAABBKAB | none | 0.39 M | 0.08 | 10.4 MB | 0.65 | 8.1 MB | 867 |
    /// | KAABBKAABB | none | 1.99 M | 0.48 | 29.6 MB | 4.82 | 14.8 MB | 3,170 |
    /// | KRKAB | one | 0.21 M | 0.14 | 8.9 MB | 0.51 | 6.9 MB | 21,679 |
    /// | KRAKAB | one | 0.94 M | 0.76 | 23.7 MB | 2.33 | 10.1 MB | 112,330 |
    /// | KRKAABB | one | 1.07 M | 1.00 | 27.3 MB | 2.95 | 11.1 MB | 190,930 |
    /// | KNAKP | two | 1.64 M | 1.12 | 28.1 MB | 3.96 | 239 MB | 90,136 |
    /// | KRKNA | two | 2.69 M | 3.73 | 33.0 MB | 6.48 | 89.8 MB | 576,157 |
    /// | KRKNB | two | 4.18 M | 5.54 | 38.3 MB | 9.90 | 136 MB | 868,843 |
    /// | KRNKR | two | 53.3 M | 112.8 | 128 MB | 155.0 | 1,922 MB | 10,416,392 |
    /// | KRKNA, rule set 0 | two | 2.69 M | 2.28 | 32.8 MB | 6.53 | 18.3 MB | 578,211 |
    /// | KRAKAB, rule set 0 | one | 0.94 M | 0.78 | 23.7 MB | 2.40 | 10.0 MB | 112,330 |
    ///
    /// The verify peaks above are of the verifier before it read tables from their files
    /// one side to move at a time; see `verify_bytes_per_position` for today's.
    pub const MEASURED: Params = Params {
        threads: 2,
        // `gen --default` (49 small tables): 9.85 CPU s in 8.3 s wall at load average 6, so
        // at least 1.2; KRNKAABB took 35 s on the idle machine (the scale issue) for about
        // 83 CPU s at the one-sided rate below, 2.4. Between the two:
        busy_cores: 1.6,
        // Process, thread pool and compression buffers: KRNKR's 128 MB peak is 16 MiB,
        // 2.06 bytes per position and its sub-tables' 1.9 M positions. Measured again on
        // 2026-11-27 (`/usr/bin/time -v`, default metrics, `gen --no-deps`): the bare process
        // (`gen KRK`) 7.2 MiB, about 5 of it the program's own pages; the file writer's two
        // zstd contexts (level 15 on 256 KiB blocks) up to 8.5 MiB more (KCABKC), fewer when
        // the blocks shrink to little: KPKP 13.6 MiB, KCABKC 36.7 MiB with 17.3 MiB of
        // values, KRABKAABB 46.4 MiB with 30.3 MiB; so 14 MiB. Since a small table's files
        // are compressed with one context (2026-11-27): the generator's figure
        // (`generate::PROCESS_BYTES`), which its out-of-core decision uses too.
        base_bytes: crate::tablebase::generate::PROCESS_BYTES as f64,
        // Since the compact layout (2026-11-26, `--metrics wdl,dtm`): KRNKAABB alone
        // 100.4 MiB (1.0 bytes per position besides the base; 183.7 MiB, 2.0, before);
        // with rule rounds KRNKR alone 120.1 MiB (2.05; 123.9 MiB, 2.12, before the
        // capture-draw flag moved into the value byte; writing its files alone took
        // 118 MiB: the values and verdicts handed over, two bytes per position). With the
        // auxiliary byte for the positions open after round 0 only (2026-11-27): the KRNKR
        // closure 90.1 MiB (1.45 besides the base), the KRABKRA closure 160.3 MiB (1.5
        // besides the base and the full sub-table cache; 42 % of its positions open).
        // With the rule rounds held sparse and the verdicts in a work file while the WDL
        // file is compressed (2026-11-27, load 6 to 9): the KRNKR closure 85.6 MiB (1.37
        // besides the base), its peak at the start of step 4. With step 4's codes packed
        // (four bits for each position decided by the rounds, `generate/dtm_codes.rs`) and
        // a lean rank after the rounds (2026-11-27, load 8 to 9): the KRNKR closure 75.5
        // MiB (1.17 besides the base), its peak in step 4 and the writing of its files;
        // the KRABKRA closure 137.6 MiB (1.2 besides the base and the full cache), its
        // peak in the rule rounds. With the sub-table cache emptied after round 0 and the
        // rounds' won and lost bits only for the positions without a slot (2026-11-27, load
        // 8 to 11): the KRABKRA closure 111.6 MiB, its rule rounds at 110.4 MiB (1.26
        // besides the base, no cache), its start pass (the value bytes and the cache) just
        // above: the peak is the larger of the rounds' and the compact layout's with the
        // cache. A drawish table has more open positions (KCABKCA's 73 %, its rounds 1.87
        // besides the base, 146.0 MiB for its closure). With the flag bytes only for the open
        // positions with flags (2026-11-27, load 7 to 8): KCABKCA alone 124.0 MiB, 1.44
        // besides the base, its peak in the rule rounds (the worklist bits filled in round
        // 2); the rate of the most open table measured, an upper bound for the others.
        // With the open positions' codes split (2026-11-27, load 6 to 7; two bits each in
        // memory, the code bytes in a work file mapped shared, `generate/split_codes.rs`):
        // KCABKCA alone's rule rounds at 83 MiB (0.9 besides the base), below its start
        // pass (the value bytes and the full sub-table cache, 107 MiB), its peak now, and
        // its step 4 and writing (101 MiB, 1.13). The rate of this layout is now that of
        // step 4 and the writing of the files: KRNKR's closure 75.5 MiB (1.17), whose
        // rounds decide millions of positions; 1.3 leaves room for a table whose rounds
        // decide more (step 4 keeps four bits for each position they decide).
        bytes_per_position: [1.0, 1.3],
        // The DTC pass (by default), since it reads the table's values from its files
        // (2026-11-26, load 5 to 10): a byte and a bit per position, and the rule rounds
        // (none; 4 bits per position for KRNKR's 9 rounds; at most a byte). KRNKAABB alone
        // 129.2 MiB with the sub-table cache full (198.6 MiB before); the DTC pass of KRNKR
        // alone 99.9 MiB (1.63 besides the base; 219.0 MiB before), below its generation's
        // 123.6 MiB; the KRNKR closure under `--rules none` 72.8 MiB (118.7 MiB before).
        // With the DTC pass's rule rounds a byte per position that has one, found by a rank
        // (2026-11-27, load 6 to 9): KRNKR alone 94.8 MiB (1.55 besides the base). With a
        // byte (and a win bit) only for each decided position, found by a lean rank over a
        // bit per position (`generate/dtc.rs`; 2026-11-27, load 5 to 6): the DTC pass of
        // KRNKR alone 70.2 MiB (1.06 besides the base, its sub-table cache and rule rounds
        // included; main's binary 94.3 MiB). A table without rule rounds (not measured
        // again; 1.13 is now an upper bound): two bits per position and 1.14 bytes per
        // decided one.
        dtc_bytes_per_position: [1.13, 1.1],
        // KRKPA 24.7 MiB (1.7 M positions), KRAKN 26.9 MiB (2.7 M), KRAKPA 30.4 MiB (7.2 M)
        // with the default metrics, about 10 MiB above the base and their DTC pass
        // (2026-11-27), most of it zstd's trainer's table of 2^20 counts. With 2^15
        // (`file/dict.rs`, 2026-11-28): KRAKC (2.7 M) 16.2 MiB against 25.7, its heap 8.3 MiB
        // with the trial against 7.3 MiB without it; 2 MiB keeps a margin.
        dtc_dictionary_bytes: 2.0 * 1048576.0,
        // `verify` reads its sub-tables through a cache of decoded blocks (2026-11-26).
        bytes_per_sub_position: 2.0,
        verify_sub_cache_bytes: crate::tablebase::verify::params::SUB_CACHE_BYTES as f64,
        // `SUB_CACHE_BYTES` of the generator (generate/params.rs).
        sub_cache_bytes: 32.0 * 1048576.0,
        // The largest of each shape above: KAABBKAABB 0.24 us, KRKAABB 0.94 us, KRNKR
        // 2.1 us (two-sided tables grow dearer per position with size: 1.4 us at 3-4 M).
        cpu_per_position: [0.24e-6, 0.94e-6, 2.1e-6],
        // KRAKAB: the same under rule set 0; KRKNA: 0.61 of rule set 1's.
        rules_none_time_factor: [1.0, 1.0, 0.61],
        // `gen KK --no-deps`: 0.01 s (the index and a thread pool).
        seconds_per_process: 0.01,
        // verify with the DTC file (what `gen` writes by default), measured again on
        // 2026-11-26 after verify stopped copying positions, ranked each quiet move once and
        // derived the DTC from the successors it looks up for the value: KAABBKAABB 0.56 us
        // (no DTC to check), KRKAABB 0.83 us, KNAABBK 0.62 us, KRKNA 0.82 us, KRNKR 0.95 us
        // (0.74 us of it without the DTC file; it was 2.9 us without).
        // Verification one side to move at a time from the files (2026-11-26, load 8 to 13
        // on 2 cores) is no dearer: KRNKR 49.7 CPU s (0.93 us; 54.4 s before), KRABKRA 75.7 s
        // (0.96 us; 96.1 s), KRNKAABB 97.1 s (1.10 us; 104.2 s at the same load).
        verify_cpu_per_position: [0.56e-6, 0.8e-6, 0.95e-6],
        // verify (2026-11-26, one side to move at a time from the files) holds of the other
        // side its values, its DTC and, when some verdict rests on the repetition rules (only
        // two-sided tables have such verdicts), its WDL bytes (one byte per index each: 0.5
        // per position), and for the trap check of two-sided tables under rule set 1 six
        // bits per index (0.375 per position): 1.0 and 1.875 bytes per position. Measured
        // with the DTC file (`/usr/bin/time -v`, peak RSS; per position besides the base and
        // the cache bound): KRNKR 115.8 MiB (1.89), KRABKRA 195.3 MiB (1.54: the cache
        // was not full), KRNKAABB 155.4 MiB (0.89); verify before: 378.2 MiB, 1,080.6 MiB,
        // 448.7 MiB (7.4, 14.4, 5.3 bytes per position all told).
        verify_bytes_per_position: [[1.0, 1.0, 1.0], [1.0, 1.0, 1.875]],
        // Format version 2: KRKAABB 0.114, KRKNA 0.184, KRNKR 0.161 (version 1: KAABBKAABB
        // 0.0014, KRKAABB 0.18, KRNKR 0.195; no-attacker tables only get smaller).
        disk_bytes_per_position: [0.0014, 0.114, 0.165],
        // an empty table's two files: 185 + 182 bytes
        disk_bytes_per_table: 370.0,
        // KRNKAABB alone (2026-11-26, see README): 61.6 CPU s out of core (limit 62M)
        // against 53.8 s in memory
        out_of_core_time_factor: 1.15,
    };
}
