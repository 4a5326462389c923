//! The trained dictionary of a small file ([`super::tries_dictionary`]): zstd's fastCover
//! trainer with a smaller frequency table than its default.
//!
//! `zstd::dict::from_continuous` (`ZDICT_trainFromBuffer`) runs fastCover with `f = 20`: a
//! table of 2^20 dmer counts, about 6 * 2^f = 6 MiB per call, which set the peak of every
//! table of 0.5-8.4 M positions (the only ones whose DTC file tries a dictionary): measured on
//! KRAKC (2.7 M positions), 18.0 MiB of heap with the trial against 7.3 without it. The same
//! search (d = 8, four steps of k, a quarter of the samples kept for testing, compression
//! level 3 for the trial compressions) with [`TRAIN_F`] = 15 needs 1/32 of that table: KRAKC's
//! heap 8.2 MiB, its peak 25.5 -> 15.8 MiB. The dictionaries differ: of the DTC files of the
//! survey that keep one, KNAKN's grew 74,028 -> 74,068 bytes and KNAKPA's 136,071 -> 139,356
//! (without a dictionary 78,463 and 146,997).

use zstd::zstd_safe::zstd_sys;

/// log2 of fastCover's frequency table (zstd's default is 20).
pub(super) const TRAIN_F: u32 = 15;

/// A dictionary of at most `capacity` bytes trained on the samples `data` (their lengths
/// `sizes`, in order), or `None` when zstd finds none (too few or too uniform samples).
pub(super) fn train(data: &[u8], sizes: &[usize], capacity: usize) -> Option<Vec<u8>> {
    if sizes.iter().sum::<usize>() != data.len() || sizes.is_empty() {
        return None;
    }
    let mut dict = vec![0u8; capacity];
    let mut params = zstd_sys::ZDICT_fastCover_params_t {
        k: 0,
        d: 8,
        f: TRAIN_F,
        steps: 4,
        nbThreads: 0,
        splitPoint: 0.0,
        accel: 0,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: zstd_sys::ZDICT_params_t {
            compressionLevel: 3,
            notificationLevel: 0,
            dictID: 0,
        },
    };
    // SAFETY: `dict` is writable for `capacity` bytes, `data` readable for the sum of
    // `sizes` bytes (checked above) and `sizes` for `sizes.len()` entries; zstd reads and
    // writes nothing else and keeps no pointer after the call.
    let n = unsafe {
        zstd_sys::ZDICT_optimizeTrainFromBuffer_fastCover(
            dict.as_mut_ptr().cast(),
            capacity,
            data.as_ptr().cast(),
            sizes.as_ptr(),
            u32::try_from(sizes.len()).ok()?,
            &mut params,
        )
    };
    // SAFETY: a pure function of the returned code.
    if unsafe { zstd_sys::ZDICT_isError(n) } != 0 {
        return None;
    }
    dict.truncate(n);
    Some(dict)
}
