//! Precomputed move tables on the 90-point board (built once, on first use).

use std::sync::LazyLock;

/// A short fixed-capacity list.
#[derive(Clone, Copy)]
pub(crate) struct List<T: Copy + Default, const N: usize> {
    len: u8,
    items: [T; N],
}

impl<T: Copy + Default, const N: usize> List<T, N> {
    fn new() -> Self {
        List {
            len: 0,
            items: [T::default(); N],
        }
    }
    fn push(&mut self, x: T) {
        self.items[self.len as usize] = x;
        self.len += 1;
    }
    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.items[..self.len as usize]
    }
}

pub(crate) const NORTH: usize = 0;
pub(crate) const SOUTH: usize = 1;

pub(crate) struct Tables {
    /// Rays: 0 = +rank (towards Black), 1 = -rank, 2 = +file, 3 = -file; nearest first.
    pub rays: [[List<u8, 9>; 4]; 90],
    /// Horse moves: (to, leg).
    pub horse: [List<(u8, u8), 8>; 90],
    /// Horses attacking a point: (horse square, leg).
    pub horse_attackers: [List<(u8, u8), 8>; 90],
    /// Elephant moves staying on the same side of the river: (to, eye).
    pub elephant: [List<(u8, u8), 4>; 90],
    /// Diagonal one-steps inside the palace containing the point.
    pub advisor: [List<u8, 4>; 90],
    /// Orthogonal one-steps inside the palace containing the point.
    pub general: [List<u8, 4>; 90],
    /// Soldier moves per side.
    pub soldier: [[List<u8, 3>; 90]; 2],
    /// Squares from which a soldier of the side *opposite* to the index attacks the point.
    pub soldier_attackers: [[List<u8, 3>; 90]; 2],
}

#[inline]
pub(crate) fn sq(file: i32, rank: i32) -> Option<u8> {
    if (0..9).contains(&file) && (0..10).contains(&rank) {
        Some((rank * 9 + file) as u8)
    } else {
        None
    }
}

/// Which palace (0 = Red, 1 = Black) contains the point, if any.
pub(crate) fn palace_of(file: i32, rank: i32) -> Option<usize> {
    if !(3..=5).contains(&file) {
        return None;
    }
    match rank {
        0..=2 => Some(0),
        7..=9 => Some(1),
        _ => None,
    }
}

fn build() -> Tables {
    let mut t = Tables {
        rays: [[List::new(); 4]; 90],
        horse: [List::new(); 90],
        horse_attackers: [List::new(); 90],
        elephant: [List::new(); 90],
        advisor: [List::new(); 90],
        general: [List::new(); 90],
        soldier: [[List::new(); 90]; 2],
        soldier_attackers: [[List::new(); 90]; 2],
    };
    const DIRS: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
    const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    for s in 0..90usize {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        for (d, &(df, dr)) in DIRS.iter().enumerate() {
            let (mut x, mut y) = (f + df, r + dr);
            while let Some(to) = sq(x, y) {
                t.rays[s][d].push(to);
                x += df;
                y += dr;
            }
        }
        // Horse: two steps along (df, dr) direction then one sideways; leg one step along.
        for &(df, dr) in &DIRS {
            let leg = sq(f + df, r + dr);
            for side in [-1, 1] {
                let (tf, tr) = if df != 0 {
                    (f + 2 * df, r + side)
                } else {
                    (f + side, r + 2 * dr)
                };
                if let (Some(to), Some(leg)) = (sq(tf, tr), leg) {
                    t.horse[s].push((to, leg));
                }
            }
        }
        // Elephant.
        for &(df, dr) in &DIAG {
            let (tf, tr) = (f + 2 * df, r + 2 * dr);
            if let (Some(to), Some(eye)) = (sq(tf, tr), sq(f + df, r + dr)) {
                if (r <= 4) == (tr <= 4) {
                    t.elephant[s].push((to, eye));
                }
            }
        }
        // Advisor and general inside the palace.
        if let Some(p) = palace_of(f, r) {
            for &(df, dr) in &DIAG {
                if palace_of(f + df, r + dr) == Some(p) {
                    t.advisor[s].push(sq(f + df, r + dr).unwrap_or(0));
                }
            }
            for &(df, dr) in &DIRS {
                if palace_of(f + df, r + dr) == Some(p) {
                    t.general[s].push(sq(f + df, r + dr).unwrap_or(0));
                }
            }
        }
        // Soldiers: Red moves up (+rank) and has crossed from rank 5; Black moves down.
        for side in 0..2 {
            let (fwd, crossed) = if side == 0 { (1, r >= 5) } else { (-1, r <= 4) };
            if let Some(to) = sq(f, r + fwd) {
                t.soldier[side][s].push(to);
            }
            if crossed {
                for df in [-1, 1] {
                    if let Some(to) = sq(f + df, r) {
                        t.soldier[side][s].push(to);
                    }
                }
            }
        }
    }
    for s in 0..90usize {
        for &(to, leg) in t.horse[s].as_slice() {
            t.horse_attackers[to as usize].push((s as u8, leg));
        }
        for side in 0..2 {
            for &to in t.soldier[side][s].as_slice() {
                // A soldier of `side` on `s` attacks `to`, whose owner is the other side.
                t.soldier_attackers[1 - side][to as usize].push(s as u8);
            }
        }
    }
    t
}

static TABLES: LazyLock<Tables> = LazyLock::new(build);

#[inline]
pub(crate) fn tables() -> &'static Tables {
    &TABLES
}
