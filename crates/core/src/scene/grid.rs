//! Grid geometry, pure: square and hex grids, the unit one cell stands for, distances with the
//! measure a ruleset names, the cells along a line, the cells within a radius, a path's length
//! and whether it is straight.
//!
//! A cell is a pair of integers. On a square grid it is (column, row). A hex grid is pointy-top
//! and a cell is its axial coordinates (q, r): the six neighbours of (q, r) are (q±1, r),
//! (q, r±1), (q+1, r−1) and (q−1, r+1). Distances are in cells; [`Grid::distance`] multiplies by
//! the unit's amount per cell.
//!
//! Guarantees (held by property tests): a distance is symmetric, zero exactly on the same cell
//! and, for every measure but `alternate` (whose 1-2-1 diagonals depend on the path taken), meets
//! the triangle inequality; [`line`] starts and ends at its ends and each step goes to an adjacent
//! cell; [`within`] is exactly the cells at distance ≤ r.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A cell: (column, row) on a square grid, axial (q, r) on a hex grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Cell(pub i32, pub i32);

/// The shape of the cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GridKind {
    #[default]
    Square,
    /// Pointy-top hexes in axial coordinates.
    Hex,
}

/// How distance is counted on a square grid (a hex grid always counts hex steps).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// Every diagonal step counts 1 (Savage Worlds' reading).
    #[default]
    Chebyshev,
    /// Diagonal steps count 1, 2, 1, 2 … in turn.
    Alternate,
    /// Straight-line distance between cell centres.
    Euclid,
}

impl Measure {
    pub fn parse(text: &str) -> Option<Measure> {
        match text.trim().to_ascii_lowercase().as_str() {
            "chebyshev" => Some(Measure::Chebyshev),
            "alternate" => Some(Measure::Alternate),
            "euclid" => Some(Measure::Euclid),
            _ => None,
        }
    }
}

impl GridKind {
    pub fn parse(text: &str) -> Option<GridKind> {
        match text.trim().to_ascii_lowercase().as_str() {
            "square" => Some(GridKind::Square),
            "hex" => Some(GridKind::Hex),
            _ => None,
        }
    }
}

/// What one cell stands for: `1 inch`, `1 area`, `5 ft`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Unit {
    /// The unit's name (`inch`, `area`, `ft`).
    pub name: String,
    /// How many of the unit one cell is.
    pub per_cell: f64,
}

impl Default for Unit {
    fn default() -> Unit {
        Unit { name: "ft".into(), per_cell: 5.0 }
    }
}

/// A scene's grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Grid {
    pub kind: GridKind,
    /// A cell's size in background pixels (a square's side; a hex's width, flat side to flat side).
    pub size: f64,
    pub unit: Unit,
    pub measure: Measure,
}

impl Default for Grid {
    fn default() -> Grid {
        Grid { kind: GridKind::Square, size: 50.0, unit: Unit::default(), measure: Measure::Chebyshev }
    }
}

/// One cell stands for more than 0 and at most this many units.
pub const MAX_PER_CELL: f64 = 1.0e6;

/// The largest radius, in cells, [`within`] looks at (so no script can ask for a billion cells).
pub const MAX_RADIUS_CELLS: f64 = 200.0;

impl Grid {
    /// The distance between two cells, in cells.
    pub fn cells_between(&self, a: Cell, b: Cell) -> f64 {
        let (dx, dy) = ((i64::from(b.0) - i64::from(a.0)).abs(), (i64::from(b.1) - i64::from(a.1)).abs());
        match self.kind {
            GridKind::Hex => {
                let (dq, dr) = (i64::from(b.0) - i64::from(a.0), i64::from(b.1) - i64::from(a.1));
                ((dq.abs() + dr.abs() + (dq + dr).abs()) / 2) as f64
            }
            GridKind::Square => match self.measure {
                Measure::Chebyshev => dx.max(dy) as f64,
                Measure::Alternate => (dx.max(dy) + dx.min(dy) / 2) as f64,
                Measure::Euclid => ((dx * dx + dy * dy) as f64).sqrt(),
            },
        }
    }

    /// The distance between two cells in the grid's unit.
    pub fn distance(&self, a: Cell, b: Cell) -> f64 {
        self.cells_between(a, b) * self.unit.per_cell
    }

    /// Two different cells share a side (or, on a square grid, a corner).
    pub fn adjacent(&self, a: Cell, b: Cell) -> bool {
        a != b && hex_or_king(self.kind, a, b) == 1
    }

    /// The length of a path, in cells, going through its cells in order. With the `alternate`
    /// measure the diagonals are counted 1, 2, 1 … along the whole path.
    pub fn path_cells(&self, path: &[Cell]) -> f64 {
        if self.kind == GridKind::Square && self.measure == Measure::Alternate {
            let (mut straight, mut diagonal) = (0i64, 0i64);
            for w in path.windows(2) {
                let (dx, dy) = ((w[1].0 - w[0].0).abs() as i64, (w[1].1 - w[0].1).abs() as i64);
                straight += dx.max(dy) - dx.min(dy);
                diagonal += dx.min(dy);
            }
            return (straight + diagonal + diagonal / 2) as f64;
        }
        path.windows(2).map(|w| self.cells_between(w[0], w[1])).sum()
    }

    /// The length of a path in the grid's unit.
    pub fn path_length(&self, path: &[Cell]) -> f64 {
        self.path_cells(path) * self.unit.per_cell
    }

    /// A path is straight when the cells it crosses (each leg filled in with [`line`]) are
    /// exactly the cells along the line from its first cell to its last.
    pub fn is_straight(&self, path: &[Cell]) -> bool {
        let (Some(first), Some(last)) = (path.first(), path.last()) else { return true };
        self.walk(path) == line(self.kind, *first, *last)
    }

    /// Every cell a path crosses, in order: each leg filled in with [`line`].
    pub fn walk(&self, path: &[Cell]) -> Vec<Cell> {
        let mut out: Vec<Cell> = path.first().copied().into_iter().collect();
        for w in path.windows(2) {
            out.extend(line(self.kind, w[0], w[1]).into_iter().skip(1));
        }
        out
    }

    /// The centre of a cell in background pixels (cell (0, 0) has its centre at half a cell
    /// from the top-left corner).
    pub fn centre(&self, c: Cell) -> (f64, f64) {
        let s = self.size;
        match self.kind {
            GridKind::Square => ((f64::from(c.0) + 0.5) * s, (f64::from(c.1) + 0.5) * s),
            GridKind::Hex => {
                // Pointy-top: width s, corner radius s/√3, rows s·√3/2 apart, each row shifted
                // half a hex to the right of the one above.
                let row = s * 3f64.sqrt() / 2.0;
                ((f64::from(c.0) + f64::from(c.1) / 2.0 + 0.5) * s, s / 3f64.sqrt() + f64::from(c.1) * row)
            }
        }
    }

    /// The cell's outline in background pixels.
    pub fn outline(&self, c: Cell) -> Vec<(f64, f64)> {
        let (cx, cy) = self.centre(c);
        let h = self.size / 2.0;
        match self.kind {
            GridKind::Square => vec![(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)],
            GridKind::Hex => {
                // Corner radius of a pointy-top hex of width s is s/√3.
                let r = self.size / 3f64.sqrt();
                (0..6)
                    .map(|i| {
                        let a = std::f64::consts::PI / 180.0 * (60.0 * f64::from(i) - 30.0);
                        (cx + r * a.cos(), cy + r * a.sin())
                    })
                    .collect()
            }
        }
    }

    /// A point given in grid units (1 = one cell; on a hex grid, one hex width across and one
    /// row down) in background pixels.
    pub fn to_pixels(&self, p: (f64, f64)) -> (f64, f64) {
        match self.kind {
            GridKind::Square => (p.0 * self.size, p.1 * self.size),
            GridKind::Hex => (p.0 * self.size, p.1 * self.size * 3f64.sqrt() / 2.0),
        }
    }
}

/// Steps between two cells on the grid's own neighbourhood (king moves on squares, hex steps).
fn hex_or_king(kind: GridKind, a: Cell, b: Cell) -> i64 {
    let (dq, dr) = (i64::from(b.0) - i64::from(a.0), i64::from(b.1) - i64::from(a.1));
    match kind {
        GridKind::Square => dq.abs().max(dr.abs()),
        GridKind::Hex => (dq.abs() + dr.abs() + (dq + dr).abs()) / 2,
    }
}

/// `a·i/n` rounded half away from zero, in integers.
fn scaled(a: i64, i: i64, n: i64) -> i64 {
    let up = (2 * a.abs() * i + n) / (2 * n);
    if a < 0 {
        -up
    } else {
        up
    }
}

/// The cells along the straight line from `a` to `b`, both included, each step to an adjacent
/// cell (on squares, a diagonal step is adjacent).
pub fn line(kind: GridKind, a: Cell, b: Cell) -> Vec<Cell> {
    let n = hex_or_king(kind, a, b);
    if n == 0 {
        return vec![a];
    }
    let (dq, dr) = (i64::from(b.0) - i64::from(a.0), i64::from(b.1) - i64::from(a.1));
    (0..=n)
        .map(|i| match kind {
            GridKind::Square => Cell(a.0 + scaled(dq, i, n) as i32, a.1 + scaled(dr, i, n) as i32),
            GridKind::Hex => {
                // Interpolate in cube coordinates (x = q, z = r, y = −q−r), nudged off ties, and
                // round to the nearest hex.
                let t = i as f64 / n as f64;
                let x = dq as f64 * t + 1e-6;
                let z = dr as f64 * t + 2e-6;
                let (q, r) = cube_round(x, -x - z, z);
                Cell(a.0 + q as i32, a.1 + r as i32)
            }
        })
        .collect()
}

fn cube_round(x: f64, y: f64, z: f64) -> (i64, i64) {
    let (mut rx, ry, mut rz) = (x.round(), y.round(), z.round());
    let (ex, ey, ez) = ((rx - x).abs(), (ry - y).abs(), (rz - z).abs());
    if ex > ey && ex > ez {
        rx = -ry - rz;
    } else if ey <= ez {
        rz = -rx - ry;
    }
    (rx as i64, rz as i64)
}

/// The cells at distance ≤ `radius` cells from `centre`, row by row. The radius is held to
/// [`MAX_RADIUS_CELLS`]; a negative or NaN radius has no cells.
pub fn within(grid: &Grid, centre: Cell, radius: f64) -> Vec<Cell> {
    if radius.is_nan() || radius < 0.0 {
        return Vec::new();
    }
    let r = radius.min(MAX_RADIUS_CELLS);
    let reach = r.floor() as i32;
    let mut out = Vec::new();
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            let c = Cell(centre.0.saturating_add(dx), centre.1.saturating_add(dy));
            if grid.cells_between(centre, c) <= r {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "grid_tests.rs"]
mod tests;
