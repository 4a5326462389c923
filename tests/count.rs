//! Exact counting: two independent whole-game methods, and per-material figures.

mod common;
use num_bigint::BigUint;
use xqdb::board::Setup;
use xqdb::index::count::{count_material, total_by_dp, total_by_materials, PUBLISHED_2019};
use xqdb::index::{Material, PlacementIndex};

#[test]
fn per_material_counts_sum_to_the_dp_total() {
    let dp = total_by_dp();
    let (sum, n) = total_by_materials();
    assert_eq!(n, 1458 * 1458);
    assert_eq!(dp, sum);
    assert_eq!(dp.to_string(), "7583767311308936928441671793917387439659");
    // the 2019 figure undercounts
    let published: num_bigint::BigUint = PUBLISHED_2019.parse().unwrap();
    assert!(dp > published);
}

/// Placements, symmetric ones and mirror classes counted by brute force: every piece on
/// every point it can reach (see `common::all_placements`).
fn brute_counts(m: Material) -> (u64, u64, u64) {
    let all = common::all_placements(m);
    let key = |s: &Setup| s.pieces().collect::<Vec<_>>();
    let symmetric = all.iter().filter(|s| key(s) == key(&s.mirror())).count() as u64;
    let n = all.len() as u64;
    (n, symmetric, (n + symmetric) / 2)
}

#[test]
fn material_counts_equal_brute_force_enumeration() {
    let mut mats = Material::all_up_to(2);
    mats.extend(["KAABKB", "KPKAA", "KCAKB"].map(|m| m.parse::<Material>().unwrap()));
    for m in mats {
        let (placements, symmetric, classes) = brute_counts(m);
        let c = count_material(&m);
        assert_eq!(c.placements, BigUint::from(placements), "{m}");
        assert_eq!(c.symmetric, symmetric as u128, "{m}");
        assert_eq!(c.mirror_classes, BigUint::from(classes), "{m}");
        // the index is exact: one index per mirror class
        assert_eq!(c.index_size, Some(classes), "{m}");
    }
}

#[test]
fn material_counts_equal_closed_forms() {
    // kings on 9 points each; the rook, horse and rook (or rook and horse pair) on the 88,
    // 87, 86 points left. Symmetric: both kings on the centre file (3 x 3) and every other
    // piece on it too (8, 7, 6 points left), or for KRKNN the horses on one mirror pair
    // (40 pairs of files a-d and f-i) or both on the centre file (7 choose 2).
    let cases: [(&str, u64, u64); 2] = [
        ("KRNKR", 81 * 88 * 87 * 86, 9 * 8 * 7 * 6),
        ("KRKNN", 81 * 88 * (87 * 86 / 2), 9 * 8 * (40 + 7 * 6 / 2)),
    ];
    for (m, placements, symmetric) in cases {
        let c = count_material(&m.parse().unwrap());
        assert_eq!(c.placements, BigUint::from(placements), "{m}");
        assert_eq!(c.symmetric, symmetric as u128, "{m}");
        let classes = (placements + symmetric) / 2;
        assert_eq!(c.mirror_classes, BigUint::from(classes), "{m}");
        let idx = PlacementIndex::new(m.parse().unwrap()).unwrap();
        assert_eq!(idx.size(), classes, "{m}");
        assert_eq!(idx.placements(), placements as u128, "{m}");
    }
}
