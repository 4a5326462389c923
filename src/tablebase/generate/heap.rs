//! The C heap's behaviour during generation: large buffers outside the heap.
//!
//! glibc maps an allocation from the system on its own only above its *mmap threshold*, and
//! raises that threshold (up to 32 MiB) each time such a mapped block is freed. Generating a
//! closure frees the arrays of the smaller tables first, so the threshold climbs, and the
//! megabyte-sized buffers of the next tables (bit arrays, sub-table blocks, compression
//! contexts) land in the heap, where they stay resident after being freed (a heap returns
//! memory only from its top). A fixed threshold ([`super::params::MMAP_THRESHOLD_BYTES`],
//! 256 KiB) stops the climb. Measured on KRNKR with all sub-tables (rule set 1, WDL and DTM,
//! 2 threads): 127.5-131.0 MiB at peak before, 120.1 MiB with it, the peak of
//! KRNKR alone. The cost: blocks of 256 KiB or more (sub-table blocks decoded by the level
//! walk, the files' raw blocks) are mapped afresh each time, about 0.25 s of system time
//! (page faults) on that closure, next to 70 s of user time.

/// Fix the mmap threshold of the C heap (once per process; glibc only, elsewhere nothing).
pub(super) fn settle_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let bytes = super::params::MMAP_THRESHOLD_BYTES as libc::c_int;
            // SAFETY: mallopt only sets an allocator parameter; any value is accepted or
            // refused (return 0), never unsafe.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, bytes);
            }
        });
    }
}

/// Hand the heap's free memory back to the system: the sub-table cache's blocks are below
/// the mmap threshold, so freeing them alone leaves them resident.
pub(super) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap memory to the system; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}
