//! The fast routes against the reference.

use super::reference::Reference;
use super::PlacementIndex;
use crate::board::{Piece, Square};

fn sorted(mut v: Vec<(Piece, Square)>) -> Vec<(Square, Piece)> {
    let mut out: Vec<_> = v.drain(..).map(|(p, s)| (s, p)).collect();
    out.sort();
    out
}

#[test]
fn quick_reference_agrees() {
    for m in [
        "KK", "KRK", "KPK", "KPKP", "KAKA", "KRKA", "KPPK", "KRRK", "KNNKAA", "KCPKA", "KRNKR",
        "KPPKAB", "KBBKP", "KPPPK",
    ] {
        let idx = PlacementIndex::new(m.parse().unwrap()).unwrap();
        let r = Reference::new(m.parse().unwrap());
        assert_eq!(r.size(), idx.size(), "{m}");
        let t = std::time::Instant::now();
        let step = (idx.size() / 1000).max(1) as usize;
        for i in (0..idx.size()).step_by(step) {
            let fast = idx.unrank_pieces(i).unwrap();
            let slow = r.unrank(i).unwrap();
            assert_eq!(sorted(fast.to_vec()), sorted(slow.clone()), "{m} {i}");
            assert_eq!(r.rank(&slow), Some(i), "{m} {i}");
        }
        eprintln!("{m}: {:?}", t.elapsed());
    }
}
