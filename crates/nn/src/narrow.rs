//! Matrix products with few right-hand columns on AVX-512 registers: `dst = lhs · rhs (+ bias)`
//! for the inference path's small layers (Winograd products of 16–128 channels, the stem's
//! im2col product, the heads' 1×1 convolutions and linear layers).
//!
//! Why: the `gemm` crate, as this workspace builds it (without its `x86-v4` feature, which
//! would change burn's training kernels too), multiplies with AVX2 registers, and each call
//! costs a dispatch and a packing decision that is as long as the work itself in a
//! Winograd product of one 10×9 board (36 products of `[9, 32] × [32, 32]` per layer). Here
//! each product is one loop nest: the right-hand side is read in place (row-major, its rows
//! in L1 across a block of output rows), `R` output rows by `NV` 16-float vectors of
//! accumulators stay in registers over the whole inner dimension, the bias is the
//! accumulators' initial value, and the last vector of a row is masked, so any column count
//! runs. Sums run in the inner dimension's order, one fused multiply-add at a time.
//!
//! [`product`] returns `false` (and writes nothing) where the CPU lacks AVX-512F; the caller
//! then uses `gemm`.

/// `dst[i·dst_rs + j] = bias[j] + Σ_p lhs[i·lhs_rs + p] · rhs[p·n + j]` for `i < m`, `j < n`,
/// `p < k` (`bias` zero when `None`; `rhs` is `[k, n]` row-major). Returns `false` without
/// writing anything where the CPU has no AVX-512F.
///
/// # Panics
/// If an operand is shorter than its last row ends, or `bias` holds fewer than `n` values.
#[allow(clippy::too_many_arguments)]
pub(crate) fn product(
    (m, n, k): (usize, usize, usize),
    lhs: &[f32],
    lhs_rs: usize,
    rhs: &[f32],
    bias: Option<&[f32]>,
    dst: &mut [f32],
    dst_rs: usize,
) -> bool {
    if !available() {
        return false;
    }
    if m == 0 || n == 0 {
        return true;
    }
    assert!(dst.len() >= (m - 1) * dst_rs + n, "product: dst too short");
    assert!(rhs.len() >= k * n, "product: rhs too short");
    if k > 0 {
        assert!(lhs.len() >= (m - 1) * lhs_rs + k, "product: lhs too short");
    }
    if let Some(b) = bias {
        assert!(b.len() >= n, "product: bias too short");
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `available` checked AVX-512F; the asserts above bound every element the kernel
    // reads (lhs rows i < m at stride lhs_rs, columns p < k; rhs [k, n]; bias [n]) and writes
    // (dst rows i < m at stride dst_rs, columns j < n; the masked last vector touches no
    // column ≥ n).
    unsafe {
        avx512::product(
            m,
            n,
            k,
            lhs.as_ptr(),
            lhs_rs,
            rhs.as_ptr(),
            bias.map(|b| b.as_ptr()),
            dst.as_mut_ptr(),
            dst_rs,
        );
    }
    true
}

/// Whether [`product`] runs here (the CPU has AVX-512F).
pub(crate) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// Floats per vector.
    const L: usize = 16;

    /// The mask of the first `lanes` (1..=16) floats of a vector.
    fn mask(lanes: usize) -> __mmask16 {
        if lanes >= L {
            0xffff
        } else {
            ((1u32 << lanes) - 1) as __mmask16
        }
    }

    /// `R` rows × `NV` vectors of the output, starting at column `j0`; the last vector has
    /// `last` lanes (its mask).
    ///
    /// # Safety
    /// AVX-512F; rows `0..R` of `a` (stride `lda`, `k` values), rows `0..k` of `b` at columns
    /// `j0..j0 + 16·(NV−1) + lanes(last)` (stride `ldb`), the same columns of `bias` and of
    /// rows `0..R` of `c` (stride `ldc`) are in bounds.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn block<const R: usize, const NV: usize>(
        k: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        ldb: usize,
        bias: Option<*const f32>,
        c: *mut f32,
        ldc: usize,
        last: __mmask16,
    ) {
        let lane_mask = |j: usize| if j + 1 == NV { last } else { 0xffff };
        let mut init = [_mm512_setzero_ps(); NV];
        if let Some(bias) = bias {
            for (j, v) in init.iter_mut().enumerate() {
                *v = _mm512_maskz_loadu_ps(lane_mask(j), bias.add(j * L));
            }
        }
        let mut acc = [init; R];
        for p in 0..k {
            let row = b.add(p * ldb);
            let mut bv = [_mm512_setzero_ps(); NV];
            for (j, v) in bv.iter_mut().enumerate() {
                *v = _mm512_maskz_loadu_ps(lane_mask(j), row.add(j * L));
            }
            for (i, acc_row) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(*a.add(i * lda + p));
                for (s, v) in acc_row.iter_mut().zip(&bv) {
                    *s = _mm512_fmadd_ps(av, *v, *s);
                }
            }
        }
        for (i, acc_row) in acc.iter().enumerate() {
            for (j, v) in acc_row.iter().enumerate() {
                _mm512_mask_storeu_ps(c.add(i * ldc + j * L), lane_mask(j), *v);
            }
        }
    }

    /// The rows `0..m` of one column block of `NV` vectors, `R` rows at a time (the last
    /// rows by a block of their own count).
    ///
    /// # Safety
    /// As [`block`], for rows `0..m`.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f")]
    unsafe fn rows<const R: usize, const NV: usize>(
        m: usize,
        k: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        bias: Option<*const f32>,
        ldb: usize,
        c: *mut f32,
        ldc: usize,
        last: __mmask16,
    ) {
        let mut i = 0;
        while i + R <= m {
            block::<R, NV>(
                k,
                a.add(i * lda),
                lda,
                b,
                ldb,
                bias,
                c.add(i * ldc),
                ldc,
                last,
            );
            i += R;
        }
        let (a, c) = (a.add(i * lda), c.add(i * ldc));
        macro_rules! tail {
            ($($r:literal)*) => {
                match m - i {
                    $($r => block::<$r, NV>(k, a, lda, b, ldb, bias, c, ldc, last),)*
                    _ => {}
                }
            };
        }
        // R is at most 12: every remainder has its own register block.
        tail!(1 2 3 4 5 6 7 8 9 10 11);
    }

    /// See [`super::product`].
    ///
    /// # Safety
    /// AVX-512F and the bounds [`super::product`] asserts.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn product(
        m: usize,
        n: usize,
        k: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        bias: Option<*const f32>,
        c: *mut f32,
        ldc: usize,
    ) {
        // Column blocks of 64, then 32, then 16 or fewer (masked); register blocks of 6 × 4,
        // 12 × 2 and 12 × 1 vectors: 24 or 12 accumulators, enough independent fused
        // multiply-adds to cover their latency, and few loads per multiply-add.
        let mut j = 0;
        while j < n {
            let left = n - j;
            let (bj, bias_j, cj) = (b.add(j), bias.map(|p| p.add(j)), c.add(j));
            if left >= 4 * L {
                rows::<6, 4>(m, k, a, lda, bj, bias_j, n, cj, ldc, mask(L));
                j += 4 * L;
            } else if left > 2 * L {
                // 33..63 columns: three or four vectors, the last masked.
                if left > 3 * L {
                    rows::<6, 4>(m, k, a, lda, bj, bias_j, n, cj, ldc, mask(left - 3 * L));
                } else {
                    rows::<8, 3>(m, k, a, lda, bj, bias_j, n, cj, ldc, mask(left - 2 * L));
                }
                j = n;
            } else if left > L {
                rows::<12, 2>(m, k, a, lda, bj, bias_j, n, cj, ldc, mask(left - L));
                j = n;
            } else {
                rows::<12, 1>(m, k, a, lda, bj, bias_j, n, cj, ldc, mask(left));
                j = n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::noise;

    /// The plain triple loop, in f64.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        (m, n, k): (usize, usize, usize),
        lhs: &[f32],
        lhs_rs: usize,
        rhs: &[f32],
        bias: Option<&[f32]>,
        dst: &mut [f32],
        dst_rs: usize,
    ) {
        for i in 0..m {
            for j in 0..n {
                let mut s = bias.map_or(0.0, |b| b[j] as f64);
                for p in 0..k {
                    s += lhs[i * lhs_rs + p] as f64 * rhs[p * n + j] as f64;
                }
                dst[i * dst_rs + j] = s as f32;
            }
        }
    }

    #[test]
    fn product_matches_the_plain_triple_loop() {
        if !available() {
            eprintln!("no AVX-512F: the product falls back to gemm, nothing to compare");
            return;
        }
        // Column counts of every block kind and mask (the trunks' 16..128 channels, the
        // heads' 1 and 2, Xiangqi's 2,086 actions), row counts of every remainder, inner
        // dimensions of a Winograd product, an im2col row and a linear layer; strided rows
        // on both sides (a Winograd point's rows) and a bias or none.
        let mut seed = 1;
        for &n in &[1, 2, 7, 16, 17, 31, 32, 33, 48, 50, 64, 80, 96, 128, 2086] {
            for &m in &[1, 5, 11, 12, 13, 25, 90] {
                for &k in &[0, 1, 18, 32, 162] {
                    for &(extra_a, extra_c) in &[(0, 0), (3, 5)] {
                        seed += 1;
                        let (lhs_rs, dst_rs) = (k + extra_a, n + extra_c);
                        let lhs = noise(m * lhs_rs, seed);
                        let rhs = noise(k * n, seed + 1000);
                        let bias = noise(n, seed + 2000);
                        let bias = (seed % 2 == 0).then_some(&bias[..]);
                        let sentinel = 7.5;
                        let mut got = vec![sentinel; m * dst_rs];
                        let mut want = vec![sentinel; m * dst_rs];
                        assert!(product(
                            (m, n, k),
                            &lhs,
                            lhs_rs,
                            &rhs,
                            bias,
                            &mut got,
                            dst_rs
                        ));
                        reference((m, n, k), &lhs, lhs_rs, &rhs, bias, &mut want, dst_rs);
                        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                            let tol = 1e-5 * (1.0 + k as f32).sqrt() * (1.0 + w.abs());
                            assert!(
                                (g - w).abs() <= tol,
                                "m {m} n {n} k {k} strides ({lhs_rs}, {dst_rs}) bias {}: \
                                 element {i}: {g} vs {w}",
                                bias.is_some()
                            );
                        }
                    }
                }
            }
        }
    }
}
