//! Opening books: the shared games, mirror invariance, thread independence, merge, files.

mod common;
use common::{rng, shared, shared_if_present, temp_dir};
use std::path::PathBuf;
use xqdb::board::Position;
use xqdb::book::{
    build, build_default, games_from_text, merge, write, Book, BookOptions, PickMode,
    DEFAULT_OPENINGS,
};
use xqdb::records::collection::read_collection;
use xqdb::records::Game;

fn games_of(paths: &[PathBuf]) -> Vec<Game> {
    let mut games = Vec::new();
    read_collection(paths, |g, _| games.push(g.clone()), |_| {}).unwrap();
    games
}

/// The default openings plus the wukong games (when present).
fn sample_games() -> Vec<Game> {
    let (mut games, skipped) = games_from_text(DEFAULT_OPENINGS, "openings");
    assert_eq!(skipped, 0);
    if let Some(w) = shared_if_present("wukong") {
        games.extend(games_of(&[w]));
    }
    games
}

fn book_bytes(games: &[Game], opts: &BookOptions, name: &str) -> Vec<u8> {
    let (entries, s) = build(games, opts);
    let dir = temp_dir("book");
    let p = dir.path().join(name);
    write(&p, &entries, opts, s.games_used).unwrap();
    std::fs::read(&p).unwrap()
}

#[test]
#[cfg_attr(xqdb_no_shared, ignore = "needs ../shared")]
fn the_shared_games_open_with_the_central_cannon_and_every_book_move_is_legal() {
    let games = games_of(&[shared("ccpd/ccpd-games.pgn")]);
    let opts = BookOptions::default();
    let (entries, _) = build(&games, &opts);
    let dir = temp_dir("book");
    let p = dir.path().join("ccpd.xqb");
    write(&p, &entries, &opts, games.len() as u64).unwrap();
    let book = Book::open(&p).unwrap();
    let start = Position::startpos();
    let best = book.moves(&start)[0].mv;
    assert!(
        ["h2e2", "b2e2"].contains(&best.to_string().as_str()),
        "{best}"
    );
    // every stored move of every position the games reach is legal there
    let mut checked = 0;
    for g in games.iter().take(5000) {
        let mut pos = g.start.clone();
        for &m in g.moves.iter().take(opts.max_ply as usize) {
            if let Some(stored) = book.stored_moves(&pos) {
                for b in stored {
                    let symmetric = pos.key() == pos.mirror_key();
                    assert!(
                        pos.is_legal(b.mv) || (symmetric && pos.is_legal(b.mv.mirror())),
                        "{} in {}",
                        b.mv,
                        pos.to_fen()
                    );
                    checked += 1;
                }
            }
            pos.play(m);
        }
    }
    assert!(checked > 10_000);
}

#[test]
fn a_collection_and_its_mirror_image_give_the_same_book() {
    let games = sample_games();
    let mirrored: Vec<Game> = games
        .iter()
        .map(|g| Game {
            start: g.start.mirror(),
            moves: g.moves.iter().map(|m| m.mirror()).collect(),
            ..g.clone()
        })
        .collect();
    let opts = BookOptions {
        min_games: 1,
        ..BookOptions::default()
    };
    assert_eq!(
        book_bytes(&games, &opts, "a"),
        book_bytes(&mirrored, &opts, "b")
    );
}

#[test]
fn one_and_two_threads_give_byte_identical_books() {
    let mut games = sample_games();
    if let Some(p) = shared_if_present("ccpd/ccpd-openings.pgn") {
        games.extend(games_of(&[p]));
    }
    let opts = BookOptions {
        min_games: 1,
        ..BookOptions::default()
    };
    let run = |n: usize, name: &str| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(|| book_bytes(&games, &opts, name))
    };
    assert_eq!(run(1, "t1"), run(2, "t2"));
}

#[test]
fn merge_equals_a_build_from_the_union() {
    let games = sample_games();
    let (a, b) = games.split_at(games.len() / 2);
    let opts = BookOptions {
        min_games: 1,
        ..BookOptions::default()
    };
    let dir = temp_dir("book");
    let write_book = |g: &[Game], name: &str| {
        let (entries, s) = build(g, &opts);
        let p = dir.path().join(name);
        write(&p, &entries, &opts, s.games_used).unwrap();
        p
    };
    let (pa, pb, pu) = (
        write_book(a, "ma"),
        write_book(b, "mb"),
        write_book(&games, "mu"),
    );
    let out = dir.path().join("merged");
    merge(
        &[&Book::open(&pa).unwrap(), &Book::open(&pb).unwrap()],
        &out,
    )
    .unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&pu).unwrap());
}

#[test]
fn the_default_book_answers_the_start_position() {
    let dir = temp_dir("book");
    let p = dir.path().join("default.xqb");
    let s = build_default(&p).unwrap();
    assert!(s.positions > 20);
    let book = Book::open(&p).unwrap();
    let start = Position::startpos();
    let moves = book.moves(&start);
    assert!(["h2e2", "b2e2"].contains(&moves[0].mv.to_string().as_str()));
    let mut rng = rng(5);
    for _ in 0..20 {
        let m = book.pick(&start, &mut rng, PickMode::Weighted).unwrap();
        assert!(start.is_legal(m));
    }
    assert!(book.moves(&start.after("h2e2".parse().unwrap())).len() >= 2);
}

#[test]
fn a_corrupt_book_gives_a_clear_error() {
    let dir = temp_dir("book");
    let p = dir.path().join("corrupt.xqb");
    build_default(&p).unwrap();
    let mut bytes = std::fs::read(&p).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x40;
    std::fs::write(&p, &bytes).unwrap();
    assert!(Book::open(&p).unwrap_err().to_string().contains("checksum"));
    std::fs::write(&p, &bytes[..n - 5]).unwrap();
    assert!(Book::open(&p).unwrap_err().to_string().contains("size"));
    std::fs::write(&p, b"not a book").unwrap();
    assert!(Book::open(&p)
        .unwrap_err()
        .to_string()
        .contains("not an xqdb book"));
}
