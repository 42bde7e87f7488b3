//! Winograd minimal-filtering 3×3 convolutions (stride 1, zero padding 1): F(2×2, 3×3) and
//! F(4×4, 3×3) (Lavin & Gray 2016, "Fast Algorithms for Convolutional Neural Networks"), with
//! the exact adjoints of every step for the backward pass.
//!
//! A 3×3 convolution of an `H × W` board is computed on output tiles of `m × m` points
//! (`m` = 2 or 4), each read from an input tile of `t × t = (m + 2) × (m + 2)` points:
//!
//! * input transform `V = Bᵀ d B` per tile and input channel (`d` the input tile, zero outside
//!   the board);
//! * weight transform `U = G g Gᵀ` per (input, output) channel pair (`g` the 3×3 kernel);
//! * `t²` matrix products `M[ξ] = V[ξ] · U[ξ]` (`[tiles, C_in] × [C_in, C_out]`), one per
//!   point `ξ` of the transformed tile;
//! * output transform `Y = Aᵀ M A` per tile and output channel (only the points on the board
//!   are written).
//!
//! Multiplications per output point and channel pair: `t²/m²` (4 for F(2×2), 2.25 for
//! F(4×4)) instead of 9, so the products shrink 2.25× / 4×, less the tiles that overhang the
//! board (15×15: 16×16 computed, 12%). F(4×4)'s transform matrices have larger entries, so its
//! rounding error is larger (still ≈1e-5 relative on trained networks, see the tests).
//!
//! The backward pass runs the same steps transposed: `dM = A dY Aᵀ`, `dU[ξ] = V[ξ]ᵀ · dM[ξ]`,
//! `dV[ξ] = dM[ξ] · U[ξ]ᵀ`, `dx = Σ_tiles B dV Bᵀ` (overlapping tiles add) and
//! `dg = Gᵀ dU G`: the exact gradient of the Winograd forward, which equals the convolution's
//! gradient up to rounding.
//!
//! Training's 3×3 convolutions ([`crate::conv3x3`]) run forward and backward this way.
//!
//! Layout: activations are NHWC (`[B, H, W, C]`, channel fastest) so that every transform is
//! a loop over channels (vectorised; compiled for AVX2/FMA where the CPU has them). Transformed
//! arrays are `[tiles, t², C]` (a tile's transformed values together; the matrix of point `ξ`
//! has row stride `t²·C`), weights `[t², C_in, C_out]`.

/// The output tile size of a Winograd algorithm for 3×3 kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    /// F(2×2, 3×3): 4×4 input tiles, 4 multiplications per output instead of 9.
    F2,
    /// F(4×4, 3×3): 6×6 input tiles, 2.25 multiplications per output instead of 9.
    F4,
}

/// The transform matrices of one algorithm: `Bᵀ` `[t, t]`, `G` `[t, 3]`, `Aᵀ` `[m, t]`.
#[derive(Clone, Debug)]
pub(crate) struct Transform {
    /// Output tile side.
    pub m: usize,
    /// Input tile side (`m + 2`).
    pub t: usize,
    bt: Vec<f32>,
    g: Vec<f32>,
    at: Vec<f32>,
}

impl Transform {
    pub fn new(tile: Tile) -> Transform {
        match tile {
            Tile::F2 => Transform {
                m: 2,
                t: 4,
                #[rustfmt::skip]
                bt: vec![
                    1.0, 0.0, -1.0, 0.0,
                    0.0, 1.0, 1.0, 0.0,
                    0.0, -1.0, 1.0, 0.0,
                    0.0, 1.0, 0.0, -1.0,
                ],
                #[rustfmt::skip]
                g: vec![
                    1.0, 0.0, 0.0,
                    0.5, 0.5, 0.5,
                    0.5, -0.5, 0.5,
                    0.0, 0.0, 1.0,
                ],
                #[rustfmt::skip]
                at: vec![
                    1.0, 1.0, 1.0, 0.0,
                    0.0, 1.0, -1.0, -1.0,
                ],
            },
            Tile::F4 => Transform {
                m: 4,
                t: 6,
                #[rustfmt::skip]
                bt: vec![
                    4.0, 0.0, -5.0, 0.0, 1.0, 0.0,
                    0.0, -4.0, -4.0, 1.0, 1.0, 0.0,
                    0.0, 4.0, -4.0, -1.0, 1.0, 0.0,
                    0.0, -2.0, -1.0, 2.0, 1.0, 0.0,
                    0.0, 2.0, -1.0, -2.0, 1.0, 0.0,
                    0.0, 4.0, 0.0, -5.0, 0.0, 1.0,
                ],
                #[rustfmt::skip]
                g: vec![
                    1.0 / 4.0, 0.0, 0.0,
                    -1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0,
                    -1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0,
                    1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0,
                    1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0,
                    0.0, 0.0, 1.0,
                ],
                #[rustfmt::skip]
                at: vec![
                    1.0, 1.0, 1.0, 1.0, 1.0, 0.0,
                    0.0, 1.0, -1.0, 2.0, -2.0, 0.0,
                    0.0, 1.0, 1.0, 4.0, 4.0, 0.0,
                    0.0, 1.0, -1.0, 8.0, -8.0, 1.0,
                ],
            },
        }
    }

    /// Points of a transformed tile, `t²`.
    pub fn points(&self) -> usize {
        self.t * self.t
    }

    /// `U[ξ, ci, co] = (G g Gᵀ)[ξ]` of `weight` `[C_out, C_in, 3, 3]` (burn's layout);
    /// returns `[t², C_in, C_out]`.
    pub fn weights_from_oihw(&self, weight: &[f32], cin: usize, cout: usize) -> Vec<f32> {
        self.weights(cin, cout, |co, ci, k| weight[(co * cin + ci) * 9 + k])
    }

    /// As [`Transform::weights_from_oihw`] for weights `[(ky·3 + kx)·C_in + ci, C_out]` (the
    /// folded inference layout).
    pub fn weights_from_hwio(&self, weight: &[f32], cin: usize, cout: usize) -> Vec<f32> {
        self.weights(cin, cout, |co, ci, k| weight[(k * cin + ci) * cout + co])
    }

    fn weights(&self, cin: usize, cout: usize, w: impl Fn(usize, usize, usize) -> f32) -> Vec<f32> {
        let t = self.t;
        let mut u = vec![0.0f32; t * t * cin * cout];
        let mut tmp = [0.0f32; 6 * 3];
        for co in 0..cout {
            for ci in 0..cin {
                // tmp[a][kx] = Σ_ky G[a][ky] g[ky][kx]
                for a in 0..t {
                    for kx in 0..3 {
                        tmp[a * 3 + kx] = (0..3)
                            .map(|ky| self.g[a * 3 + ky] * w(co, ci, ky * 3 + kx))
                            .sum();
                    }
                }
                for a in 0..t {
                    for b in 0..t {
                        let v: f32 = (0..3).map(|kx| tmp[a * 3 + kx] * self.g[b * 3 + kx]).sum();
                        u[((a * t + b) * cin + ci) * cout + co] = v;
                    }
                }
            }
        }
        u
    }

    /// The adjoint of the weight transform: `dg = Gᵀ dU G` of `du` `[t², C_in, C_out]`,
    /// returned as `[C_out, C_in, 3, 3]`.
    pub fn weight_grad_to_oihw(&self, du: &[f32], cin: usize, cout: usize) -> Vec<f32> {
        let t = self.t;
        let mut dw = vec![0.0f32; cout * cin * 9];
        let mut tmp = vec![0.0f32; 3 * t];
        for co in 0..cout {
            for ci in 0..cin {
                // tmp[ky][b] = Σ_a G[a][ky] dU[a][b]
                for ky in 0..3 {
                    for b in 0..t {
                        tmp[ky * t + b] = (0..t)
                            .map(|a| self.g[a * 3 + ky] * du[((a * t + b) * cin + ci) * cout + co])
                            .sum();
                    }
                }
                for ky in 0..3 {
                    for kx in 0..3 {
                        dw[(co * cin + ci) * 9 + ky * 3 + kx] =
                            (0..t).map(|b| tmp[ky * t + b] * self.g[b * 3 + kx]).sum();
                    }
                }
            }
        }
        dw
    }
}

/// The tiles of a batch of boards.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tiling {
    /// Samples.
    pub b: usize,
    /// Board height and width.
    pub h: usize,
    pub w: usize,
    /// Tiles per column and per row: `⌈H/m⌉`, `⌈W/m⌉`.
    pub th: usize,
    pub tw: usize,
}

impl Tiling {
    pub fn new(tr: &Transform, b: usize, h: usize, w: usize) -> Tiling {
        Tiling {
            b,
            h,
            w,
            th: h.div_ceil(tr.m),
            tw: w.div_ceil(tr.m),
        }
    }

    /// Tiles of one sample.
    pub fn per_sample(&self) -> usize {
        self.th * self.tw
    }
}

/// Reference transforms: the matrices of [`Transform`] applied one channel at a time (any
/// CPU, any channel count). The AVX2 kernels of [`fast`] are checked against them.
mod reference {
    use super::{Tiling, Transform};

    fn origin(g: &Tiling, m: usize, tile: usize) -> (usize, isize, isize) {
        let per = g.per_sample();
        let r = tile % per;
        (tile / per, (r / g.tw * m) as isize, (r % g.tw * m) as isize)
    }

    pub fn input_transform(
        tr: &Transform,
        g: &Tiling,
        x: &[f32],
        c: usize,
        first_tile: usize,
        v: &mut [f32],
    ) {
        let t = tr.t;
        let n = v.len() / (t * t * c);
        for k in 0..n {
            let (bi, oy, ox) = origin(g, tr.m, first_tile + k);
            for ch in 0..c {
                let d = |i: usize, j: usize| {
                    let (yy, xx) = (oy + i as isize - 1, ox + j as isize - 1);
                    if yy < 0 || xx < 0 || yy >= g.h as isize || xx >= g.w as isize {
                        0.0
                    } else {
                        x[((bi * g.h + yy as usize) * g.w + xx as usize) * c + ch]
                    }
                };
                for a in 0..t {
                    for b in 0..t {
                        let mut acc = 0.0f32;
                        for i in 0..t {
                            for j in 0..t {
                                acc += tr.bt[a * t + i] * d(i, j) * tr.bt[b * t + j];
                            }
                        }
                        v[(k * t * t + a * t + b) * c + ch] = acc;
                    }
                }
            }
        }
    }

    pub fn input_transform_adjoint(
        tr: &Transform,
        g: &Tiling,
        dv: &[f32],
        c: usize,
        first_tile: usize,
        first_sample: usize,
        dx: &mut [f32],
    ) {
        let t = tr.t;
        let n = dv.len() / (t * t * c);
        for k in 0..n {
            let (bi, oy, ox) = origin(g, tr.m, first_tile + k);
            let bi = bi - first_sample;
            for ch in 0..c {
                for i in 0..t {
                    for j in 0..t {
                        let (yy, xx) = (oy + i as isize - 1, ox + j as isize - 1);
                        if yy < 0 || xx < 0 || yy >= g.h as isize || xx >= g.w as isize {
                            continue;
                        }
                        let mut acc = 0.0f32;
                        for a in 0..t {
                            for b in 0..t {
                                acc += tr.bt[a * t + i]
                                    * dv[(k * t * t + a * t + b) * c + ch]
                                    * tr.bt[b * t + j];
                            }
                        }
                        dx[((bi * g.h + yy as usize) * g.w + xx as usize) * c + ch] += acc;
                    }
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn output_transform(
        tr: &Transform,
        g: &Tiling,
        mm: &[f32],
        c: usize,
        first_tile: usize,
        first_sample: usize,
        bias: &[f32],
        residual: Option<&[f32]>,
        relu: bool,
        y: &mut [f32],
    ) {
        let (t, m) = (tr.t, tr.m);
        let n = mm.len() / (t * t * c);
        for k in 0..n {
            let (bi, oy, ox) = origin(g, m, first_tile + k);
            let (bi, oy, ox) = (bi - first_sample, oy as usize, ox as usize);
            for ch in 0..c {
                for p in 0..m.min(g.h - oy) {
                    for q in 0..m.min(g.w - ox) {
                        let mut acc = bias[ch];
                        for a in 0..t {
                            for b in 0..t {
                                acc += tr.at[p * t + a]
                                    * mm[(k * t * t + a * t + b) * c + ch]
                                    * tr.at[q * t + b];
                            }
                        }
                        let at = ((bi * g.h + oy + p) * g.w + ox + q) * c + ch;
                        if relu {
                            if let Some(r) = residual {
                                acc += r[at];
                            }
                            acc = acc.max(0.0);
                        }
                        y[at] = acc;
                    }
                }
            }
        }
    }

    pub fn output_transform_adjoint(
        tr: &Transform,
        g: &Tiling,
        dy: &[f32],
        c: usize,
        first_tile: usize,
        dm: &mut [f32],
    ) {
        let (t, m) = (tr.t, tr.m);
        let n = dm.len() / (t * t * c);
        for k in 0..n {
            let (bi, oy, ox) = origin(g, m, first_tile + k);
            let (oy, ox) = (oy as usize, ox as usize);
            for ch in 0..c {
                for a in 0..t {
                    for b in 0..t {
                        let mut acc = 0.0f32;
                        for p in 0..m.min(g.h - oy) {
                            for q in 0..m.min(g.w - ox) {
                                acc += tr.at[p * t + a]
                                    * dy[((bi * g.h + oy + p) * g.w + ox + q) * c + ch]
                                    * tr.at[q * t + b];
                            }
                        }
                        dm[(k * t * t + a * t + b) * c + ch] = acc;
                    }
                }
            }
        }
    }
}

/// The transforms on `$lanes` channels at a time (channel counts divisible by it), the
/// one-dimensional transforms written out for F(2×2) and F(4×4), as module `$module` for the
/// vector type `$V` of target feature `$feature` and its intrinsics. Lane for lane the same
/// operations in the same order whatever the width, so both widths give the same bits.
macro_rules! vector_transforms {
    (
        $module:ident, $lanes:literal, $feature:literal, $V:ty,
        $setzero:ident, $set1:ident, $add:ident, $sub:ident, $fmadd:ident, $mul:ident,
        $max:ident, $loadu:ident, $storeu:ident
    ) => {
        #[cfg(target_arch = "x86_64")]
        mod $module {
            use super::Tiling;
            use std::arch::x86_64::*;

            type V = $V;

            /// The one-dimensional transforms of an algorithm (arrays hold `T` or `M` used entries).
            pub trait Kernel {
                const T: usize;
                const M: usize;
                /// `Bᵀ d`.
                unsafe fn bt(d: &[V; 6]) -> [V; 6];
                /// `B v` (the adjoint of `bt`).
                unsafe fn b(v: &[V; 6]) -> [V; 6];
                /// `Aᵀ m` (`M` outputs).
                unsafe fn at(m: &[V; 6]) -> [V; 6];
                /// `A y` (the adjoint of `at`; `M` inputs).
                unsafe fn a(y: &[V; 6]) -> [V; 6];
            }

            pub struct K2;
            pub struct K4;

            #[inline(always)]
            unsafe fn k(x: f32) -> V {
                $set1(x)
            }
            #[inline(always)]
            unsafe fn add(a: V, b: V) -> V {
                $add(a, b)
            }
            #[inline(always)]
            unsafe fn sub(a: V, b: V) -> V {
                $sub(a, b)
            }
            /// `a + s·b`.
            #[inline(always)]
            unsafe fn fma(a: V, s: f32, b: V) -> V {
                $fmadd(k(s), b, a)
            }
            #[inline(always)]
            unsafe fn mul(s: f32, b: V) -> V {
                $mul(k(s), b)
            }

            impl Kernel for K2 {
                const T: usize = 4;
                const M: usize = 2;
                #[inline(always)]
                unsafe fn bt(d: &[V; 6]) -> [V; 6] {
                    let z = $setzero();
                    [
                        sub(d[0], d[2]),
                        add(d[1], d[2]),
                        sub(d[2], d[1]),
                        sub(d[1], d[3]),
                        z,
                        z,
                    ]
                }
                #[inline(always)]
                unsafe fn b(v: &[V; 6]) -> [V; 6] {
                    let z = $setzero();
                    [
                        v[0],
                        add(sub(v[1], v[2]), v[3]),
                        sub(add(v[1], v[2]), v[0]),
                        sub(z, v[3]),
                        z,
                        z,
                    ]
                }
                #[inline(always)]
                unsafe fn at(m: &[V; 6]) -> [V; 6] {
                    let z = $setzero();
                    [
                        add(add(m[0], m[1]), m[2]),
                        sub(sub(m[1], m[2]), m[3]),
                        z,
                        z,
                        z,
                        z,
                    ]
                }
                #[inline(always)]
                unsafe fn a(y: &[V; 6]) -> [V; 6] {
                    let z = $setzero();
                    [y[0], add(y[0], y[1]), sub(y[0], y[1]), sub(z, y[1]), z, z]
                }
            }

            impl Kernel for K4 {
                const T: usize = 6;
                const M: usize = 4;
                #[inline(always)]
                unsafe fn bt(d: &[V; 6]) -> [V; 6] {
                    // Shared terms of rows 1–4.
                    let p = fma(d[4], -4.0, d[2]); // d4 − 4 d2
                    let q = fma(d[3], -4.0, d[1]); // d3 − 4 d1
                    let r = sub(d[4], d[2]); // d4 − d2
                    let s = mul(2.0, sub(d[3], d[1])); // 2 (d3 − d1)
                    [
                        fma(fma(d[4], 4.0, d[0]), -5.0, d[2]),
                        add(p, q),
                        sub(p, q),
                        add(r, s),
                        sub(r, s),
                        fma(fma(d[5], 4.0, d[1]), -5.0, d[3]),
                    ]
                }
                #[inline(always)]
                unsafe fn b(v: &[V; 6]) -> [V; 6] {
                    let s14 = add(v[1], v[2]);
                    let d12 = sub(v[1], v[2]);
                    let s34 = add(v[3], v[4]);
                    let d34 = sub(v[3], v[4]);
                    [
                        mul(4.0, v[0]),
                        fma(fma(mul(-4.0, d12), -2.0, d34), 4.0, v[5]),
                        fma(fma(mul(-5.0, v[0]), -4.0, s14), -1.0, s34),
                        fma(fma(d12, 2.0, d34), -5.0, v[5]),
                        add(add(v[0], s14), s34),
                        v[5],
                    ]
                }
                #[inline(always)]
                unsafe fn at(m: &[V; 6]) -> [V; 6] {
                    let z = $setzero();
                    let s12 = add(m[1], m[2]);
                    let d12 = sub(m[1], m[2]);
                    let s34 = add(m[3], m[4]);
                    let d34 = sub(m[3], m[4]);
                    [
                        add(add(m[0], s12), s34),
                        fma(d12, 2.0, d34),
                        fma(s12, 4.0, s34),
                        add(fma(d12, 8.0, d34), m[5]),
                        z,
                        z,
                    ]
                }
                #[inline(always)]
                unsafe fn a(y: &[V; 6]) -> [V; 6] {
                    let s02 = add(y[0], y[2]);
                    let s13 = add(y[1], y[3]);
                    let e = fma(y[0], 4.0, y[2]); // y0 + 4 y2
                    let o = fma(mul(2.0, y[1]), 8.0, y[3]); // 2 y1 + 8 y3
                    [
                        y[0],
                        add(s02, s13),
                        sub(s02, s13),
                        add(e, o),
                        sub(e, o),
                        y[3],
                    ]
                }
            }

            #[inline(always)]
            fn origin(g: &Tiling, m: usize, tile: usize) -> (usize, usize, usize) {
                let per = g.per_sample();
                let r = tile % per;
                (tile / per, r / g.tw * m, r % g.tw * m)
            }

            #[inline(always)]
            unsafe fn load(src: &[f32], at: usize) -> V {
                assert!(at + $lanes <= src.len());
                $loadu(src.as_ptr().add(at))
            }

            #[inline(always)]
            unsafe fn store(dst: &mut [f32], at: usize, v: V) {
                assert!(at + $lanes <= dst.len());
                $storeu(dst.as_mut_ptr().add(at), v)
            }

            // Each 2-D transform `F d Fᵀ` runs as a column pass straight from the loads into a tile
            // buffer, then a row pass from the buffer straight to the stores: the buffer is written
            // and read once. (Loading the whole tile into a fresh zeroed array first, then
            // transforming it in place, cost a memset call and three more passes over it per tile and
            // channel group: about as much time as the arithmetic.) The buffer is zeroed once per
            // call; cells a kernel does not use keep stale values it never reads.

            #[target_feature(enable = $feature)]
            pub unsafe fn input_transform<K: Kernel>(
                g: &Tiling,
                x: &[f32],
                c: usize,
                first_tile: usize,
                v: &mut [f32],
            ) {
                let (t, m) = (K::T, K::M);
                let n = v.len() / (t * t * c);
                let zero = $setzero();
                let mut tmp = [[zero; 6]; 6];
                for kk in 0..n {
                    let (bi, oy, ox) = origin(g, m, first_tile + kk);
                    for c0 in (0..c).step_by($lanes) {
                        for j in 0..t {
                            let xx = (ox + j).wrapping_sub(1);
                            let col: [V; 6] = std::array::from_fn(|i| {
                                let yy = (oy + i).wrapping_sub(1);
                                if i < t && yy < g.h && xx < g.w {
                                    load(x, ((bi * g.h + yy) * g.w + xx) * c + c0)
                                } else {
                                    zero
                                }
                            });
                            let r = K::bt(&col);
                            for (row, &val) in tmp.iter_mut().zip(&r).take(t) {
                                row[j] = val;
                            }
                        }
                        for (a, row) in tmp.iter().enumerate().take(t) {
                            let r = K::bt(row);
                            for (b, &val) in r.iter().enumerate().take(t) {
                                store(v, (kk * t * t + a * t + b) * c + c0, val);
                            }
                        }
                    }
                }
            }

            #[target_feature(enable = $feature)]
            pub unsafe fn input_transform_adjoint<K: Kernel>(
                g: &Tiling,
                dv: &[f32],
                c: usize,
                first_tile: usize,
                first_sample: usize,
                dx: &mut [f32],
            ) {
                let (t, m) = (K::T, K::M);
                let n = dv.len() / (t * t * c);
                let zero = $setzero();
                let mut tmp = [[zero; 6]; 6];
                for kk in 0..n {
                    let (bi, oy, ox) = origin(g, m, first_tile + kk);
                    let bi = bi - first_sample;
                    for c0 in (0..c).step_by($lanes) {
                        for j in 0..t {
                            let col: [V; 6] = std::array::from_fn(|a| {
                                if a < t {
                                    load(dv, (kk * t * t + a * t + j) * c + c0)
                                } else {
                                    zero
                                }
                            });
                            let r = K::b(&col);
                            for (row, &val) in tmp.iter_mut().zip(&r).take(t) {
                                row[j] = val;
                            }
                        }
                        for (i, row) in tmp.iter().enumerate().take(t) {
                            let yy = (oy + i).wrapping_sub(1);
                            if yy >= g.h {
                                continue;
                            }
                            let r = K::b(row);
                            for (j, &val) in r.iter().enumerate().take(t) {
                                let xx = (ox + j).wrapping_sub(1);
                                if xx < g.w {
                                    let at = ((bi * g.h + yy) * g.w + xx) * c + c0;
                                    store(dx, at, add(load(dx, at), val));
                                }
                            }
                        }
                    }
                }
            }

            #[allow(clippy::too_many_arguments)]
            #[target_feature(enable = $feature)]
            pub unsafe fn output_transform<K: Kernel>(
                g: &Tiling,
                mm: &[f32],
                c: usize,
                first_tile: usize,
                first_sample: usize,
                bias: &[f32],
                residual: Option<&[f32]>,
                relu: bool,
                y: &mut [f32],
            ) {
                let (t, m) = (K::T, K::M);
                let n = mm.len() / (t * t * c);
                let zero = $setzero();
                let mut tmp = [[zero; 6]; 6];
                for kk in 0..n {
                    let (bi, oy, ox) = origin(g, m, first_tile + kk);
                    let bi = bi - first_sample;
                    let (rows, cols) = (m.min(g.h - oy), m.min(g.w - ox));
                    for c0 in (0..c).step_by($lanes) {
                        for b in 0..t {
                            let col: [V; 6] = std::array::from_fn(|a| {
                                if a < t {
                                    load(mm, (kk * t * t + a * t + b) * c + c0)
                                } else {
                                    zero
                                }
                            });
                            let r = K::at(&col);
                            for (row, &val) in tmp.iter_mut().zip(&r).take(m) {
                                row[b] = val;
                            }
                        }
                        let bv = load(bias, c0);
                        for (p, row) in tmp.iter().enumerate().take(rows) {
                            let r = K::at(row);
                            for (q, &val) in r.iter().enumerate().take(cols) {
                                let at = ((bi * g.h + oy + p) * g.w + ox + q) * c + c0;
                                let mut o = add(val, bv);
                                if relu {
                                    if let Some(res) = residual {
                                        o = add(o, load(res, at));
                                    }
                                    o = $max(o, zero);
                                }
                                store(y, at, o);
                            }
                        }
                    }
                }
            }

            #[target_feature(enable = $feature)]
            pub unsafe fn output_transform_adjoint<K: Kernel>(
                g: &Tiling,
                dy: &[f32],
                c: usize,
                first_tile: usize,
                dm: &mut [f32],
            ) {
                let (t, m) = (K::T, K::M);
                let n = dm.len() / (t * t * c);
                let zero = $setzero();
                let mut tmp = [[zero; 6]; 6];
                for kk in 0..n {
                    let (bi, oy, ox) = origin(g, m, first_tile + kk);
                    let (rows, cols) = (m.min(g.h - oy), m.min(g.w - ox));
                    for c0 in (0..c).step_by($lanes) {
                        for q in 0..m {
                            let col: [V; 6] = std::array::from_fn(|p| {
                                if p < rows && q < cols {
                                    load(dy, ((bi * g.h + oy + p) * g.w + ox + q) * c + c0)
                                } else {
                                    zero
                                }
                            });
                            let r = K::a(&col);
                            for (row, &val) in tmp.iter_mut().zip(&r).take(t) {
                                row[q] = val;
                            }
                        }
                        for (a, row) in tmp.iter().enumerate().take(t) {
                            let r = K::a(row);
                            for (b, &val) in r.iter().enumerate().take(t) {
                                store(dm, (kk * t * t + a * t + b) * c + c0, val);
                            }
                        }
                    }
                }
            }
        }
    };
}

// AVX2 + FMA on 8 channels at a time.
vector_transforms!(
    fast,
    8,
    "avx2,fma",
    __m256,
    _mm256_setzero_ps,
    _mm256_set1_ps,
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_fmadd_ps,
    _mm256_mul_ps,
    _mm256_max_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps
);
// AVX-512F on 16 (half the loop trips and index arithmetic of 8 for 32 and more channels).
vector_transforms!(
    fast512,
    16,
    "avx512f",
    __m512,
    _mm512_setzero_ps,
    _mm512_set1_ps,
    _mm512_add_ps,
    _mm512_sub_ps,
    _mm512_fmadd_ps,
    _mm512_mul_ps,
    _mm512_max_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps
);

/// Whether the AVX2 kernels run for `c` channels (the CPU has AVX2 and FMA, `c` is a multiple
/// of 8).
pub(crate) fn fast_path(c: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        c.is_multiple_of(8)
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = c;
        false
    }
}

/// Dispatches to the AVX-512 or AVX2 kernel of the transform's tile size (16 or 8 channels at
/// a time) or to the reference.
macro_rules! dispatch {
    ($tr:expr, $c:expr, $name:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if usize::is_multiple_of($c, 16) && crate::narrow::available() {
                // SAFETY: `available` checked AVX-512F; the kernels bound-check every vector
                // load and store.
                unsafe {
                    match $tr.m {
                        2 => fast512::$name::<fast512::K2>($($arg),*),
                        _ => fast512::$name::<fast512::K4>($($arg),*),
                    }
                }
                return;
            }
            if fast_path($c) {
                // SAFETY: fast_path checked AVX2 and FMA; the kernels bound-check every
                // vector load and store.
                unsafe {
                    match $tr.m {
                        2 => fast::$name::<fast::K2>($($arg),*),
                        _ => fast::$name::<fast::K4>($($arg),*),
                    }
                }
                return;
            }
        }
        reference::$name($tr, $($arg),*)
    }};
}

/// `v[ξ, tile, c] = (Bᵀ d B)[ξ]` for the tiles `first_tile..` of `v`'s length (`v` is
/// `[n, t², C]` with `n = v.len() / (t²·C)`) of `x` NHWC `[B, H, W, C]` (whole batch).
pub(crate) fn input_transform(
    tr: &Transform,
    g: &Tiling,
    x: &[f32],
    c: usize,
    first_tile: usize,
    v: &mut [f32],
) {
    dispatch!(tr, c, input_transform(g, x, c, first_tile, v))
}

/// The adjoint of [`input_transform`]: adds `(B dV Bᵀ)` of the tiles `first_tile..` of
/// `dv` `[n, t², C]` into `dx` NHWC, whose first sample is sample `first_sample` of the
/// batch (`dx` holds whole samples).
pub(crate) fn input_transform_adjoint(
    tr: &Transform,
    g: &Tiling,
    dv: &[f32],
    c: usize,
    first_tile: usize,
    first_sample: usize,
    dx: &mut [f32],
) {
    dispatch!(
        tr,
        c,
        input_transform_adjoint(g, dv, c, first_tile, first_sample, dx)
    )
}

/// `y = (Aᵀ M A)` of the tiles `first_tile..` of `mm` `[n, t², C]`, plus `bias` `[C]`,
/// written into `y` NHWC whose first sample is `first_sample` of the batch (only board
/// points). With `relu`, `y = max(0, y + residual)` where `residual` (NHWC, like `y`) is
/// given, else `max(0, y)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn output_transform(
    tr: &Transform,
    g: &Tiling,
    mm: &[f32],
    c: usize,
    first_tile: usize,
    first_sample: usize,
    bias: &[f32],
    residual: Option<&[f32]>,
    relu: bool,
    y: &mut [f32],
) {
    dispatch!(
        tr,
        c,
        output_transform(g, mm, c, first_tile, first_sample, bias, residual, relu, y)
    )
}

/// The adjoint of [`output_transform`] (without bias and epilogue): `dM = A dY Aᵀ` of the
/// tiles `first_tile..` of `dm` `[n, t², C]` from `dy` NHWC (whole batch; points off the
/// board count as zero).
pub(crate) fn output_transform_adjoint(
    tr: &Transform,
    g: &Tiling,
    dy: &[f32],
    c: usize,
    first_tile: usize,
    dm: &mut [f32],
) {
    dispatch!(tr, c, output_transform_adjoint(g, dy, c, first_tile, dm))
}

/// `mm[·, ξ] = v[·, ξ] · u[ξ]` for every point `ξ`: `v` `[n, t², C_in]`, `u`
/// `[t², C_in, C_out]`, `mm` `[n, t², C_out]`. With AVX-512F by [`crate::narrow::product`]
/// (one 10×9 board's products are `[9, C_in] × [C_in, C_out]`, shorter than `gemm`'s call).
pub(crate) fn multiply(
    points: usize,
    v: &[f32],
    u: &[f32],
    cin: usize,
    cout: usize,
    mm: &mut [f32],
) {
    let n = v.len() / (points * cin);
    assert!(mm.len() >= n * points * cout && u.len() >= points * cin * cout);
    if n == 0 {
        return;
    }
    if crate::narrow::available() {
        for xi in 0..points {
            // Rows r < n of point ξ: v[(r·points + ξ)·cin ..][..cin] → mm[(r·points + ξ)·cout
            // ..][..cout].
            crate::narrow::product(
                (n, cout, cin),
                &v[xi * cin..],
                points * cin,
                &u[xi * cin * cout..],
                None,
                &mut mm[xi * cout..],
                points * cout,
            );
        }
        return;
    }
    for xi in 0..points {
        // SAFETY: row r of the product for point ξ reads v[(r·points + ξ)·cin ..][..cin] and
        // writes mm[(r·points + ξ)·cout ..][..cout], r < n, inside both (asserted above); u's
        // block ξ is [cin, cout] row-major inside u.
        unsafe {
            gemm::gemm(
                n,
                cout,
                cin,
                mm.as_mut_ptr().add(xi * cout),
                1,
                (points * cout) as isize,
                false,
                v.as_ptr().add(xi * cin),
                1,
                (points * cin) as isize,
                u.as_ptr().add(xi * cin * cout),
                1,
                cout as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    }
}

thread_local! {
    /// Per-thread transformed input and product buffers, grown on demand and reused (every
    /// value is written before it is read).
    static SCRATCH: std::cell::RefCell<(Vec<f32>, Vec<f32>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The first `len` values of `buf`, grown to hold them.
fn grow(buf: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buf.len() < len {
        buf.resize(len, 0.0);
    }
    &mut buf[..len]
}

/// `dst[i, j] (+)= Σ_k lhs[i, k] · rhs[k, j]` for `(m, n, k)` with explicit (column, row)
/// strides of each operand (`dst` included).
///
/// # Panics
/// If an operand's last element lies outside its slice.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_at(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    (dst_cs, dst_rs): (usize, usize),
    accumulate: bool,
    lhs: &[f32],
    (lhs_cs, lhs_rs): (usize, usize),
    rhs: &[f32],
    (rhs_cs, rhs_rs): (usize, usize),
) {
    if m == 0 || n == 0 {
        return;
    }
    let last =
        |cs: usize, rs: usize, rows: usize, cols: usize| (rows - 1) * rs + (cols - 1) * cs + 1;
    assert!(dst.len() >= last(dst_cs, dst_rs, m, n));
    if k > 0 {
        assert!(lhs.len() >= last(lhs_cs, lhs_rs, m, k));
        assert!(rhs.len() >= last(rhs_cs, rhs_rs, k, n));
    }
    // SAFETY: the asserts above bound every element read (lhs m×k, rhs k×n) or written
    // (dst m×n) at the given strides.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            dst_cs as isize,
            dst_rs as isize,
            accumulate,
            lhs.as_ptr(),
            lhs_cs as isize,
            lhs_rs as isize,
            rhs.as_ptr(),
            rhs_cs as isize,
            rhs_rs as isize,
            if accumulate { 1.0 } else { 0.0 },
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Samples per chunk of the batch so that one chunk's transformed input (`t²·tiles·C`
/// values per sample) stays within about 1 MiB (the core's L2).
pub(crate) fn samples_per_chunk(tr: &Transform, g: &Tiling, c: usize) -> usize {
    let per_sample = tr.points() * g.per_sample() * c.max(1) * 4;
    ((1 << 20) / per_sample).clamp(1, g.b.max(1))
}

/// Forward pass of a 3×3 convolution (padding 1) on NHWC data: `x` `[B, H, W, C_in]` → `y`
/// `[B, H, W, C_out]` (overwritten), with `u` from [`Transform::weights_from_oihw`] /
/// [`Transform::weights_from_hwio`], `bias` `[C_out]`, then `max(0, y + residual)` /
/// `max(0, y)` when `relu`. The batch is split into chunks of whole samples, run on rayon's
/// threads (serially inside a one-thread pool).
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward_nhwc(
    tr: &Transform,
    g: &Tiling,
    x: &[f32],
    cin: usize,
    u: &[f32],
    bias: &[f32],
    cout: usize,
    residual: Option<&[f32]>,
    relu: bool,
    y: &mut [f32],
) {
    let per = g.per_sample();
    let chunk = samples_per_chunk(tr, g, cin.max(cout));
    let plane = g.h * g.w * cout;
    let run = |first: usize, out: &mut [f32]| {
        let samples = out.len() / plane;
        let n = samples * per;
        SCRATCH.with(|cell| {
            let (v, mm) = &mut *cell.borrow_mut();
            let (v, mm) = (
                grow(v, tr.points() * n * cin),
                grow(mm, tr.points() * n * cout),
            );
            input_transform(tr, g, x, cin, first * per, v);
            multiply(tr.points(), v, u, cin, cout, mm);
            let res = residual.map(|r| &r[first * plane..(first + samples) * plane]);
            output_transform(tr, g, mm, cout, first * per, first, bias, res, relu, out);
        });
    };
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        if rayon::current_num_threads() > 1 && g.b > chunk {
            y.par_chunks_mut(chunk * plane)
                .enumerate()
                .for_each(|(i, out)| run(i * chunk, out));
            return;
        }
    }
    for (i, out) in y.chunks_mut(chunk * plane).enumerate() {
        run(i * chunk, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::noise;

    /// The direct convolution, NHWC, weights `[C_out, C_in, 3, 3]`: the reference.
    fn direct(
        x: &[f32],
        b: usize,
        h: usize,
        w: usize,
        cin: usize,
        wt: &[f32],
        cout: usize,
    ) -> Vec<f32> {
        let mut y = vec![0.0f32; b * h * w * cout];
        for bi in 0..b {
            for yy in 0..h {
                for xx in 0..w {
                    for co in 0..cout {
                        let mut acc = 0.0f64;
                        for ky in 0..3 {
                            for kx in 0..3 {
                                let (sy, sx) =
                                    (yy as isize + ky as isize - 1, xx as isize + kx as isize - 1);
                                if sy < 0 || sx < 0 || sy >= h as isize || sx >= w as isize {
                                    continue;
                                }
                                for ci in 0..cin {
                                    acc += x[((bi * h + sy as usize) * w + sx as usize) * cin + ci]
                                        as f64
                                        * wt[((co * cin + ci) * 3 + ky) * 3 + kx] as f64;
                                }
                            }
                        }
                        y[((bi * h + yy) * w + xx) * cout + co] = acc as f32;
                    }
                }
            }
        }
        y
    }

    #[test]
    fn winograd_forward_matches_the_direct_convolution() {
        for tile in [Tile::F2, Tile::F4] {
            let tr = Transform::new(tile);
            for &(b, h, w, cin, cout) in &[
                (1, 3, 3, 1, 1),
                (2, 15, 15, 5, 7),
                (3, 10, 9, 4, 3),
                (1, 6, 7, 8, 2),
                (2, 1, 5, 3, 3),
                // The vector paths: Xiangqi's 32 channels on its 10×9 board (one sample and
                // several), 48 and 16 → 24 on 15×15.
                (1, 10, 9, 32, 32),
                (5, 10, 9, 32, 32),
                (2, 15, 15, 48, 48),
                (1, 15, 15, 16, 24),
            ] {
                let x = noise(b * h * w * cin, 1);
                let wt = noise(cout * cin * 9, 2);
                let g = Tiling::new(&tr, b, h, w);
                let u = tr.weights_from_oihw(&wt, cin, cout);
                let mut y = vec![f32::NAN; b * h * w * cout];
                forward_nhwc(
                    &tr,
                    &g,
                    &x,
                    cin,
                    &u,
                    &vec![0.0; cout],
                    cout,
                    None,
                    false,
                    &mut y,
                );
                let r = direct(&x, b, h, w, cin, &wt, cout);
                let err = y
                    .iter()
                    .zip(&r)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0f32, f32::max);
                // Rounding grows with the outputs' size (sums of 9·C_in products): 1e-4 of
                // the largest output, or 1e-4 where outputs stay below 1.
                let scale = r.iter().fold(1.0f32, |m, v| m.max(v.abs()));
                assert!(
                    err < 1e-4 * scale,
                    "{tile:?} b{b} {h}x{w} {cin}->{cout}: max error {err} (outputs up to {scale})"
                );
            }
        }
    }

    /// The AVX2 kernels agree with the reference transforms (each of the four, both tile
    /// sizes, boards whose tiles overhang the edge, chunks that start mid-batch).
    #[test]
    fn fast_transforms_match_the_reference_transforms() {
        if !fast_path(8) {
            eprintln!("no AVX2/FMA: only the reference transforms run here");
            return;
        }
        for tile in [Tile::F2, Tile::F4] {
            let tr = Transform::new(tile);
            for &(b, h, w, c) in &[
                (2, 15, 15, 16),
                (3, 10, 9, 8),
                (3, 10, 9, 32),
                (1, 6, 7, 24),
                (2, 3, 3, 8),
            ] {
                let g = Tiling::new(&tr, b, h, w);
                let per = g.per_sample();
                // The second sample's tiles only (a chunk of the batch).
                let (first_sample, samples) = if b > 1 { (1, b - 1) } else { (0, 1) };
                let (first_tile, n) = (first_sample * per, samples * per);
                let x = noise(b * h * w * c, 3);
                let tv = tr.points() * n * c;
                let close = |name: &str, a: &[f32], r: &[f32]| {
                    let err = a
                        .iter()
                        .zip(r)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0f32, f32::max);
                    assert!(
                        err < 1e-4,
                        "{tile:?} b{b} {h}x{w} c{c} {name}: max error {err}"
                    );
                };
                // input transform
                let (mut v1, mut v2) = (vec![0.0; tv], vec![0.0; tv]);
                input_transform(&tr, &g, &x, c, first_tile, &mut v1);
                reference::input_transform(&tr, &g, &x, c, first_tile, &mut v2);
                close("input", &v1, &v2);
                // its adjoint, added into a non-zero gradient
                let dv = noise(tv, 4);
                let base = noise(samples * h * w * c, 5);
                let (mut d1, mut d2) = (base.clone(), base.clone());
                input_transform_adjoint(&tr, &g, &dv, c, first_tile, first_sample, &mut d1);
                reference::input_transform_adjoint(
                    &tr,
                    &g,
                    &dv,
                    c,
                    first_tile,
                    first_sample,
                    &mut d2,
                );
                close("input adjoint", &d1, &d2);
                // output transform, plain, with ReLU, with residual + ReLU
                let mm = noise(tv, 6);
                let bias = noise(c, 7);
                let res = noise(samples * h * w * c, 8);
                for (residual, relu) in [(None, false), (None, true), (Some(&res[..]), true)] {
                    let (mut y1, mut y2) = (
                        vec![0.0; samples * h * w * c],
                        vec![0.0; samples * h * w * c],
                    );
                    output_transform(
                        &tr,
                        &g,
                        &mm,
                        c,
                        first_tile,
                        first_sample,
                        &bias,
                        residual,
                        relu,
                        &mut y1,
                    );
                    reference::output_transform(
                        &tr,
                        &g,
                        &mm,
                        c,
                        first_tile,
                        first_sample,
                        &bias,
                        residual,
                        relu,
                        &mut y2,
                    );
                    close("output", &y1, &y2);
                }
                // its adjoint
                let dy = noise(b * h * w * c, 9);
                let (mut m1, mut m2) = (vec![0.0; tv], vec![0.0; tv]);
                output_transform_adjoint(&tr, &g, &dy, c, first_tile, &mut m1);
                reference::output_transform_adjoint(&tr, &g, &dy, c, first_tile, &mut m2);
                close("output adjoint", &m1, &m2);
            }
        }
    }

    fn dot(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Property: on random shapes (boards 1–16 a side, 1–3 samples, channel counts with
        /// and without the vectorised path) the Winograd forward equals the direct
        /// convolution to 1e-4 (inputs and weights in [-1, 1]; sums of up to 9·C terms), and
        /// each transform's adjoint is its transpose (⟨T x, y⟩ = ⟨x, Tᵀ y⟩ to 1e-4
        /// relative), which makes the backward pass the exact gradient of the forward.
        #[test]
        fn winograd_matches_direct_and_adjoints_are_transposes(
            f4 in proptest::bool::ANY,
            b in 1usize..4,
            h in 1usize..17,
            w in 1usize..17,
            cin in proptest::sample::select(vec![1usize, 3, 8, 16, 24]),
            cout in proptest::sample::select(vec![1usize, 5, 8, 16]),
            seed in 0u64..1000,
        ) {
            let tr = Transform::new(if f4 { Tile::F4 } else { Tile::F2 });
            let g = Tiling::new(&tr, b, h, w);
            let x = noise(b * h * w * cin, seed);
            let wt = noise(cout * cin * 9, seed + 1);
            let u = tr.weights_from_oihw(&wt, cin, cout);
            let mut y = vec![0.0; b * h * w * cout];
            forward_nhwc(&tr, &g, &x, cin, &u, &vec![0.0; cout], cout, None, false, &mut y);
            let r = direct(&x, b, h, w, cin, &wt, cout);
            let err = y.iter().zip(&r).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
            proptest::prop_assert!(err < 1e-4, "forward error {}", err);

            let n = g.per_sample() * b;
            let tv = tr.points() * n * cin;
            let mut v = vec![0.0; tv];
            input_transform(&tr, &g, &x, cin, 0, &mut v);
            let dv = noise(tv, seed + 2);
            let mut dx = vec![0.0; x.len()];
            input_transform_adjoint(&tr, &g, &dv, cin, 0, 0, &mut dx);
            let (l, r) = (dot(&v, &dv), dot(&x, &dx));
            proptest::prop_assert!((l - r).abs() <= 1e-4 * l.abs().max(r.abs()).max(1.0), "input adjoint {} vs {}", l, r);

            let tm = tr.points() * n * cout;
            let mm = noise(tm, seed + 3);
            let mut out = vec![0.0; b * h * w * cout];
            output_transform(&tr, &g, &mm, cout, 0, 0, &vec![0.0; cout], None, false, &mut out);
            let dy = noise(out.len(), seed + 4);
            let mut dm = vec![0.0; tm];
            output_transform_adjoint(&tr, &g, &dy, cout, 0, &mut dm);
            let (l, r) = (dot(&out, &dy), dot(&mm, &dm));
            proptest::prop_assert!((l - r).abs() <= 1e-4 * l.abs().max(r.abs()).max(1.0), "output adjoint {} vs {}", l, r);

            let du = noise(tr.points() * cin * cout, seed + 5);
            let dw = tr.weight_grad_to_oihw(&du, cin, cout);
            let (l, r) = (dot(&u, &du), dot(&wt, &dw));
            proptest::prop_assert!((l - r).abs() <= 1e-4 * l.abs().max(r.abs()).max(1.0), "weight adjoint {} vs {}", l, r);
        }
    }
}
