//! Tunables of the generator (measured on KRNKR, 2 threads).

/// Positions per parallel work item of a pass over the table.
pub(super) const CHUNK: usize = 4096;

/// A full clean-up sweep of the repetition rules that changes fewer flags than this fraction
/// of the table's positions is *tracked*: it records its changes and marks what they affect,
/// and after two tracked sweeps in a row the clean-up goes on by worklist sweeps (see
/// `cycles::Gen::settle_full`). At 1/1000 KRNKR's rounds run 4 untracked full sweeps
/// (millions of changes, then about 10^5), 2 tracked ones (a few hundred to a few thousand
/// changes) and a few small worklist sweeps, instead of 10 full sweeps. Marking what a
/// change affects costs tens of predecessor generations, so a sweep of 10^5 changes is
/// cheaper untracked.
pub(super) const SETTLE_TRACK_BELOW: f64 = 0.001;

/// At most this many changes (eight bytes each) of a full clean-up sweep are recorded: a
/// sweep with more is not tracked, whatever the table's size (KRNKR's tracked sweeps change
/// at most about 3,000 flags; the record stays far below the peak's noise).
pub(super) const SETTLE_LOG_CAP: u64 = 8192;

/// A round of the repetition rules starts from the previous round's clean-up (see
/// `cycles::Gen::reopen`) while the positions decided since, and the flags that may come
/// back, are fewer than this fraction of the table's positions.
pub(super) const REOPEN_BELOW: f64 = 0.004;

/// Bound of the cache of decoded sub-table blocks (the outcomes of the side to move after a
/// capture, from the WDL file alone, two bits a position), shared by the tables one capture
/// away when they are read from files (see `subs`). It serves the random probes of captures
/// (under rule set 1 with both sides attacking, each position's captures into a drawn
/// position at the start; the DTC's conversions into a loss); the level walk decodes block
/// by block without it. KRNKR's sub-tables fit whole (about 2 MB for the sides read, 8 MB
/// when the cache held a byte a position), KPABKPA's in 2.4 MB (8.8 MB before): only a
/// table whose sub-tables' sides read have more than 128 M positions fills it.
pub(super) const SUB_CACHE_BYTES: usize = 32 << 20;

/// What the cache of sub-table blocks keeps once round 0 is done, in a table with
/// repetition-rule rounds (the only one that probes its sub-tables at random, in its start
/// pass): nothing probes them at random any more, and the rule rounds need the room (the
/// level walks decode the values block by block, without the cache).
pub(super) const SUB_CACHE_KEPT_BYTES: usize = 0;

/// Allocations of at least this many bytes are mapped from the system on their own (and
/// returned to it when freed) while tables are generated: see [`super::heap::settle_heap`].
pub(super) const MMAP_THRESHOLD_BYTES: usize = 256 << 10;

/// Step 4 with packed codes holds a side's open bits sparse (see `slots::sparse`) when that
/// form takes at most this share of their bytes (numerator, denominator): only the
/// positions decided by the rule rounds keep a slot there, under a percent of KCAAKCAA's.
pub(super) const SPARSE_OPEN_MAX_SHARE: (usize, usize) = (1, 2);
