//! Fog of war: a scene is either clear, or fogged with the areas the GM has revealed — sets of
//! cells and polygons in grid units.
//!
//! Guarantees: [`Fog::is_revealed`] and [`Fog::revealed_polygons`] agree — a cell counts as
//! revealed exactly when it is listed or its centre lies inside a revealed polygon, and the
//! polygons returned cover every listed cell and every revealed polygon, in background pixels.
//! What is not revealed is fogged; a player sees nothing under the fog (see `view`).

use super::grid::{Cell, Grid};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A point in grid units: (1, 0) is one cell to the right of the grid's origin.
pub type Point = (f64, f64);

/// A scene's fog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fog {
    /// The map is fogged (everything not revealed is hidden from players).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on: bool,
    /// Revealed cells.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub cells: BTreeSet<Cell>,
    /// Revealed polygons, each a list of corners in grid units.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub polygons: Vec<Vec<Point>>,
}

/// How far out, in pixels, the one polygon of a clear map reaches (further than any background).
const CLEAR: f64 = 1.0e9;

impl Fog {
    /// A player may see this cell: the fog is off, or the cell is revealed.
    pub fn is_revealed(&self, grid: &Grid, cell: Cell) -> bool {
        if !self.on || self.cells.contains(&cell) {
            return true;
        }
        let (x, y) = grid.centre(cell);
        self.polygons.iter().any(|p| {
            let px: Vec<(f64, f64)> = p.iter().map(|q| grid.to_pixels(*q)).collect();
            inside(&px, (x, y))
        })
    }

    /// Every revealed area in background pixel coordinates: each revealed cell's outline and each
    /// revealed polygon. A background is masked for a player with exactly this: every pixel
    /// outside all of these polygons becomes black. When the fog is off, one polygon reaching far
    /// past any background is returned, so nothing is masked.
    pub fn revealed_polygons(&self, grid: &Grid) -> Vec<Vec<(f64, f64)>> {
        if !self.on {
            return vec![vec![(-CLEAR, -CLEAR), (CLEAR, -CLEAR), (CLEAR, CLEAR), (-CLEAR, CLEAR)]];
        }
        let cells = self.cells.iter().map(|c| grid.outline(*c));
        let polygons = self.polygons.iter().map(|p| p.iter().map(|q| grid.to_pixels(*q)).collect());
        cells.chain(polygons).collect()
    }
}

/// A point lies inside a polygon (even-odd rule; a polygon of fewer than 3 corners has no inside).
pub fn inside(polygon: &[(f64, f64)], (x, y): (f64, f64)) -> bool {
    if polygon.len() < 3 {
        return false;
    }
    let mut odd = false;
    let mut j = polygon.len() - 1;
    for i in 0..polygon.len() {
        let ((xi, yi), (xj, yj)) = (polygon[i], polygon[j]);
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            odd = !odd;
        }
        j = i;
    }
    odd
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::grid::GridKind;
    use proptest::prelude::*;

    #[test]
    fn a_polygon_reveals_the_cells_whose_centres_it_holds() {
        let g = Grid::default();
        let fog =
            Fog { on: true, polygons: vec![vec![(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)]], ..Fog::default() };
        assert!(fog.is_revealed(&g, Cell(1, 1)), "(1,1) lies in the 2×2 square");
        assert!(!fog.is_revealed(&g, Cell(2, 1)), "(2,1) lies outside it");
        assert!(Fog::default().is_revealed(&g, Cell(99, 99)), "without fog every cell is seen");
        let polys = fog.revealed_polygons(&g);
        assert_eq!(polys, vec![vec![(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)]], "in pixels");
    }

    proptest! {
        /// A cell is revealed exactly when its centre falls inside one of the revealed polygons
        /// in pixels — what the image mask and the view decide agree.
        #[test]
        fn revealed_cells_are_those_the_mask_leaves_uncovered(
            hex in any::<bool>(),
            cells in proptest::collection::btree_set((-5i32..5, -5i32..5).prop_map(|(x, y)| Cell(x, y)), 0..10),
            probe in (-6i32..6, -6i32..6),
        ) {
            let g = Grid { kind: if hex { GridKind::Hex } else { GridKind::Square }, ..Grid::default() };
            let fog = Fog { on: true, cells, polygons: vec![] };
            let probe = Cell(probe.0, probe.1);
            let centre = g.centre(probe);
            let masked_open = fog.revealed_polygons(&g).iter().any(|p| inside(p, centre));
            prop_assert_eq!(fog.is_revealed(&g, probe), masked_open);
        }
    }
}
