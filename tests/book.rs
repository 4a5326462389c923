//! Opening books: the shared games, mirror invariance, thread independence, merge, files.

mod common;
use common::{rng, shared, shared_if_present, temp_dir};
use std::path::PathBuf;
use xqdb::board::Position;
use xqdb::book::{
    build, build_default, games_from_text, merge, write, Book, BookOptions, PickMode, Weighting,
    DEFAULT_OPENINGS,
};
use xqdb::records::collection::read_collection;
use xqdb::records::Game;

/// A file name in the system's temporary folder, unique to this process.
fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("xqdb-book-{}-{name}", std::process::id()))
}

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

/// A collection and its mirror image give the same book up to orientation: every position
/// has the mirror image of the moves of its mirror image (in symmetric positions the moves
/// stay as played, so there each book has the other's moves mirrored).
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
    let (pa, pb) = (tmp("mirror-a"), tmp("mirror-b"));
    for (g, p) in [(&games, &pa), (&mirrored, &pb)] {
        let (entries, s) = build(g, &opts);
        write(p, &entries, &opts, s.games_used).unwrap();
    }
    let (a, b) = (Book::open(&pa).unwrap(), Book::open(&pb).unwrap());
    assert_eq!(a.positions(), b.positions());
    assert_eq!(a.move_count(), b.move_count());
    let mut checked = 0;
    for g in &games {
        let mut pos = g.start.clone();
        for &m in g.moves.iter().take(opts.max_ply as usize) {
            let mine = a.moves(&pos);
            let mut theirs: Vec<_> = b
                .moves(&pos.mirror())
                .into_iter()
                .map(|mut x| {
                    x.mv = x.mv.mirror();
                    x
                })
                .collect();
            theirs.sort_by_key(|x| {
                (
                    std::cmp::Reverse(x.weight),
                    std::cmp::Reverse(x.games),
                    x.mv,
                )
            });
            let mut mine_sorted = mine.clone();
            mine_sorted.sort_by_key(|x| {
                (
                    std::cmp::Reverse(x.weight),
                    std::cmp::Reverse(x.games),
                    x.mv,
                )
            });
            assert_eq!(mine_sorted, theirs, "{}", pos.to_fen());
            checked += 1;
            pos.play(m);
        }
    }
    // every position of every game up to the book's depth was compared (92 of the embedded
    // games alone)
    let plies: usize = games
        .iter()
        .map(|g| g.moves.len().min(opts.max_ply as usize))
        .sum();
    assert_eq!(checked, plies);
    assert!(checked >= 90, "only {checked} positions compared");
    let _ = (std::fs::remove_file(pa), std::fs::remove_file(pb));
}

/// Regression: in a symmetric position the book showed the mirror image of the move the
/// games played (b2e2 for 炮二平五) and played either at random.
#[test]
fn the_book_shows_the_orientation_the_games_played() {
    let (games, _) = games_from_text(
        "[Result \"1-0\"]\n1. 炮二平五 马８进７ 1-0\n[Result \"1-0\"]\n1. 炮二平五 马２进３ 1-0\n[Result \"0-1\"]\n1. 炮八平五 马８进７ 0-1\n",
        "t",
    );
    let opts = BookOptions {
        min_games: 1,
        ..BookOptions::default()
    };
    let (entries, s) = build(&games, &opts);
    let p = tmp("orient");
    write(&p, &entries, &opts, s.games_used).unwrap();
    let book = Book::open(&p).unwrap();
    let start = Position::startpos();
    let moves = book.moves(&start);
    let shown: Vec<(String, u32)> = moves.iter().map(|m| (m.mv.to_string(), m.games)).collect();
    assert_eq!(
        shown,
        [("h2e2".to_string(), 2), ("b2e2".to_string(), 1)],
        "{moves:?}"
    );
    let mut rng = rand::rngs::mock::StepRng::new(0, 1);
    assert_eq!(
        book.pick(&start, &mut rng, PickMode::Best)
            .unwrap()
            .to_string(),
        "h2e2"
    );
    // after 炮二平五 the book answers in that orientation too
    let after = start.after("h2e2".parse().unwrap());
    let replies: Vec<String> = book
        .moves(&after)
        .iter()
        .map(|m| m.mv.to_string())
        .collect();
    assert!(
        replies.contains(&"h9g7".to_string()) && replies.contains(&"b9c7".to_string()),
        "{replies:?}"
    );
    let _ = std::fs::remove_file(&p);
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
        None,
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

/// Regression: `book merge` of books with different weightings silently kept the first
/// book's name for sums of unlike weights; it refuses now unless a weighting is chosen, and
/// then recomputes every weight.
#[test]
fn merging_books_of_different_weightings_needs_a_choice() {
    let games = sample_games();
    let mk = |w: Weighting, name: &str| {
        let opts = BookOptions {
            min_games: 1,
            weighting: w,
            ..BookOptions::default()
        };
        let (entries, s) = build(&games, &opts);
        let p = tmp(name);
        write(&p, &entries, &opts, s.games_used).unwrap();
        p
    };
    let (ps, pg) = (
        mk(Weighting::Score, "w-score"),
        mk(Weighting::Games, "w-games"),
    );
    let (bs, bg) = (Book::open(&ps).unwrap(), Book::open(&pg).unwrap());
    let out = tmp("w-out");
    let err = merge(&[&bs, &bg], &out, None).unwrap_err().to_string();
    assert!(err.contains("score") && err.contains("games"), "{err}");
    assert!(!out.exists());
    merge(&[&bs, &bg], &out, Some(Weighting::Games)).unwrap();
    let m = Book::open(&out).unwrap();
    assert_eq!(m.options.weighting, Weighting::Games);
    for e in m.entries() {
        for mv in e.moves {
            assert_eq!(
                mv.weight, mv.games,
                "weights recomputed from the summed counts"
            );
        }
    }
    for p in [ps, pg, out] {
        let _ = std::fs::remove_file(p);
    }
}

/// Rewrite a book's checksum after an edit.
fn reseal(bytes: &mut [u8]) {
    let mut crc = crc32fast::Hasher::new();
    crc.update(&bytes[..56]);
    crc.update(&bytes[64..]);
    let c = crc.finalize();
    bytes[56..60].copy_from_slice(&c.to_le_bytes());
}

/// Regression: reserved header bytes were not looked at (60..64 is outside the checksum),
/// and a move record with more results than games made `games - wins - draws - losses`
/// wrap (release builds) into a huge weight.
#[test]
fn reserved_bytes_and_impossible_counts_make_a_book_corrupt() {
    let p = tmp("reserved.xqb");
    build_default(&p).unwrap();
    let good = std::fs::read(&p).unwrap();
    for at in [41usize, 47, 60, 63] {
        let mut bytes = good.clone();
        bytes[at] = 7;
        reseal(&mut bytes);
        std::fs::write(&p, &bytes).unwrap();
        let err = Book::open(&p).unwrap_err().to_string();
        assert!(err.contains("reserved"), "byte {at}: {err}");
    }
    let positions = u64::from_le_bytes(good[16..24].try_into().unwrap()) as usize;
    let first_move = 64 + positions * 16;
    let mut bytes = good.clone();
    // wins of the first move record = games + 1
    let games = u32::from_le_bytes(bytes[first_move + 4..first_move + 8].try_into().unwrap());
    bytes[first_move + 8..first_move + 12].copy_from_slice(&(games + 1).to_le_bytes());
    reseal(&mut bytes);
    std::fs::write(&p, &bytes).unwrap();
    let err = Book::open(&p).unwrap_err().to_string();
    assert!(err.contains("move record 0"), "{err}");
    let _ = std::fs::remove_file(&p);
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

/// The embedded repertoire: it reads, every move is legal on its path, it offers far more
/// distinct 8-ply openings than a 200-game match (100 pairs) uses, and the hand-written
/// line that dropped a rook (b2d2 h9g7 b0c2 i9h9, h2h9 wins it) is not in it.
#[test]
fn the_default_repertoire_is_sound_and_varied() {
    use xqdb::book::repertoire::Repertoire;
    let rep = Repertoire::parse(xqdb::book::DEFAULT_REPERTOIRE).unwrap();
    assert!(rep.nodes.len() > 500, "{}", rep.nodes.len());
    assert!(rep.distinct_lines(8) >= 200, "{}", rep.distinct_lines(8));
    let dir = temp_dir("book");
    let p = dir.path().join("default.xqb");
    build_default(&p).unwrap();
    let book = Book::open(&p).unwrap();
    let mut pos = Position::startpos();
    for m in ["b2d2", "h9g7", "b0c2"] {
        pos.play(m.parse().unwrap());
    }
    let rook_drop: xqdb::board::Move = "i9h9".parse().unwrap();
    assert!(book.moves(&pos).iter().all(|m| m.mv != rook_drop));
    // every book move of every position the book reaches within 8 plies is legal
    let mut stack = vec![(Position::startpos(), 0)];
    let mut seen = 0;
    while let Some((p, d)) = stack.pop() {
        if d == 8 {
            continue;
        }
        for m in book.moves(&p) {
            assert!(p.is_legal(m.mv), "{} in {}", m.mv, p.to_fen());
            seen += 1;
            stack.push((p.after(m.mv), d + 1));
        }
    }
    assert!(seen > 1000, "{seen}");
}

/// The check drops a move that loses material outright: games that all play the rook-losing
/// i9h9 after b2d2 h9g7 b0c2, beside a sound move with the same count.
#[test]
fn the_repertoire_check_drops_a_move_that_loses_a_rook() {
    use xqdb::book::repertoire::{derive, RepertoireOptions};
    let mut text = String::new();
    for last in ["i9h9", "c6c5", "i9h9", "c6c5"] {
        text.push_str(&format!(
            "[Result \"*\"]\n1. b2d2 h9g7 2. b0c2 {last} *\n\n"
        ));
    }
    let (games, skipped) = games_from_text(&text, "t");
    assert_eq!(skipped, 0);
    let opts = RepertoireOptions {
        min_games: 2,
        max_ply: 8,
        check_depth: 4,
        margin: 150,
    };
    let (entries, _) = build(&games, &xqdb::book::repertoire::book_options(&opts));
    let rep = derive(&entries, &opts);
    assert_eq!(rep.dropped.len(), 1, "{:?}", rep.dropped);
    assert_eq!(rep.dropped[0].mv.to_string(), "i9h9");
    // at least the margin (the tuned middle-game rook is worth 468 cp, less what the
    // depth-4 search finds in return)
    assert!(rep.dropped[0].loss >= opts.margin, "{:?}", rep.dropped);
    let last = rep.nodes.last().unwrap();
    assert_eq!(last.path.len(), 3);
    assert_eq!(last.moves.len(), 1);
    assert_eq!(last.moves[0].mv.to_string(), "c6c5");
    // the text form reads back to the same tree
    let again = xqdb::book::repertoire::Repertoire::parse(&rep.to_text("a\nb")).unwrap();
    assert_eq!(again.nodes, rep.nodes);
    // bad text names the line
    let err =
        xqdb::book::repertoire::Repertoire::parse("# x\n: h2e2/3/1/1/1\nh2e2 : e0e2/1/0/0/0\n")
            .unwrap_err()
            .to_string();
    assert!(err.contains("line 3") && err.contains("e0e2"), "{err}");
}

/// `xqdb book repertoire` on the shared collection gives the embedded file again, byte for
/// byte (the derivation is deterministic: fixed-depth searches, fresh tables).
#[test]
#[cfg_attr(xqdb_no_shared, ignore = "needs ../shared")]
fn the_repertoire_command_regenerates_the_embedded_file() {
    let dir = temp_dir("book");
    let out = dir.path().join("repertoire.txt");
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_xqdb"))
        .args(["-q", "book", "repertoire"])
        .arg(shared("ccpd/ccpd-games.pgn"))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(
        std::fs::read_to_string(&out).unwrap() == xqdb::book::DEFAULT_REPERTOIRE,
        "data/repertoire.txt differs from what the command derives"
    );
}
