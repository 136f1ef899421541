//! Every dice form players bring from Roll20, Foundry VTT and dice bots: how it parses, and
//! that its rolls follow the distribution `odds` gives — compared exactly against every way the
//! dice can fall where that is small, by a chi-square test on seeded rolls otherwise. A
//! property test shows that any expression parses and rolls within the limits.

mod support;

use houserule_core::dice::odds::{self, Method};
use houserule_core::dice::{
    self, parse_in, roll, Dialect, DiceError, DiceSource, Forced, RollSource, SeededStream, Sides,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

const H: Dialect = Dialect::Houserule;
const R: Dialect = Dialect::Roll20;

/// The distribution of the roller's totals over every way the dice can fall (sequences longer
/// than `limit` faces are left out; their chance is returned second).
fn walk(expr: &str, dialect: Dialect, limit: usize) -> (BTreeMap<i64, f64>, f64) {
    let w = support::walk(expr, dialect, limit, usize::MAX).expect("a walk without a limit on sequences ends");
    (w.totals, w.lost)
}

/// `odds` is exact for `expr` and matches every way the dice fall, to `tolerance`.
fn exact_matches_walk(expr: &str, dialect: Dialect, limit: usize, tolerance: f64) {
    let e = parse_in(expr, dialect).unwrap();
    let o = odds::odds(&e);
    assert_eq!(o.method, Method::Exact, "{expr} should have exact odds");
    let (walked, lost) = walk(expr, dialect, limit);
    assert!(lost <= tolerance, "{expr}: the walk left out {lost}");
    let exact: BTreeMap<i64, f64> = o.table.iter().copied().collect();
    let keys: std::collections::BTreeSet<i64> = exact.keys().chain(walked.keys()).copied().collect();
    for k in keys {
        let (a, b) = (exact.get(&k).copied().unwrap_or(0.0), walked.get(&k).copied().unwrap_or(0.0));
        assert!(
            (a - b).abs() <= tolerance,
            "{expr}: P(total = {k}) is {a} by convolution but {b} by rolling every way"
        );
    }
}

/// Chi-square of `n` seeded rolls of `expr` against `expected` (bins under 5 expected merged
/// into the tail); fails above the 0.999 quantile (a false alarm once in a thousand runs, with
/// a fixed seed never).
fn chi_square(expr: &str, dialect: Dialect, expected: &BTreeMap<i64, f64>, n: u64) {
    let e = parse_in(expr, dialect).unwrap();
    let seed = dice::seed_from_number(42);
    let mut seen: BTreeMap<i64, u64> = BTreeMap::new();
    for k in 0..n {
        let r =
            roll(&e, &mut SeededStream::for_roll(&seed, k, None), RollSource::Generated { counter: k, entropy: None })
                .unwrap();
        *seen.entry(r.total).or_default() += 1;
    }
    for v in seen.keys() {
        assert!(expected.contains_key(v), "{expr}: rolled {v}, which cannot come up");
    }
    let (mut stat, mut bins, mut tail_e, mut tail_o) = (0.0, 0usize, 0.0, 0.0);
    for (v, p) in expected {
        let e = p * n as f64;
        let o = seen.get(v).copied().unwrap_or(0) as f64;
        if e < 5.0 {
            tail_e += e;
            tail_o += o;
        } else {
            stat += (o - e) * (o - e) / e;
            bins += 1;
        }
    }
    if tail_e > 0.0 {
        stat += (tail_o - tail_e) * (tail_o - tail_e) / tail_e.max(1.0);
        bins += 1;
    }
    // Wilson–Hilferty approximation of the 0.999 quantile of chi-square with `bins - 1` degrees.
    let k = (bins.max(2) - 1) as f64;
    let z = 3.09;
    let limit = k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3);
    assert!(stat <= limit, "{expr}: chi-square {stat:.1} over {bins} bins is above {limit:.1}; rolled {seen:?}");
}

fn exact_table(expr: &str, dialect: Dialect) -> BTreeMap<i64, f64> {
    odds::exact(&parse_in(expr, dialect).unwrap()).expect("exact odds").table().into_iter().collect()
}

fn forced(expr: &str, dialect: Dialect, faces: &[i64]) -> dice::Roll {
    let mut f = Forced::new(faces.iter().copied());
    let r = roll(&parse_in(expr, dialect).unwrap(), &mut f, RollSource::Forced).unwrap();
    f.finish().unwrap();
    r
}

// ---- parsing: what each form reads as, shown on forced dice ---------------------------------

#[test]
fn compounding_adds_the_chain_into_one_die() {
    let r = forced("3d6!!", H, &[6, 6, 2, 3, 1]);
    assert_eq!(r.total, 18, "6+6+2 compound into 14, then 3 and 1");
    assert_eq!(r.dice().count(), 5, "every face is kept in the roll");
    assert_eq!(r.terms[0].dice[0].value, Some(14), "the compounding die counts for its chain");
    let r = forced("3d6!!kh1", H, &[6, 6, 2, 5, 1]);
    assert_eq!(r.total, 14, "a compounded die is one die for keep");
}

#[test]
fn penetrating_extra_dice_count_one_less() {
    let r = forced("3d6!p", H, &[6, 6, 2, 3, 1]);
    assert_eq!(r.total, 6 + 5 + 1 + 3 + 1, "each extra die counts one less");
    let r = forced("1d6!!p", H, &[6, 3]);
    assert_eq!(r.total, 8, "compounding and penetrating: 6 + (3-1)");
}

#[test]
fn reroll_and_reroll_once_differ_by_dialect_where_they_conflict() {
    assert_eq!(forced("4d6r<2", R, &[1, 2, 5, 3, 4, 2, 6]).total, 18, "Roll20's r<2 rerolls 1s and 2s until neither");
    assert_eq!(forced("4d6r<2", H, &[1, 1, 3, 4, 2]).total, 10, "Houserule's r (as Foundry's) rerolls once");
    assert_eq!(forced("4d6ro<2", R, &[1, 1, 3, 4, 2, 5]).total, 13, "ro rerolls once (Roll20's <2 takes in the 2)");
    assert_eq!(forced("4d6ro1", H, &[1, 1, 3, 4, 2]).total, 10, "ro rerolls once in both");
    assert_eq!(forced("4d6rr1", H, &[1, 1, 5, 3, 4, 2]).total, 14, "rr rerolls until it holds no more in both");
    let r = forced("1d6r<2", R, &[1, 4]);
    assert!(r.terms[0].dice[0].rerolled && !r.terms[0].dice[0].kept, "the rerolled face stays in the roll");
}

#[test]
fn roll20_success_and_failure_counts() {
    let r = forced("10d10>=8", R, &[8, 9, 10, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(r.successes, Some(3));
    let r = forced("5d10>7f<3", R, &[8, 9, 1, 2, 5]);
    assert_eq!(r.total, 0, "two successes minus two failures");
    let r = forced("5d10cs>7df<3", H, &[8, 9, 1, 2, 10]);
    assert_eq!(r.total, 1, "the same in Houserule's spelling");
    let r = forced("5d10cf<3", H, &[8, 9, 1, 2, 10]);
    assert_eq!(r.total, 2, "Foundry's cf counts failures");
}

#[test]
fn critical_ranges_mark_faces_without_changing_the_total() {
    let r = forced("2d20cs>=19", R, &[19, 3]);
    assert_eq!(r.total, 22, "Roll20's cs is a critical range");
    assert!(r.terms[0].dice[0].critical && !r.terms[0].dice[1].critical);
    let r = forced("2d20crit>=19fumble1", H, &[19, 1]);
    assert!(r.terms[0].dice[0].critical && r.terms[0].dice[1].fumble);
    let r = forced("2d20cf1", R, &[20, 1]);
    assert!(r.terms[0].dice[1].fumble && r.total == 21);
}

#[test]
fn min_max_sort_and_unique() {
    let r = forced("3d6min2", H, &[1, 4, 1]);
    assert_eq!(r.total, 8, "each 1 counts as 2");
    assert_eq!(r.terms[0].dice[0].face, 1, "the face is kept as rolled");
    assert_eq!(forced("3d6max5", H, &[6, 6, 2]).total, 12);
    let r = forced("4d6s", H, &[5, 1, 6, 3]);
    assert_eq!(r.dice().map(|d| d.face).collect::<Vec<_>>(), vec![1, 3, 5, 6], "sorted lowest first");
    let r = forced("4d6sd", H, &[5, 1, 6, 3]);
    assert_eq!(r.dice().map(|d| d.face).collect::<Vec<_>>(), vec![6, 5, 3, 1]);
    let r = forced("5d6u", H, &[2, 2, 3, 2, 3, 4, 5, 6]);
    assert_eq!(r.total, 2 + 3 + 4 + 5 + 6, "duplicates are rolled again");
    assert_eq!(r.dice().filter(|d| d.rerolled).count(), 3);
}

#[test]
fn arithmetic_brackets_and_groups() {
    assert_eq!(forced("2d6*2", H, &[3, 4]).total, 14);
    assert_eq!(forced("(2d6+3)*2", H, &[3, 4]).total, 20);
    assert_eq!(forced("2d6+3*2", H, &[3, 4]).total, 13, "* binds tighter than +");
    assert_eq!(forced("7/2", H, &[]).total, 3, "/ rounds down");
    assert_eq!(forced("-7/2", H, &[]).total, -4, "/ rounds down, towards minus infinity");
    assert_eq!(forced("{2d20}kh1", H, &[4, 17]).total, 17);
    assert_eq!(forced("{4d6+3d8}k4", H, &[1, 2, 3, 4, 8, 7, 1]).total, 8 + 7 + 4 + 3);
    let r = forced("{3d6+1, 2d8}kh1", H, &[1, 1, 1, 8, 8]);
    assert_eq!(r.total, 16, "the second roll is higher");
    assert!(r.terms[0].dice[..3].iter().all(|d| !d.kept), "the dropped roll's dice are marked dropped");
    assert_eq!(forced("{2d6, 2d6}cs>=7", H, &[3, 4, 1, 2]).total, 1);
    assert_eq!(forced("{2d6, 2d6}>=7", R, &[3, 4, 6, 2]).total, 2);
}

#[test]
fn foundry_explode_and_explode_once() {
    assert_eq!(forced("d20x", H, &[20, 20, 5]).total, 45);
    assert_eq!(forced("2d6x", H, &[6, 1, 2]).total, 9);
    assert_eq!(forced("2d6xo", H, &[6, 6, 2]).total, 14, "xo adds one die at most");
    assert_eq!(forced("2d6x>=5", H, &[5, 1, 2]).total, 8);
}

#[test]
fn existing_forms_read_as_before() {
    let r = forced("4d6kh3", H, &[2, 5, 1, 5]);
    assert_eq!((r.total, r.summary().as_str()), (12, "4d6kh3 [2, 5, (1), 5] = 12 (forced)"));
    let r = forced("-1d4+2d6-3", H, &[2, 3, 4]);
    let terms: Vec<(&str, i64)> = r.terms.iter().map(|t| (t.term.as_str(), t.value)).collect();
    assert_eq!(terms, vec![("-1d4", -2), ("+2d6", 7), ("-3", -3)]);
    assert_eq!(r.total, 2);
    let r = forced("2d10!>=9cs>=8", H, &[9, 3, 10, 1]);
    assert_eq!(r.successes, Some(2));
}

// ---- the issue's cases: groups with numbers, counts with arithmetic, Roll20's comparisons ----

#[test]
fn a_group_that_keeps_a_plain_number_totals_it() {
    assert_eq!(forced("{1d4, 4}kh1", H, &[2]).total, 4, "the 4 beats a 2");
    assert_eq!(forced("{1d6, 3}kh1", H, &[1]).total, 3);
    assert_eq!(forced("{1d20+5, 15}kl1", R, &[17]).total, 15, "15 is lower than 22");
    assert_eq!(forced("{1d4, 2}cs>=2", H, &[1]).total, 1, "the 2 is counted as a roll of its own");
    let r = forced("{1d4, 4}kh1", H, &[2]);
    assert!(!r.terms[0].dice[0].kept, "the d4's roll is dropped: {}", r.summary());
}

#[test]
fn a_success_count_keeps_the_arithmetic_around_it() {
    let r = forced("3d6cs>=4+2", H, &[4, 5, 1]);
    assert_eq!((r.total, r.successes), (4, Some(2)), "two successes and 2");
    assert_eq!(r.summary(), "3d6cs>=4+2 [4, 5, 1] = 4 (2 successes) (forced)");
    assert_eq!(forced("3d6cs>=4+1d4", H, &[4, 5, 1, 3]).total, 5, "the d4 is rolled and added");
    assert_eq!(
        forced("7d6cs>=4", H, &[4, 5, 6, 1, 2, 3, 4]).summary(),
        "7d6cs>=4 [4, 5, 6, 1, 2, 3, 4] = 4 successes (forced)"
    );
    let o = odds::odds(&parse_in("3d6cs>=4+2", H).unwrap());
    assert_eq!(
        (o.table.first().map(|t| t.0), o.table.last().map(|t| t.0)),
        (Some(2), Some(5)),
        "odds of the total too"
    );
}

#[test]
fn roll20_reads_every_comparison_as_taking_in_its_number() {
    assert_eq!(forced("10d10>8", R, &[8; 10]).total, 10, "ten 8s are ten successes");
    assert_eq!(forced("10d6<4", R, &[4; 10]).total, 10, "ten 4s are ten successes");
    assert_eq!(forced("3d6!>4", R, &[4, 1, 5, 2, 3]).total, 15, "a 4 explodes");
    assert_eq!(forced("2d8r<2", R, &[2, 5, 1, 3]).total, 8, "a 2 is rerolled");
    assert!(forced("1d20cs>19", R, &[19]).terms[0].dice[0].critical, "19 is critical");
    assert_eq!(forced("5d10>7f<3", R, &[7, 8, 3, 4, 5]).total, 1, "7 succeeds, 3 fails");
    assert_eq!(forced("{3d20+5}>21", R, &[16, 15, 20]).total, 2, "Roll20's group success adds 5 to each die");
    assert_eq!(forced("{2d6, 2d6}>7", R, &[3, 4, 1, 2]).total, 1, "a roll of 7 counts");
}

#[test]
fn houserules_dialect_reads_roll20_forms_foundry_has_no_other_meaning_for() {
    assert_eq!(forced("10d10>=8", H, &[8, 9, 10, 1, 2, 3, 4, 5, 6, 7]).total, 3);
    assert_eq!(forced("10d10<=2", H, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).total, 2);
    assert_eq!(forced("4d6=6", H, &[6, 6, 1, 2]).total, 2);
    assert_eq!(forced("5d10>=7f<=3", H, &[7, 8, 3, 4, 5]).total, 1);
    assert_eq!(forced("{3d20+5}>=21", H, &[16, 15, 20]).total, 2);
    assert_eq!(forced("3d6cs", H, &[6, 6, 2]).total, 2, "Foundry's cs alone counts the highest face");
    assert_eq!(forced("4d6d", H, &[3, 3, 6, 1]).total, 12, "Foundry's d alone drops the lowest die");
    for (expr, says) in [
        ("10d10>8", "'>=9' for more than 8"),
        ("3d6!>4", "'!>=4' for 4 or more"),
        ("2d6ro<2", "'ro<=1' for less than 2"),
        ("5d10>=7f<3", "'f<=3' for 3 or less"),
        ("{3d20+5}>21", "'>=21' for 21 or more"),
        ("20d20r1=1", "Foundry's limit on how many dice"),
    ] {
        let e = parse_in(expr, H).expect_err(expr);
        assert!(e.message.contains(says), "{expr}: {}", e.message);
    }
}

#[test]
fn foundrys_df_counts_a_failed_die_as_minus_one_and_the_others_as_before() {
    assert_eq!(forced("6d6df<3", H, &[1, 2, 3, 4, 5, 6]).total, 16, "3+4+5+6, less one for each of 1 and 2");
    assert_eq!(forced("3d6cs>=2df<=3", H, &[3, 5, 1]).total, -1, "a 3 succeeds and fails: it counts -1");
    assert_eq!(forced("3d6>=2f<=3", H, &[3, 5, 1]).total, 0, "Roll20's f takes one success off: the 3 counts 0");
}

// ---- errors a player understands -----------------------------------------------------------

#[test]
fn errors_name_the_column_and_the_other_dialects_spelling() {
    let e = parse_in("10d10>8", H).unwrap_err();
    assert_eq!(e.column, 6);
    assert!(
        e.message.contains("'>=8'") && e.message.contains("'>=9'") && e.message.contains("Roll20 dialect"),
        "{}",
        e.message
    );
    let e = parse_in("5d10cs>7f<3", H).unwrap_err();
    assert_eq!(e.column, 9);
    assert!(e.message.contains("'f<=3'") && e.message.contains("'f<=2'"), "{}", e.message);
    let e = parse_in("4d6q", H).unwrap_err();
    assert_eq!((e.column, e.message.contains("unknown modifier 'q'")), (4, true), "{}", e.message);
    assert_eq!(parse_in("(2d6+3", H).unwrap_err().column, 7);
    assert_eq!(parse_in("2d6)", H).unwrap_err().column, 4);
    assert_eq!(parse_in("{2d6, 3", H).unwrap_err().column, 8);
    assert!(parse_in("6d6u", H).is_ok(), "six different faces of a d6 can come up");
    let e = parse_in("7d6u", H).unwrap_err();
    assert!(e.message.contains("cannot all differ"), "{}", e.message);
    let e = parse_in("2d6/(1d3-2)", H).unwrap_err();
    assert_eq!((e.column, e.message.contains("divisor")), (4, true), "{}", e.message);
    let e = parse_in("1d6rr<7", H).unwrap_err();
    assert!(e.message.contains("never end"), "{}", e.message);
    let e = parse_in("1d6rr<6!", H).unwrap_err();
    assert!(e.message.contains("never end"), "{}", e.message);
    let e = parse_in("{2d6+1}kh1", H).unwrap_err();
    assert!(e.message.contains("separate them with ','"), "{}", e.message);
    let e = parse_in("3d6ms>2", H).unwrap_err();
    assert!(e.message.contains("not supported"), "{}", e.message);
    let deep = format!("{}1{}", "(".repeat(20), ")".repeat(20));
    assert!(parse_in(&deep, H).unwrap_err().message.contains("nest deeper"));
}

// ---- distributions -------------------------------------------------------------------------

#[test]
fn exact_odds_match_every_way_the_dice_fall() {
    for (expr, dialect) in [
        ("3d6", H),
        ("4d6kh3", H),
        ("4d6dl1", H),
        ("3d6kl2", H),
        ("7d6cs>=4", H),
        ("4dF+1", H),
        ("2d4!!", H),
        ("2d4!p", H),
        ("1d4!!p", H),
        ("2d4!", H),
        ("d6x", H),
        ("2d4xo", H),
        ("3d4r1", R),
        ("2d4r<2", R),
        ("3d4ro<2", R),
        ("3d4r<2", H),
        ("3d4rr1", H),
        ("5d4>=3", R),
        ("5d4>3f<2", R),
        ("4d4cs>3df1", H),
        ("4d4cf<2", H),
        ("3d6min2", H),
        ("3d6max5", H),
        ("4d6s", H),
        ("2d6*2", H),
        ("(2d4+3)*2", H),
        ("2d6/2", H),
        ("1d4*1d4", H),
        ("{2d20}kh1", H),
        ("{3d4}cs>=3", H),
        ("{2d4, 1d6}cs>=4", H),
        ("{2d4, 1d6}", H),
        ("2d6cs>=5", R),
        ("3d4!kh2", H),
        ("3d4!!kh2", H),
        ("-1d4+2d4-3", H),
        ("4d4r1kh3", H),
    ] {
        // Explosions never end on their own: walk deep enough that the rest is negligible.
        let limit = if expr.contains('!') || expr.contains('x') { 14 } else { 16 };
        if expr == "3d4!kh2" {
            continue; // simulated, below
        }
        exact_matches_walk(expr, dialect, limit, 2e-3);
    }
}

#[test]
fn the_issues_example_odds() {
    let o = odds::odds(&dice::parse("7d6cs>=4").unwrap());
    assert_eq!(o.at_least(3), 0.7734375, "at least 3 successes on 7d6 at 4+ is 99/128");
    let o = odds::odds(&dice::parse("2d6").unwrap());
    assert!((o.at_least(7) - 21.0 / 36.0).abs() < 1e-12);
}

#[test]
fn forms_without_exact_odds_are_simulated_and_follow_the_dice() {
    // 5d6u: the five dice show five different faces, so the total is 21 minus the missing face.
    let unique: BTreeMap<i64, f64> = (15..=20).map(|t| (t, 1.0 / 6.0)).collect();
    chi_square("5d6u", H, &unique, 30_000);
    let e = dice::parse("5d6u").unwrap();
    assert!(matches!(odds::odds(&e).method, Method::Simulation { .. }), "unique dice are simulated");
    // Keeping among dice that explode into dice of their own: checked against every way they fall.
    let (walked, lost) = walk("3d4!kh2", H, 12);
    assert!(lost < 1e-3);
    chi_square("3d4!kh2", H, &walked, 30_000);
    // Keeping two of three rolls is simulated; its interval holds the truth.
    let (walked, _) = walk("{1d6, 1d8, 1d4}kh2", H, 4);
    chi_square("{1d6, 1d8, 1d4}kh2", H, &walked, 30_000);
    let o = odds::odds(&dice::parse("{1d6, 1d8, 1d4}kh2").unwrap());
    let (lo, hi) = o.interval(9).expect("a simulation has an interval");
    let truth: f64 = walked.iter().filter(|(v, _)| **v >= 9).map(|(_, p)| p).sum();
    assert!(lo <= truth && truth <= hi, "the 95% interval ({lo}, {hi}) should hold {truth}");
}

#[test]
fn the_best_or_worst_of_several_rolls_is_exact() {
    // A Savage Worlds trait die with its wild die: the better of two acing dice.
    for (expr, limit) in
        [("{1d6, 1d8}kh1", 4), ("{1d4!, 1d6!}kh1", 12), ("{1d6, 2d4}kl1", 4), ("{1d4, 1d6}kh1cs>=4", 4)]
    {
        let e = dice::parse(expr).unwrap();
        assert_eq!(odds::odds(&e).method, Method::Exact, "{expr}");
        exact_matches_walk(expr, H, limit, 2e-3);
    }
    // d8 and d6 both under 4: 3/8 · 3/6, so 4+ comes up 13 times in 16.
    let o = odds::odds(&dice::parse("{1d8!, 1d6!}kh1").unwrap());
    assert!((o.at_least(4) - 13.0 / 16.0).abs() < 1e-12, "{}", o.at_least(4));
}

#[test]
fn larger_forms_follow_their_exact_odds() {
    for (expr, dialect) in [
        ("10d10>=8", R),
        ("5d10>7f<3", R),
        ("3d6!!", H),
        ("3d6!p", H),
        ("4d6r<2", R),
        ("4d6ro<2", R),
        ("3d6min2", H),
        ("3d6max5", H),
        ("(2d6+3)*2", H),
        ("d20x", H),
        ("2d6x", H),
        ("{2d20}kh1", H),
        ("4d6kh3", H),
        ("6d10cs>=8df1", H),
    ] {
        chi_square(expr, dialect, &exact_table(expr, dialect), 20_000);
    }
}

#[test]
fn a_runaway_explosion_is_stopped_and_counted_in_the_odds() {
    let e = forced_err("1d6!", &vec![6; 200]);
    assert!(e.message.contains("more than 100 times"), "{}", e.message);
    let o = odds::odds(&dice::parse("1d2!").unwrap());
    assert_eq!(o.method, Method::Exact, "an explosion is followed as deep as a roll follows it");
    assert!(o.stopped < 1e-12, "101 twos in a row (2^-101) is all that is left out: {}", o.stopped);
    assert!((o.mean() - 3.0).abs() < 1e-9, "a d2 exploding on 2 averages 3: {}", o.mean());
    let o = odds::odds(&dice::parse("1d6!").unwrap());
    assert!((o.at_least(7) - 1.0 / 6.0).abs() < 1e-12, "7 or more needs a first 6: {}", o.at_least(7));
}

fn forced_err(expr: &str, faces: &[i64]) -> DiceError {
    let mut f = Forced::new(faces.iter().copied());
    roll(&dice::parse(expr).unwrap(), &mut f, RollSource::Forced).unwrap_err()
}

// ---- limits --------------------------------------------------------------------------------

/// Pieces that make up generated expressions (many are nonsense on purpose).
const PIECES: &[&str] = &[
    "1", "2", "6", "20", "d", "d6", "d2", "dF", "d%", "3d6", "1000d6", "1000d2", "!", "!!", "!p", "x", "xo", "r", "ro",
    "rr", "<", ">", ">=", "<=", "=", "k", "kh", "kl", "dh", "dl", "cs", "cf", "df", "f", "crit", "fumble", "min",
    "max", "s", "sd", "u", "+", "-", "*", "/", "(", ")", "{", "}", ",", " ",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Whatever is typed, parsing answers, and whatever parses rolls within the limits: the
    /// roll ends (with a total or an error) having drawn at most the faces the limits allow.
    #[test]
    fn any_expression_parses_and_rolls_within_the_limits(
        picks in proptest::collection::vec(0..PIECES.len(), 1..24),
        roll20 in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let text: String = picks.iter().map(|i| PIECES[*i]).collect();
        let dialect = if roll20 { R } else { H };
        if let Ok(e) = parse_in(&text, dialect) {
            let inner = SeededStream::for_roll(&dice::seed_from_number(seed), 0, None);
            let mut counting = Counting { inner, drawn: 0 };
            let started = std::time::Instant::now();
            let _ = roll(&e, &mut counting, RollSource::Forced);
            prop_assert!(counting.drawn <= dice::roll::MAX_DRAWN, "{text} drew {} faces", counting.drawn);
            prop_assert!(started.elapsed().as_secs() < 2, "{text} took {:?}", started.elapsed());
        }
    }
}

/// Counts the faces a roll draws.
struct Counting {
    inner: SeededStream,
    drawn: usize,
}

impl DiceSource for Counting {
    fn face(&mut self, sides: Sides) -> Result<i64, DiceError> {
        self.drawn += 1;
        self.inner.face(sides)
    }
}

#[test]
fn worst_cases_stop_with_an_error() {
    // Every die explodes as often as it may: the draw limit stops it, not the machine.
    let mut all_max = Forced::new(std::iter::repeat_n(2, 30_000));
    let e = roll(&dice::parse("1000d2!").unwrap(), &mut all_max, RollSource::Forced).unwrap_err();
    assert!(e.message.contains("more than"), "{}", e.message);
    let mut ones = Forced::new(std::iter::repeat_n(1, 500));
    let e = roll(&dice::parse("1d6rr1").unwrap(), &mut ones, RollSource::Forced).unwrap_err();
    assert!(e.message.contains("rerolled more than 100 times"), "{}", e.message);
}
