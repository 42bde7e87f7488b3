//! Bitboard primitives in Pascal Pons' layout (private).
//!
//! Bit `col * 7 + row` is the cell of column `col` (0 = leftmost) and row `row` (0 = bottom);
//! bit `col * 7 + 6` is an always-empty sentinel above each column, so shifting a column's
//! bits never bleeds into the next column's playable cells.

/// Number of columns.
pub(crate) const WIDTH: usize = 7;
/// Number of rows.
pub(crate) const HEIGHT: usize = 6;
/// Number of cells.
pub(crate) const CELLS: u32 = (WIDTH * HEIGHT) as u32;
/// Bits per column (one sentinel bit above the six cells).
pub(crate) const COL_BITS: usize = HEIGHT + 1;

/// One bit at the bottom cell of every column.
pub(crate) const BOTTOM: u64 = {
    let mut m = 0u64;
    let mut c = 0;
    while c < WIDTH {
        m |= 1u64 << (c * COL_BITS);
        c += 1;
    }
    m
};

/// Every playable cell.
pub(crate) const BOARD: u64 = BOTTOM * ((1u64 << HEIGHT) - 1);

/// The six playable cells of column `col`.
#[inline]
pub(crate) const fn column_mask(col: usize) -> u64 {
    ((1u64 << HEIGHT) - 1) << (col * COL_BITS)
}

/// The bottom cell of column `col`.
#[inline]
pub(crate) const fn bottom_mask_col(col: usize) -> u64 {
    1u64 << (col * COL_BITS)
}

/// The top playable cell of column `col`.
#[inline]
pub(crate) const fn top_mask_col(col: usize) -> u64 {
    1u64 << (HEIGHT - 1 + col * COL_BITS)
}

/// The playable cells (lowest empty cell of every non-full column).
#[inline]
pub(crate) const fn possible(mask: u64) -> u64 {
    mask.wrapping_add(BOTTOM) & BOARD
}

/// Whether `stones` contain four in a row in any direction.
#[inline]
pub(crate) const fn has_four(stones: u64) -> bool {
    // vertical, horizontal, diagonal "/", diagonal "\"
    let shifts = [1, COL_BITS, COL_BITS + 1, COL_BITS - 1];
    let mut i = 0;
    while i < 4 {
        let s = shifts[i];
        let m = stones & (stones >> s);
        if m & (m >> (2 * s)) != 0 {
            return true;
        }
        i += 1;
    }
    false
}

/// The empty cells that would complete four in a row for `stones` (whether or not they are
/// playable now). `mask` is every occupied cell.
#[inline]
pub(crate) const fn winning_cells(stones: u64, mask: u64) -> u64 {
    const H: usize = HEIGHT;
    let p0 = stones;
    // vertical: three stones below
    let mut r = (p0 << 1) & (p0 << 2) & (p0 << 3);

    // horizontal (shift H+1), diagonal (shift H), anti-diagonal (shift H+2)
    let shifts = [H + 1, H, H + 2];
    let mut i = 0;
    while i < 3 {
        let s = shifts[i];
        let mut p = (p0 << s) & (p0 << (2 * s));
        r |= p & (p0 << (3 * s));
        r |= p & (p0 >> s);
        p = (p0 >> s) & (p0 >> (2 * s));
        r |= p & (p0 << s);
        r |= p & (p0 >> (3 * s));
        i += 1;
    }
    r & (BOARD ^ mask)
}

/// The position mirrored left-right (column `c` ↔ `6 - c`).
#[inline]
pub(crate) const fn mirror(bits: u64) -> u64 {
    let mut out = 0u64;
    let mut c = 0;
    while c < WIDTH {
        let col = (bits >> (c * COL_BITS)) & ((1u64 << COL_BITS) - 1);
        out |= col << ((WIDTH - 1 - c) * COL_BITS);
        c += 1;
    }
    out
}

/// Number of stones in column `col`.
#[inline]
pub(crate) const fn column_height(mask: u64, col: usize) -> usize {
    ((mask & column_mask(col)) >> (col * COL_BITS)).count_ones() as usize
}
