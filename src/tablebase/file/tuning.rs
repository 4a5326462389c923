//! How the writer's zstd contexts are set per block: the level of the file's metric, and
//! for the DTM file's big blocks a few of zstd's advanced parameters over it (see
//! [`zstd_setting`]). Only the writer knows them: every block is a standard zstd frame.

use super::Metric;

/// How one block is compressed: a zstd level, and for the DTM file's big blocks zstd's
/// optimal parser (`btopt`) with a shallower search for longer matches than the level's
/// own (see [`zstd_setting`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(in crate::tablebase) struct ZstdSetting {
    /// zstd level (every parameter not set below is the level's for the block's size).
    pub level: i32,
    /// `(searchLog, minMatch, targetLength)` of strategy `btopt`, set over the level's.
    pub tuned: Option<(u32, u32, u32)>,
}

/// The DTM file's parameters for blocks of more than [`TUNED_MIN_CONTENT`] bytes (those for
/// which zstd takes its parameters for inputs of at most 256 KiB): `btopt` with minMatch 6
/// and targetLength 256 instead of level 13's 4 and 16, and searchLog 1 instead of 4, or 2
/// in a block whose values repeat in runs of [`TUNED_LONG_RUNS`] or more on average (window,
/// chain and hash logs as the level's: 18, 18, 19, so the same context memory). A DTM value
/// repeats in long stretches and long patterns: one or two candidates a position with long
/// matches beat a deeper search for short ones. Measured on every 4th block (rule set 1):
/// KRNKR 3.1 % smaller in 37 % less CPU, KRNKAABB 2.1 % in 27 %, KRABKRA 8 % in 2 % (whole
/// files: KRNKR's 2.9 %, KRNKAABB's 2.1 %, the KRABKRA closure's 7.0 % smaller); with
/// searchLog 1 everywhere the small tables' DTM files, whose blocks are long runs, grew
/// (KRKR's 3 %). The WDL file keeps level 15: every shallower search measured costs bytes
/// there (searchLog 4 at any target length: +2 % on KRNKR), and none of the same size was
/// faster.
const DTM_TUNED: (u32, u32) = (6, 256);

/// Average run length (of equal bytes in a block's content) from which a DTM block is
/// searched with searchLog 2 instead of 1 (see [`DTM_TUNED`]).
const TUNED_LONG_RUNS: usize = 8;

/// Blocks whose content is longer than this are compressed with [`DTM_TUNED`] in the DTM
/// file (zstd's parameter sets change at 128 KiB; smaller blocks, a small table's or a
/// file's last, keep the level as it is, so their frames are those of level 13).
const TUNED_MIN_CONTENT: usize = 128 << 10;

/// The setting for a block of `metric` at `level` whose content (tag and values) is
/// `content`.
pub(in crate::tablebase) fn zstd_setting(
    metric: Metric,
    level: i32,
    content: &[u8],
) -> ZstdSetting {
    let tuned = match metric {
        Metric::Dtm if content.len() > TUNED_MIN_CONTENT => {
            let runs = 1 + content.windows(2).filter(|w| w[0] != w[1]).count();
            let search = if content.len() >= TUNED_LONG_RUNS * runs {
                2
            } else {
                1
            };
            Some((search, DTM_TUNED.0, DTM_TUNED.1))
        }
        _ => None,
    };
    ZstdSetting { level, tuned }
}

impl ZstdSetting {
    /// Turn `ctx`, a context of setting `from`, into one of this setting when only the
    /// search depth differs (zstd takes a parameter set between frames for the next frame;
    /// the frame is the one a new context would make). False when it cannot: a new context
    /// is then needed.
    pub(in crate::tablebase) fn retune(
        self,
        from: ZstdSetting,
        ctx: &mut zstd::bulk::Compressor<'static>,
    ) -> std::io::Result<bool> {
        match (from.tuned, self.tuned) {
            (Some((_, m0, t0)), Some((search, m1, t1)))
                if from.level == self.level && (m0, t0) == (m1, t1) =>
            {
                ctx.set_parameter(zstd::zstd_safe::CParameter::SearchLog(search))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// A compression context for this setting, with content checksums.
    pub(in crate::tablebase) fn compressor(
        self,
    ) -> std::io::Result<zstd::bulk::Compressor<'static>> {
        use zstd::zstd_safe::{CParameter, Strategy};
        let mut ctx = zstd::bulk::Compressor::new(self.level)?;
        ctx.set_parameter(CParameter::ChecksumFlag(true))?;
        if let Some((search, min_match, target)) = self.tuned {
            ctx.set_parameter(CParameter::Strategy(Strategy::ZSTD_btopt))?;
            ctx.set_parameter(CParameter::SearchLog(search))?;
            ctx.set_parameter(CParameter::MinMatch(min_match))?;
            ctx.set_parameter(CParameter::TargetLength(target))?;
        }
        Ok(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_big_dtm_blocks_are_tuned() {
        let big = TUNED_MIN_CONTENT + 1;
        // short runs (a value a position), then long ones (runs of 16)
        let short: Vec<u8> = (0..big).map(|i| (i % 7) as u8).collect();
        let long: Vec<u8> = (0..big).map(|i| (i / 16 % 7) as u8).collect();
        assert_eq!(zstd_setting(Metric::Wdl, 15, &short).tuned, None);
        assert_eq!(zstd_setting(Metric::Dtc, 12, &short).tuned, None);
        assert_eq!(zstd_setting(Metric::Dtm, 13, &short[..big - 1]).tuned, None);
        assert_eq!(
            zstd_setting(Metric::Dtm, 13, &short).tuned,
            Some((1, 6, 256))
        );
        assert_eq!(
            zstd_setting(Metric::Dtm, 13, &long).tuned,
            Some((2, 6, 256))
        );
    }

    #[test]
    fn a_retuned_context_makes_a_new_contexts_frames() {
        let big = TUNED_MIN_CONTENT + 1;
        let short: Vec<u8> = (0..big).map(|i| (i * i / 99 % 7) as u8).collect();
        let long: Vec<u8> = (0..big)
            .map(|i| (i / 16 * (i / 16) / 99 % 7) as u8)
            .collect();
        let (a, b) = (
            zstd_setting(Metric::Dtm, 13, &short),
            zstd_setting(Metric::Dtm, 13, &long),
        );
        assert_ne!(a, b);
        let mut ctx = a.compressor().unwrap();
        let first = ctx.compress(&short).unwrap();
        assert!(b.retune(a, &mut ctx).unwrap());
        assert_eq!(
            ctx.compress(&long).unwrap(),
            b.compressor().unwrap().compress(&long).unwrap()
        );
        assert!(a.retune(b, &mut ctx).unwrap());
        assert_eq!(ctx.compress(&short).unwrap(), first);
        let plain = zstd_setting(Metric::Dtm, 13, &short[..100]);
        assert!(!plain.retune(a, &mut ctx).unwrap());
        assert!(!a.retune(plain, &mut ctx).unwrap());
    }

    #[test]
    fn a_tuned_frame_is_a_plain_zstd_frame() {
        let values: Vec<u8> = (0..TUNED_MIN_CONTENT + 4_000)
            .map(|i| (i * i / 1_000 % 11) as u8)
            .collect();
        for setting in [
            zstd_setting(Metric::Dtm, 13, &values),
            zstd_setting(Metric::Wdl, 15, &values),
        ] {
            let frame = setting.compressor().unwrap().compress(&values).unwrap();
            assert_eq!(
                zstd::bulk::decompress(&frame, values.len()).unwrap(),
                values
            );
        }
    }
}
