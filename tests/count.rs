//! Exact counting: two independent whole-game methods, and per-material figures.

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

#[test]
fn folded_index_size_is_the_number_of_mirror_classes() {
    let mut mats = Material::all_up_to(2);
    for m in ["KRNKR", "KCPKAA", "KRKNN", "KPPPKAABB", "KRNCKRAB"] {
        mats.push(m.parse().unwrap());
    }
    for m in mats {
        let c = count_material(&m);
        let idx = PlacementIndex::new(m).unwrap();
        assert_eq!(
            c.placements,
            num_bigint::BigUint::from(idx.placements()),
            "{m}"
        );
        assert_eq!(
            c.mirror_classes,
            num_bigint::BigUint::from(idx.size()),
            "{m}"
        );
        assert_eq!(c.index_size, Some(idx.size()));
    }
    // KRNKR: 81 king pairs x 88 x 87 x 86
    let c = count_material(&"KRNKR".parse().unwrap());
    assert_eq!(
        c.placements,
        num_bigint::BigUint::from(81u64 * 88 * 87 * 86)
    );
}
