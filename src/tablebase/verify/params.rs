//! Tunables of verification.

/// Bound of the cache of decoded blocks of the tables one capture away while a table is
/// verified from its files (shared among their files; each holds at least two blocks).
/// A capture's result is looked up in one block of each of the sub-table's two files.
pub const SUB_CACHE_BYTES: usize = 64 << 20;
