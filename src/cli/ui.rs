//! What a person sees: colours only on a terminal (and never with `NO_COLOR` or
//! `--no-color`), progress bars only on a terminal and never with `--quiet`, details only
//! with `--verbose`.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use xqdb::progress::Progress;

/// Output settings of one command.
#[derive(Clone, Copy, Debug)]
pub struct Ui {
    /// ANSI colours on standard output.
    pub color: bool,
    /// Nothing but errors (and the answers a command exists to give).
    pub quiet: bool,
    /// Details.
    pub verbose: bool,
    /// Progress bars on standard error.
    pub bars: bool,
}

impl Ui {
    /// From the global flags and the environment.
    pub fn new(no_color: bool, quiet: bool, verbose: bool) -> Ui {
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ui {
            color: !no_color && !no_color_env && std::io::stdout().is_terminal(),
            quiet,
            verbose: verbose && !quiet,
            bars: !quiet && std::io::stderr().is_terminal(),
        }
    }

    fn bar(&self, len: u64, template: &str) -> ProgressBar {
        if !self.bars {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::new(len);
        pb.set_style(
            ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> "),
        );
        pb
    }

    /// A bar over a number of items.
    pub fn count_bar(&self, total: u64, what: &str) -> ProgressBar {
        let pb = self.bar(
            total,
            "{msg:<12} [{bar:40}] {pos}/{len} {elapsed} (eta {eta})",
        );
        pb.set_message(what.to_string());
        pb
    }

    fn phases(&self, template: &'static str) -> PhaseBars {
        PhaseBars {
            show: self.bars,
            template,
            bar: Mutex::new(ProgressBar::hidden()),
        }
    }

    /// Bars for the phases of a generation (hidden unless bars are drawn).
    pub fn phase_bars(&self) -> PhaseBars {
        self.phases("{prefix:>8} {msg:<26} [{bar:30}] {pos}/{len} {elapsed}")
    }

    /// Bars for reading game records, a step per byte (hidden unless bars are drawn).
    pub fn reading_bars(&self) -> PhaseBars {
        self.phases("{msg:<12} [{bar:40}] {bytes}/{total_bytes} {elapsed} (eta {eta})")
    }
}

/// Draws the phases a library job reports ([`Progress`]) as bars, one per phase (the job is
/// the bar's prefix, the phase or its status the message).
pub struct PhaseBars {
    show: bool,
    template: &'static str,
    bar: Mutex<ProgressBar>,
}

impl PhaseBars {
    /// Print a notice line on standard error without tearing the bar.
    pub fn notice(&self, text: &str) {
        self.bar().suspend(|| eprintln!("{text}"));
    }

    /// The current bar (a poisoned lock only means a panic while drawing: the bar is fine).
    fn bar(&self) -> std::sync::MutexGuard<'_, ProgressBar> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Progress for PhaseBars {
    fn begin(&self, job: &str, phase: &str, steps: u64) {
        if !self.show {
            return;
        }
        // a phase of unknown length (retrograde levels, rule rounds) gets a spinner and a
        // count, not a bar that would stand full at "12/0"
        let pb = if steps == 0 {
            let pb = ProgressBar::new_spinner();
            pb.set_style(
                ProgressStyle::with_template("{prefix:>8} {msg:<26} {spinner} {pos} {elapsed}")
                    .expect("valid template"),
            );
            pb.enable_steady_tick(std::time::Duration::from_millis(200));
            pb
        } else {
            let pb = ProgressBar::new(steps);
            pb.set_style(
                ProgressStyle::with_template(self.template)
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            pb
        };
        pb.set_prefix(job.to_string());
        pb.set_message(phase.to_string());
        *self.bar() = pb;
    }

    fn status(&self, text: &str) {
        if self.show {
            self.bar().set_message(text.to_string());
        }
    }

    fn advance(&self, n: u64) {
        if self.show {
            self.bar().inc(n);
        }
    }

    fn end(&self) {
        if self.show {
            self.bar().finish_and_clear();
        }
    }
}

/// A size in bytes for people: `230 B`, `4.1 KB`, `1.6 MB`, `2.3 GB`.
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} B")
    } else if b < 1e6 {
        format!("{:.1} KB", b / 1e3)
    } else if b < 1e9 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} GB", b / 1e9)
    }
}

/// Worker threads: the `--threads` range (more only slows a machine down).
pub const MAX_THREADS: u16 = 256;

/// Size the global thread pool (a no-op without `n`).
pub fn init_threads(n: Option<u16>) {
    if let Some(n) = n {
        // Only fails if a pool was built already, in which case it stays as it is.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global();
    }
}
