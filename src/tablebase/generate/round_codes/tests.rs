//! Tests of the rounds' codes (see the parent module).

use super::*;

/// The sparse codes show what dense codes would: a slot's byte, else won, lost or
/// illegal; by position, by word, by scan and as a checkpoint image; with the slots'
/// codes a byte each or split (there an open position's counter shows only in the
/// checkpoint image and to an update).
#[test]
fn sparse_codes_read_as_dense_ones() {
    for split in [false, true] {
        sparse_codes_as_dense(split);
    }
}

fn sparse_codes_as_dense(split: bool) {
    let n = 300;
    let dense: Vec<u8> = (0..n)
        .map(|i| match i % 5 {
            0 => code::OPEN | ((i % 7) as u8 + 1),
            1 => code::make(0, code::WIN),
            2 => code::make(0, code::LOSS),
            3 => code::ILLEGAL,
            _ => code::make(3, code::WIN),
        })
        .collect();
    // what the rounds read of a code
    let shown = |c: u8| match (split, c & code::OPEN != 0) {
        (true, true) => code::OPEN | code::COUNTER,
        _ => c,
    };
    let mut s = Slots::empty(&Backing::Heap, n, true).expect("heap");
    // the open positions and those decided in a round (order 3) have slots, the others
    // a pair each
    let mut plain = Vec::new();
    for (i, &c) in dense.iter().enumerate() {
        if c & code::OPEN != 0 || code::order(c) > 0 {
            s.open.set(i);
        } else {
            plain.push(c);
        }
    }
    s.plain = Bits::heap(2 * plain.len());
    for (p, &c) in plain.iter().enumerate() {
        if code::is_win(c) {
            s.plain.set(2 * p);
        } else if code::is_loss(c) {
            s.plain.set(2 * p + 1);
        }
    }
    s.allocate(&Backing::Heap, 0xFF).expect("heap");
    let slotted: Vec<u8> = (0..n).filter(|&i| s.has(i)).map(|i| dense[i]).collect();
    let dir = tempfile::tempdir().expect("a temporary folder");
    if split {
        let path = dir.path().join("codes.work");
        let count = s.count();
        let mut w = SplitWriter::new(&Backing::Heap, count, &path, true).expect("a file");
        for &c in &slotted {
            w.push(c).expect("written");
        }
        s.split = Some(w.finish().expect("mapped"));
    } else {
        s.codes = Bytes::new(s.bytes.len(), 0);
        for (k, &c) in slotted.iter().enumerate() {
            s.codes.set(k, c);
        }
    }
    let codes = RoundCodes { s: &s };
    for (i, &c) in dense.iter().enumerate() {
        assert_eq!(codes.get(i), shown(c), "index {i}");
        assert_eq!(codes.is_open(i), c & code::OPEN != 0, "index {i}");
    }
    for w in 0..n / 8 {
        let bytes: [u8; 8] = dense[8 * w..8 * w + 8].try_into().expect("8");
        let want = u64::from_le_bytes(bytes.map(shown));
        assert_eq!(codes.word(w), want, "word {w}");
        assert_eq!(codes.open_word(w), want & 0x8080_8080_8080_8080);
    }
    // the last word, past the end: illegal placements
    let mut last = [code::ILLEGAL; 8];
    last[..n % 8].copy_from_slice(&dense[n / 8 * 8..]);
    assert_eq!(codes.word(n / 8), u64::from_le_bytes(last.map(shown)));
    let mut image = vec![0u8; 296];
    codes.read_range(0, &mut image);
    assert_eq!(image[..], dense[..296]);
    let mut image = vec![0u8; 44];
    codes.read_range(256, &mut image);
    assert_eq!(image[..], dense[256..]);
    let mut hits = Vec::new();
    codes.scan(0, n, code::make(3, code::WIN), |i| hits.push(i));
    assert_eq!(hits, (0..n).filter(|i| i % 5 == 4).collect::<Vec<_>>());
    let mut hits = Vec::new();
    codes.scan(0, n, code::OPEN | 3, |i| hits.push(i));
    assert_eq!(hits, (0..n).filter(|i| i % 35 == 30).collect::<Vec<_>>());
    // a decided position of round 0 is never replaced; an open one is
    assert_eq!(codes.update(1, |_| None), Err(code::make(0, code::WIN)));
    assert_eq!(codes.update(0, |b| Some(b - 1)), Ok(code::OPEN | 1));
    assert_eq!(
        codes.update(0, |b| (b == code::OPEN)
            .then_some(code::make(4, code::LOSS))),
        Ok(code::OPEN)
    );
    assert_eq!(codes.get(0), code::make(4, code::LOSS));
    assert!(!codes.is_open(0) && codes.is_open(5));
    codes.set(5, code::DRAW);
    assert_eq!(codes.get(5), code::DRAW);
    assert!(!codes.is_open(5));
    assert_eq!(codes.open_word(0), 0);
    let mut image = vec![0u8; 8];
    codes.read_range(0, &mut image);
    assert_eq!(
        (image[0], image[5]),
        (code::make(4, code::LOSS), code::DRAW)
    );
}
