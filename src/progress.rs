//! Progress of long jobs, reported to the caller: the library never draws anything. The
//! command line turns the reports into progress bars (`src/cli/ui.rs`); other callers pass
//! [`Silent`] or their own [`Progress`].
//!
//! A job is a sequence of phases. Each phase has a number of steps (0 when not known in
//! advance), may say where it is (`level 12`), advances step by step (from worker threads
//! too) and ends.

/// Receives the progress of a long job. Steps are reported from worker threads, hence
/// `Sync`.
pub trait Progress: Sync {
    /// A phase begins: `job` is what the work is for (a material, a file), `phase` what is
    /// being done, `steps` how many steps it has (0: not known in advance).
    fn begin(&self, job: &str, phase: &str, steps: u64);
    /// The current phase says where it is (replaces the phase's name in a display).
    fn status(&self, text: &str);
    /// `n` more steps of the current phase are done.
    fn advance(&self, n: u64);
    /// The current phase has ended.
    fn end(&self);
}

/// Reports nothing.
#[derive(Copy, Clone, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn begin(&self, _job: &str, _phase: &str, _steps: u64) {}
    fn status(&self, _text: &str) {}
    fn advance(&self, _n: u64) {}
    fn end(&self) {}
}

/// One phase of a job on a [`Progress`]: begun when made, ended by [`Phase::end`] or when
/// dropped (so a phase left by an error ends too).
pub struct Phase<'a> {
    sink: &'a dyn Progress,
}

impl<'a> Phase<'a> {
    /// Begin a phase (see [`Progress::begin`]).
    pub fn begin(sink: &'a dyn Progress, job: &str, phase: &str, steps: u64) -> Phase<'a> {
        sink.begin(job, phase, steps);
        Phase { sink }
    }

    /// Say where the phase is (see [`Progress::status`]).
    pub fn status(&self, text: &str) {
        self.sink.status(text);
    }

    /// `n` more steps done.
    pub fn inc(&self, n: u64) {
        self.sink.advance(n);
    }

    /// End the phase.
    pub fn end(self) {}
}

impl Drop for Phase<'_> {
    fn drop(&mut self) {
        self.sink.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records every report as a line.
    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Progress for Log {
        fn begin(&self, job: &str, phase: &str, steps: u64) {
            self.0
                .lock()
                .unwrap()
                .push(format!("begin {job} {phase} {steps}"));
        }
        fn status(&self, text: &str) {
            self.0.lock().unwrap().push(format!("status {text}"));
        }
        fn advance(&self, n: u64) {
            self.0.lock().unwrap().push(format!("advance {n}"));
        }
        fn end(&self) {
            self.0.lock().unwrap().push("end".into());
        }
    }

    #[test]
    fn a_phase_ends_once_whether_ended_or_dropped() {
        let log = Log::default();
        let p = Phase::begin(&log, "KRK", "start", 3);
        p.inc(2);
        p.status("level 1");
        p.end();
        {
            let _q = Phase::begin(&log, "KRK", "levels", 0);
        }
        assert_eq!(
            *log.0.lock().unwrap(),
            [
                "begin KRK start 3",
                "advance 2",
                "status level 1",
                "end",
                "begin KRK levels 0",
                "end"
            ]
        );
    }
}
