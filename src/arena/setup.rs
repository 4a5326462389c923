//! A match as a person describes it (`xqdb match`'s arguments: engine command lines,
//! `N:NAME=VALUE` engine options, a `BASE+INC` time control, a book or a file of openings),
//! checked and turned into a [`MatchConfig`].

use super::process::EngineSpec;
use super::{MatchConfig, MatchError, Openings, TimeControl};
use std::path::PathBuf;
use std::str::FromStr;

/// The set-up of a match as given on the command line (the arguments of `xqdb match`, but
/// `--pgn`). [`MatchSetup::config`] checks it.
#[derive(Clone, Debug, clap::Args)]
pub struct MatchSetup {
    /// An engine command line, quoted (e.g. "target/release/xqdb engine"); give two.
    #[arg(long = "engine", required = true, num_args = 1)]
    pub engines: Vec<String>,
    /// Engine option as N:NAME=VALUE (N = 1 or 2).
    #[arg(long = "option")]
    pub options: Vec<String>,
    /// Protocol of an engine as N:uci or N:ucci (N = 1 or 2); otherwise detected.
    #[arg(long = "protocol")]
    pub protocols: Vec<String>,
    /// Time control: base+increment in seconds (e.g. 10+0.1).
    #[arg(long)]
    pub tc: Option<String>,
    /// Fixed time per move in milliseconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// Fixed nodes per move.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: Option<u32>,
    /// Games (played in pairs with colours swapped).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Opening book for random weighted openings (default: books/default.xqb under
    /// $XQDB_HOME when it exists, which `xqdb setup` writes; else every game starts from the
    /// initial position).
    #[arg(long)]
    pub book: Option<PathBuf>,
    /// Plies taken from the book.
    #[arg(long, default_value_t = 8)]
    pub book_plies: usize,
    /// File of start positions (one FEN per line).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub concurrency: u16,
    /// Seed of the opening choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Tablebase folder for adjudication.
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Draw after this many plies.
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Natural limit: draw after this many plies without a capture (some engines count 100).
    #[arg(long, default_value_t = super::NATURAL_LIMIT)]
    pub natural_limit: usize,
}

impl MatchSetup {
    /// The command line's defaults with these two engines.
    pub fn new(engine1: &str, engine2: &str) -> MatchSetup {
        MatchSetup {
            engines: vec![engine1.to_string(), engine2.to_string()],
            options: Vec::new(),
            protocols: Vec::new(),
            tc: None,
            movetime: None,
            nodes: None,
            depth: None,
            games: 2,
            book: None,
            book_plies: 8,
            openings: None,
            concurrency: 1,
            seed: 1,
            tables: None,
            max_plies: 400,
            natural_limit: super::NATURAL_LIMIT,
        }
    }

    /// The openings: of the file, else of the book, else of `books`' default.xqb when it
    /// exists (`xqdb setup` writes it), else the start position.
    fn choose_openings(&self, books: &std::path::Path) -> Result<Openings, SetupError> {
        Ok(if let Some(f) = &self.openings {
            Openings::from_fen_file(f)?
        } else if let Some(b) = &self.book {
            Openings::Book {
                path: b.clone(),
                plies: self.book_plies,
            }
        } else {
            let default = books.join("default.xqb");
            if default.is_file() {
                Openings::Book {
                    path: default,
                    plies: self.book_plies,
                }
            } else {
                Openings::Start
            }
        })
    }

    /// The match: two engines with their options; the time control of `tc`, else
    /// `movetime`, else `nodes`, else `depth`, else 10+0.1; the openings of the file, else
    /// of the book, else the start position. An openings file is read (and every FEN in it
    /// checked) here; engines and the book are checked when the match starts.
    pub fn config(&self) -> Result<MatchConfig, SetupError> {
        let mut engines = engine_specs(&self.engines, &self.options)?;
        for p in &self.protocols {
            let bad = |why: String| SetupError::Protocol(p.clone(), why);
            let (n, name) = p
                .split_once(':')
                .ok_or_else(|| bad("use N:uci or N:ucci with N 1 or 2".into()))?;
            let i: usize = n
                .trim()
                .parse()
                .map_err(|_| bad("use N:uci or N:ucci with N 1 or 2".into()))?;
            let spec = engines
                .get_mut(i.wrapping_sub(1))
                .ok_or_else(|| bad("use N:uci or N:ucci with N 1 or 2".into()))?;
            spec.protocol = Some(name.parse().map_err(bad)?);
        }
        let tc = if let Some(t) = &self.tc {
            t.parse().map_err(|why| SetupError::TimeControl {
                text: t.clone(),
                why,
            })?
        } else if let Some(m) = self.movetime {
            TimeControl::MoveTime(m)
        } else if let Some(n) = self.nodes {
            TimeControl::Nodes(n)
        } else if let Some(d) = self.depth {
            TimeControl::Depth(d)
        } else {
            TimeControl::Clock {
                base_ms: 10_000,
                inc_ms: 100,
            }
        };
        let openings = self.choose_openings(&crate::paths::books_dir())?;
        Ok(MatchConfig {
            engines,
            tc,
            games: self.games,
            openings,
            concurrency: self.concurrency as usize,
            seed: self.seed,
            tables: self.tables.clone(),
            max_plies: self.max_plies,
            natural_limit: self.natural_limit,
        })
    }
}

/// Why a match set-up is refused.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// Not exactly two engines.
    #[error("a match needs two --engine, got {0}")]
    EngineCount(usize),
    /// An engine command line with no command.
    #[error("empty engine command '{0}'")]
    EmptyEngine(String),
    /// An engine option not of the form `N:NAME=VALUE` with N 1 or 2.
    #[error("bad --option '{0}': use N:NAME=VALUE with N 1 or 2")]
    EngineOption(String),
    /// A `--protocol` that is not `N:uci` or `N:ucci` with N 1 or 2.
    #[error("bad --protocol '{0}': {1}")]
    Protocol(String, String),
    /// A time control that is not `BASE+INC`.
    #[error("bad --tc '{text}': {why}")]
    TimeControl {
        /// As given.
        text: String,
        /// What is wrong with it.
        why: TimeControlError,
    },
    /// An openings file that cannot be read, or a line of it that is not a legal position.
    #[error(transparent)]
    Openings(#[from] MatchError),
}

/// What is wrong with a `BASE+INC` time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// A part is not a number of seconds from 0 to a day.
    #[error("use BASE+INC in seconds, each from 0 to 86400")]
    Syntax,
    /// The base time is 0.
    #[error("the base time must be above 0")]
    NoBase,
}

/// The longest base time or increment, in seconds: a day.
const MAX_SECONDS: f64 = 86_400.0;

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// `BASE+INC` (or `BASE`, no increment) in seconds, both finite, from 0 to a day, the
    /// base above 0: a [`TimeControl::Clock`] (rounded to milliseconds).
    fn from_str(t: &str) -> Result<TimeControl, TimeControlError> {
        let (b, i) = t.split_once('+').unwrap_or((t, "0"));
        let ms = |x: &str| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && (0.0..=MAX_SECONDS).contains(v))
                .map(|v| (v * 1000.0).round() as u64)
                .ok_or(TimeControlError::Syntax)
        };
        let base_ms = ms(b)?;
        if base_ms == 0 {
            return Err(TimeControlError::NoBase);
        }
        Ok(TimeControl::Clock {
            base_ms,
            inc_ms: ms(i)?,
        })
    }
}

/// The two engines of `commands` (command lines split at spaces), with `options` (each
/// `N:NAME=VALUE`, set on engine N after the handshake, in the order given).
pub fn engine_specs(
    commands: &[String],
    options: &[String],
) -> Result<[EngineSpec; 2], SetupError> {
    let [a, b] = commands else {
        return Err(SetupError::EngineCount(commands.len()));
    };
    let spec = |e: &String| EngineSpec::parse(e).ok_or_else(|| SetupError::EmptyEngine(e.clone()));
    let mut specs = [spec(a)?, spec(b)?];
    for o in options {
        let bad = || SetupError::EngineOption(o.clone());
        let (n, rest) = o.split_once(':').ok_or_else(bad)?;
        let (k, v) = rest.split_once('=').ok_or_else(bad)?;
        let i: usize = n.trim().parse().map_err(|_| bad())?;
        if k.trim().is_empty() {
            return Err(bad());
        }
        specs
            .get_mut(i.wrapping_sub(1))
            .ok_or_else(bad)?
            .options
            .push((k.to_string(), v.to_string()));
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(args: &[&str]) -> MatchSetup {
        let mut s = MatchSetup::new("xqdb engine", "other --uci");
        let mut it = args.iter();
        while let Some(&flag) = it.next() {
            let v = it.next().expect("a value after each flag").to_string();
            match flag {
                "--option" => s.options.push(v),
                "--tc" => s.tc = Some(v),
                "--openings" => s.openings = Some(v.into()),
                "--book" => s.book = Some(v.into()),
                "--movetime" => s.movetime = Some(v.parse().unwrap()),
                other => panic!("not a flag of these tests: {other}"),
            }
        }
        s
    }

    fn error(args: &[&str]) -> String {
        match setup(args).config() {
            Ok(c) => panic!("{args:?} accepted: {c:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn time_controls_parse_to_milliseconds() {
        let clock = |t: &str| match t.parse::<TimeControl>() {
            Ok(TimeControl::Clock { base_ms, inc_ms }) => (base_ms, inc_ms),
            other => panic!("{t}: {other:?}"),
        };
        assert_eq!(clock("10+0.1"), (10_000, 100));
        assert_eq!(clock("5"), (5_000, 0));
        assert_eq!(clock(" 2 + 0.02 "), (2_000, 20));
        assert_eq!(clock("86400+86400"), (86_400_000, 86_400_000));
        assert_eq!(clock("0.0005+0"), (1, 0), "rounded to the millisecond");
    }

    #[test]
    fn time_controls_out_of_range_are_refused() {
        for bad in [
            "-1+0", "1e300+0", "NaN", "10+-1", "inf", "10+x", "", "+", "86401",
        ] {
            assert_eq!(
                bad.parse::<TimeControl>().unwrap_err(),
                TimeControlError::Syntax,
                "{bad}"
            );
        }
        for zero in ["0+1", "0", "0.0001+0"] {
            assert_eq!(
                zero.parse::<TimeControl>().unwrap_err(),
                TimeControlError::NoBase,
                "{zero}"
            );
        }
        assert_eq!(
            error(&["--tc", "10+x"]),
            "bad --tc '10+x': use BASE+INC in seconds, each from 0 to 86400"
        );
        assert_eq!(
            error(&["--tc", "0+1"]),
            "bad --tc '0+1': the base time must be above 0"
        );
    }

    #[test]
    fn the_time_control_is_chosen_in_order() {
        let tc = |args: &[&str]| setup(args).config().unwrap().tc;
        assert!(matches!(
            tc(&[]),
            TimeControl::Clock {
                base_ms: 10_000,
                inc_ms: 100
            }
        ));
        assert!(matches!(
            tc(&["--movetime", "50"]),
            TimeControl::MoveTime(50)
        ));
        assert!(matches!(
            tc(&["--movetime", "50", "--tc", "1+0"]),
            TimeControl::Clock {
                base_ms: 1_000,
                inc_ms: 0
            }
        ));
    }

    #[test]
    fn engine_options_go_to_the_engine_named() {
        let c = setup(&["--option", "2:Hash=16", "--option", "1:UCI_Variant=xiangqi"])
            .config()
            .unwrap();
        assert_eq!(c.engines[0].cmd, "xqdb");
        assert_eq!(c.engines[0].args, ["engine"]);
        assert_eq!(
            c.engines[0].options,
            [("UCI_Variant".to_string(), "xiangqi".to_string())]
        );
        assert_eq!(c.engines[1].cmd, "other");
        assert_eq!(
            c.engines[1].options,
            [("Hash".to_string(), "16".to_string())]
        );
        // a value may hold '=' and ':'
        let c = setup(&["--option", "1:BookFile=a=b:c"]).config().unwrap();
        assert_eq!(c.engines[0].options[0].1, "a=b:c");
    }

    #[test]
    fn bad_engine_options_are_refused_by_name() {
        for bad in [
            "Hash=16",
            "3:Hash=16",
            "0:Hash=16",
            "x:Hash=16",
            "1:Hash",
            "1:=16",
            "",
        ] {
            assert_eq!(
                error(&["--option", bad]),
                format!("bad --option '{bad}': use N:NAME=VALUE with N 1 or 2"),
            );
        }
    }

    #[test]
    fn two_engines_with_commands_are_needed() {
        let mut s = setup(&[]);
        s.engines.pop();
        assert_eq!(
            s.config().unwrap_err().to_string(),
            "a match needs two --engine, got 1"
        );
        s.engines = vec!["a".into(), "  ".into()];
        assert_eq!(
            s.config().unwrap_err().to_string(),
            "empty engine command '  '"
        );
    }

    #[test]
    fn openings_come_from_the_file_else_the_book_else_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("openings.txt");
        std::fs::write(&f, "# two\n3k5/9/9/9/9/9/9/9/9/4K3R w\n\nstartpos\n").unwrap();
        let fs = f.to_str().unwrap();
        match setup(&["--openings", fs, "--book", "b.xqb"])
            .config()
            .unwrap()
            .openings
        {
            Openings::Fens(list) => assert_eq!(list, ["3k5/9/9/9/9/9/9/9/9/4K3R w", "startpos"]),
            other => panic!("{other:?}"),
        }
        match setup(&["--book", "b.xqb"]).config().unwrap().openings {
            Openings::Book { path, plies } => {
                assert_eq!(path, std::path::Path::new("b.xqb"));
                assert_eq!(plies, 8);
            }
            other => panic!("{other:?}"),
        }
        // without either: the default book of the books folder when there is one
        let books = dir.path().join("books");
        assert!(matches!(
            setup(&[]).choose_openings(&books).unwrap(),
            Openings::Start
        ));
        std::fs::create_dir(&books).unwrap();
        std::fs::write(books.join("default.xqb"), b"").unwrap();
        match setup(&[]).choose_openings(&books).unwrap() {
            Openings::Book { path, plies } => {
                assert_eq!(path, books.join("default.xqb"));
                assert_eq!(plies, 8);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_openings_files_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("openings.txt");
        let fs = f.to_str().unwrap();
        let missing = error(&["--openings", fs]);
        assert!(missing.starts_with(&format!("{fs}: ")), "{missing}");
        std::fs::write(&f, "3k5/9/9/9/9/9/9/9/9/4K3R w\n# a comment\nnot a fen\n").unwrap();
        let e = error(&["--openings", fs]);
        assert!(
            e.starts_with(&format!("{fs}: line 3: 'not a fen': ")),
            "{e}"
        );
        std::fs::write(&f, "# nothing\n\n").unwrap();
        assert_eq!(
            error(&["--openings", fs]),
            format!("{fs}: no FEN in the file")
        );
        std::fs::write(&f, b"3k5/9/9/9/9/9/9/9/9/4K3R w\n\xff\n").unwrap();
        let e = error(&["--openings", fs]);
        assert!(e.contains("not UTF-8 text (byte 27)"), "{e}");
    }
}
