use super::*;
use proptest::prelude::*;

fn grid(kind: GridKind, measure: Measure) -> Grid {
    Grid { kind, measure, ..Grid::default() }
}

fn any_grid() -> impl Strategy<Value = Grid> {
    prop_oneof![
        Just(grid(GridKind::Square, Measure::Chebyshev)),
        Just(grid(GridKind::Square, Measure::Alternate)),
        Just(grid(GridKind::Square, Measure::Euclid)),
        Just(grid(GridKind::Hex, Measure::Chebyshev)),
    ]
}

fn cell() -> impl Strategy<Value = Cell> {
    (-30i32..30, -30i32..30).prop_map(|(x, y)| Cell(x, y))
}

#[test]
fn savage_worlds_counts_every_diagonal_as_one_and_alternate_as_one_two() {
    let sw = Grid { unit: Unit { name: "inch".into(), per_cell: 1.0 }, ..Grid::default() };
    assert_eq!(sw.distance(Cell(0, 0), Cell(3, 3)), 3.0, "chebyshev: 3 diagonals are 3 inches");
    let alt = grid(GridKind::Square, Measure::Alternate);
    assert_eq!(alt.cells_between(Cell(0, 0), Cell(3, 3)), 4.0, "1-2-1 diagonals: three are 4 cells");
    assert_eq!(alt.distance(Cell(0, 0), Cell(3, 3)), 20.0, "four cells of 5 ft");
    let hex = grid(GridKind::Hex, Measure::Chebyshev);
    assert_eq!(hex.cells_between(Cell(0, 0), Cell(2, -1)), 2.0, "hex (2,-1) is two steps away");
}

#[test]
fn a_crooked_path_is_not_straight_and_a_straight_one_is() {
    let g = grid(GridKind::Square, Measure::Chebyshev);
    let straight = [Cell(0, 0), Cell(1, 0), Cell(2, 0), Cell(3, 0)];
    let crooked = [Cell(0, 0), Cell(1, 1), Cell(2, 0), Cell(3, 0)];
    assert!(g.is_straight(&straight), "three steps east are straight");
    assert!(!g.is_straight(&crooked), "a zig-zag is not straight");
    assert_eq!(g.path_cells(&crooked), 3.0, "the zig-zag is 3 cells long");
    assert!(g.is_straight(&[Cell(0, 0), Cell(3, 0)]), "waypoints on the line are filled in");
}

proptest! {
    #[test]
    fn distance_is_symmetric_and_zero_only_on_the_same_cell(g in any_grid(), a in cell(), b in cell()) {
        prop_assert_eq!(g.cells_between(a, b), g.cells_between(b, a));
        prop_assert_eq!(g.cells_between(a, b) == 0.0, a == b, "zero exactly on the same cell");
    }

    #[test]
    fn distance_meets_the_triangle_inequality(g in any_grid(), a in cell(), b in cell(), c in cell()) {
        prop_assume!(g.measure != Measure::Alternate || g.kind == GridKind::Hex);
        prop_assert!(g.cells_between(a, c) <= g.cells_between(a, b) + g.cells_between(b, c) + 1e-9);
    }

    #[test]
    fn a_line_runs_from_end_to_end_by_adjacent_steps(g in any_grid(), a in cell(), b in cell()) {
        let l = line(g.kind, a, b);
        prop_assert_eq!(l.first(), Some(&a));
        prop_assert_eq!(l.last(), Some(&b));
        for w in l.windows(2) {
            prop_assert!(g.adjacent(w[0], w[1]), "{:?} then {:?} are not adjacent", w[0], w[1]);
        }
        prop_assert!(g.is_straight(&[a, b]), "a line between two cells is straight");
    }

    #[test]
    fn within_is_exactly_the_cells_at_distance_at_most_r(g in any_grid(), c in cell(), r in 0.0f64..6.0) {
        let found: std::collections::BTreeSet<Cell> = within(&g, c, r).into_iter().collect();
        for x in c.0 - 8..=c.0 + 8 {
            for y in c.1 - 8..=c.1 + 8 {
                let d = Cell(x, y);
                prop_assert_eq!(found.contains(&d), g.cells_between(c, d) <= r, "cell {:?} at radius {}", d, r);
            }
        }
    }
}
