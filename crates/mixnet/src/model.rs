//! The evaluator's weights and its forward pass (inference and training).
//!
//! Per point `p` of an `n × n` board ([`Mixnet::forward`]):
//!
//! ```text
//! e[p] = b0 + Σ_d T[row(p, d)]                 4 table rows of F features (lines.rs)
//! a[p] = relu(e[p])
//! s[p] = b1 + Σ_k K[k] ⊙ a[p + k]              3×3 depthwise convolution (symmetric), zero outside
//! h[p] = a[p] + relu(s[p])
//! g    = [mean_p h[p], max_p h[p]]             2F global features
//! v    = tanh(w2 · relu(W1 g + c1) + c2)       the value, from the side to move
//! logit[p] = (u + Wq g) · h[p]                 a pointwise policy head generated from g
//! ```
//!
//! As in Rapfi's Mixnet, almost all the knowledge is in the table `T`, looked up rather than
//! computed; the rest is a few thousand multiply-adds a point.

use rand::{Rng, SeedableRng};

use crate::lines::LineTable;

/// The sizes of a [`Mixnet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixnetConfig {
    /// Line half-width `H` (cells at offsets `−H..=H`), `1..=5`.
    pub half_width: u8,
    /// Features a point `F` (a table row's length).
    pub features: u16,
    /// Hidden units of the value head.
    pub value_hidden: u16,
    /// Two tables, one for each colour to move (renju: black and white play different
    /// games); one table shared by both colours otherwise.
    pub colour_tables: bool,
}

impl Default for MixnetConfig {
    fn default() -> Self {
        MixnetConfig {
            half_width: 4,
            features: 32,
            value_hidden: 32,
            colour_tables: false,
        }
    }
}

/// Index of each tensor in [`Mixnet::tensors`] (the file's order).
pub(crate) mod t {
    pub const TABLE: usize = 0;
    pub const B0: usize = 1;
    pub const CONV: usize = 2;
    pub const B1: usize = 3;
    pub const W1: usize = 4;
    pub const C1: usize = 5;
    pub const W2: usize = 6;
    pub const C2: usize = 7;
    pub const WQ: usize = 8;
    pub const U: usize = 9;
    pub const COUNT: usize = 10;
    pub const NAMES: [&str; COUNT] = [
        "table", "b0", "conv", "b1", "w1", "c1", "w2", "c2", "wq", "u",
    ];
}

/// The evaluator: its sizes, its line table and its weights.
#[derive(Clone, Debug)]
pub struct Mixnet {
    config: MixnetConfig,
    lines: LineTable,
    /// The weights in [`t`] order, each flat row-major.
    pub(crate) tensors: Vec<Vec<f32>>,
}

/// What one forward pass keeps for the backward pass (and reuses between calls).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// `[P·4]` table rows.
    pub(crate) rows: Vec<u32>,
    /// `[P]` cell states.
    pub(crate) cells: Vec<u8>,
    /// `[P, F]` pre-activations `e`.
    pub(crate) e: Vec<f32>,
    /// `[P, F]` `a = relu(e)`.
    pub(crate) a: Vec<f32>,
    /// `[P, F]` convolution pre-activations `s`.
    pub(crate) s: Vec<f32>,
    /// `[P, F]` `h`.
    pub(crate) h: Vec<f32>,
    /// `[2F]` `g`.
    pub(crate) g: Vec<f32>,
    /// `[F]` the point of each feature's maximum.
    pub(crate) argmax: Vec<u32>,
    /// `[V]` the value head's hidden layer after its ReLU.
    pub(crate) v1: Vec<f32>,
    /// `[F]` the policy head's weights `u + Wq g`.
    pub(crate) weff: Vec<f32>,
    /// The value.
    pub(crate) value: f32,
}

/// Gradients in the weights' layout, and the backward pass's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Grads {
    /// One per weight tensor, in [`t`] order.
    pub(crate) tensors: Vec<Vec<f32>>,
    /// The backward pass's working memory.
    pub(crate) work: Vec<f32>,
}

impl Grads {
    /// Zero gradients for `net`.
    pub(crate) fn zeros(net: &Mixnet) -> Grads {
        Grads {
            tensors: net.tensors.iter().map(|x| vec![0.0; x.len()]).collect(),
            work: Vec::new(),
        }
    }
}

/// Buffers of [`Mixnet::infer`], reused between calls.
#[derive(Clone, Debug, Default)]
pub struct InferScratch {
    rows: Vec<u32>,
    a: Vec<f32>,
    h: Vec<f32>,
    g: Vec<f32>,
    weff: Vec<f32>,
}

impl Mixnet {
    /// A network of `config`'s sizes with small random weights drawn from `seed`.
    ///
    /// # Panics
    /// When `config.half_width` is outside `1..=5` or a size is 0.
    pub fn new(config: MixnetConfig, seed: u64) -> Mixnet {
        assert!(
            config.features > 0 && config.value_hidden > 0,
            "empty layer"
        );
        let lines = LineTable::new(usize::from(config.half_width));
        let f = usize::from(config.features);
        let v = usize::from(config.value_hidden);
        let tables = if config.colour_tables { 2 } else { 1 };
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut uniform = |len: usize, scale: f32| -> Vec<f32> {
            (0..len)
                .map(|_| rng.random_range(-scale..scale))
                .collect::<Vec<f32>>()
        };
        let mut tensors = vec![Vec::new(); t::COUNT];
        tensors[t::TABLE] = uniform(tables * lines.rows() * f, 0.1);
        tensors[t::B0] = vec![0.05; f];
        tensors[t::CONV] = uniform(3 * f, 1.0 / 3.0);
        tensors[t::B1] = vec![0.0; f];
        tensors[t::W1] = uniform(v * 2 * f, (3.0 / (2 * f) as f32).sqrt());
        tensors[t::C1] = vec![0.0; v];
        tensors[t::W2] = uniform(v, (3.0 / v as f32).sqrt());
        tensors[t::C2] = vec![0.0];
        tensors[t::WQ] = uniform(f * 2 * f, (3.0 / (2 * f) as f32).sqrt() * 0.1);
        tensors[t::U] = uniform(f, (3.0 / f as f32).sqrt());
        Mixnet {
            config,
            lines,
            tensors,
        }
    }

    /// A network from its sizes and tensors (the file reader), the lengths checked.
    pub(crate) fn from_tensors(
        config: MixnetConfig,
        tensors: Vec<Vec<f32>>,
    ) -> Result<Mixnet, String> {
        let shell = Mixnet {
            config,
            lines: LineTable::new(usize::from(config.half_width)),
            tensors: Vec::new(),
        };
        let want = shell.tensor_lengths();
        if tensors.len() != want.len() {
            return Err(format!(
                "{} tensors, expected {}",
                tensors.len(),
                want.len()
            ));
        }
        for (i, (got, want)) in tensors.iter().zip(&want).enumerate() {
            if got.len() != *want {
                return Err(format!(
                    "tensor {} has {} numbers, expected {want}",
                    t::NAMES[i],
                    got.len()
                ));
            }
            if let Some(bad) = got.iter().position(|x| !x.is_finite()) {
                return Err(format!(
                    "tensor {} holds a non-finite number at {bad}",
                    t::NAMES[i]
                ));
            }
        }
        Ok(Mixnet { tensors, ..shell })
    }

    /// The length of each tensor for these sizes, in [`t`] order.
    pub(crate) fn tensor_lengths(&self) -> Vec<usize> {
        let f = self.features();
        let v = usize::from(self.config.value_hidden);
        vec![
            self.tables() * self.lines.rows() * f,
            f,
            3 * f,
            f,
            v * 2 * f,
            v,
            v,
            1,
            f * 2 * f,
            f,
        ]
    }

    /// The sizes.
    pub fn config(&self) -> MixnetConfig {
        self.config
    }

    /// Features a point (`F`).
    pub fn features(&self) -> usize {
        usize::from(self.config.features)
    }

    /// Number of line tables (2 with colour tables, else 1).
    pub fn tables(&self) -> usize {
        if self.config.colour_tables {
            2
        } else {
            1
        }
    }

    /// The line-code table.
    pub fn lines(&self) -> &LineTable {
        &self.lines
    }

    /// Number of weights.
    pub fn parameter_count(&self) -> usize {
        self.tensors.iter().map(Vec::len).sum()
    }

    /// The row offset of the table of the colour to move (`black_to_move`).
    pub(crate) fn table_offset(&self, black_to_move: bool) -> u32 {
        if self.config.colour_tables && !black_to_move {
            self.lines.rows() as u32
        } else {
            0
        }
    }

    /// Evaluates one position.
    ///
    /// * `n`: the board's side; `cells`: `[n·n]` ([`crate::lines::EMPTY`], `OWN`, `OPP`
    ///   from the side to move); `black_to_move`: the colour to move (chooses the table
    ///   under colour tables);
    /// * `logits`: `[n·n]` filled with policy logits for every point (occupied points
    ///   included: the search masks them).
    ///
    /// Returns the value in [-1, 1] from the side to move; `scratch` keeps what the backward
    /// pass needs.
    pub fn forward(
        &self,
        n: usize,
        cells: &[u8],
        black_to_move: bool,
        logits: &mut [f32],
        scratch: &mut Scratch,
    ) -> f32 {
        let p_count = n * n;
        let f = self.features();
        let vh = usize::from(self.config.value_hidden);
        assert_eq!(logits.len(), p_count, "logits of an {n}×{n} board");
        let s = scratch;
        s.cells.clear();
        s.cells.extend_from_slice(cells);
        s.rows.resize(p_count * 4, 0);
        let offset = self.table_offset(black_to_move);
        self.lines.board_rows(n, cells, offset, &mut s.rows);
        for buf in [&mut s.e, &mut s.a, &mut s.s, &mut s.h] {
            buf.resize(p_count * f, 0.0);
        }
        let table = &self.tensors[t::TABLE];
        let b0 = &self.tensors[t::B0];
        for p in 0..p_count {
            let e = &mut s.e[p * f..(p + 1) * f];
            e.copy_from_slice(b0);
            for d in 0..4 {
                let r = s.rows[p * 4 + d] as usize;
                add_assign(e, &table[r * f..(r + 1) * f]);
            }
            let a = &mut s.a[p * f..(p + 1) * f];
            for (a, &e) in a.iter_mut().zip(e.iter()) {
                *a = e.max(0.0);
            }
        }
        let conv = &self.tensors[t::CONV];
        let b1 = &self.tensors[t::B1];
        for y in 0..n {
            for x in 0..n {
                let p = y * n + x;
                let sp = &mut s.s[p * f..(p + 1) * f];
                sp.copy_from_slice(b1);
                for (k, (kx, ky)) in KERNEL.iter().enumerate() {
                    let (qx, qy) = (x as i32 + kx, y as i32 + ky);
                    if qx < 0 || qy < 0 || qx >= n as i32 || qy >= n as i32 {
                        continue;
                    }
                    let q = qy as usize * n + qx as usize;
                    let c = KERNEL_CLASS[k];
                    mul_add_assign(sp, &conv[c * f..(c + 1) * f], &s.a[q * f..(q + 1) * f]);
                }
                let hp = &mut s.h[p * f..(p + 1) * f];
                for ((h, &a), &sv) in hp.iter_mut().zip(&s.a[p * f..(p + 1) * f]).zip(sp.iter()) {
                    *h = a + sv.max(0.0);
                }
            }
        }
        s.g.clear();
        s.g.resize(2 * f, 0.0);
        s.argmax.clear();
        s.argmax.resize(f, 0);
        s.g[f..].fill(f32::NEG_INFINITY);
        for p in 0..p_count {
            let hp = &s.h[p * f..(p + 1) * f];
            let (mean, max) = s.g.split_at_mut(f);
            add_assign(mean, hp);
            for (j, (&h, m)) in hp.iter().zip(max.iter_mut()).enumerate() {
                if h > *m {
                    *m = h;
                    s.argmax[j] = p as u32;
                }
            }
        }
        let inv = 1.0 / p_count as f32;
        for m in &mut s.g[..f] {
            *m *= inv;
        }
        // Value head.
        let w1 = &self.tensors[t::W1];
        let c1 = &self.tensors[t::C1];
        let w2 = &self.tensors[t::W2];
        s.v1.clear();
        s.v1.resize(vh, 0.0);
        let mut pre = self.tensors[t::C2][0];
        for k in 0..vh {
            let z = c1[k] + dot(&w1[k * 2 * f..(k + 1) * 2 * f], &s.g);
            s.v1[k] = z.max(0.0);
            pre += w2[k] * s.v1[k];
        }
        s.value = pre.tanh();
        // Policy head.
        let wq = &self.tensors[t::WQ];
        s.weff.clear();
        s.weff.extend_from_slice(&self.tensors[t::U]);
        for (j, w) in s.weff.iter_mut().enumerate() {
            *w += dot(&wq[j * 2 * f..(j + 1) * 2 * f], &s.g);
        }
        for (p, logit) in logits.iter_mut().enumerate() {
            *logit = dot(&s.weff, &s.h[p * f..(p + 1) * f]);
        }
        s.value
    }

    /// As [`Mixnet::forward`] without keeping anything for a backward pass: the evaluator's
    /// path, on AVX2 and FMA where the CPU has them (the same arithmetic, 8 lanes).
    pub fn infer(
        &self,
        n: usize,
        cells: &[u8],
        black_to_move: bool,
        logits: &mut [f32],
        scratch: &mut InferScratch,
    ) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            return unsafe { self.infer_avx2(n, cells, black_to_move, logits, scratch) };
        }
        self.infer_portable(n, cells, black_to_move, logits, scratch)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn infer_avx2(
        &self,
        n: usize,
        cells: &[u8],
        black_to_move: bool,
        logits: &mut [f32],
        scratch: &mut InferScratch,
    ) -> f32 {
        self.infer_portable(n, cells, black_to_move, logits, scratch)
    }

    #[inline(always)]
    fn infer_portable(
        &self,
        n: usize,
        cells: &[u8],
        black_to_move: bool,
        logits: &mut [f32],
        scratch: &mut InferScratch,
    ) -> f32 {
        let p_count = n * n;
        let f = self.features();
        let vh = usize::from(self.config.value_hidden);
        assert_eq!(logits.len(), p_count, "logits of an {n}×{n} board");
        let s = scratch;
        s.rows.resize(p_count * 4, 0);
        let offset = self.table_offset(black_to_move);
        self.lines.board_rows(n, cells, offset, &mut s.rows);
        s.h.resize(p_count * f, 0.0);
        let table = &self.tensors[t::TABLE];
        // Every slice cut to exactly `f` so that the loops below have no bounds checks and
        // compile to vector instructions. `a` is kept with a border of zeros one point wide
        // (side `n + 2`) so that every point has its 8 neighbours at fixed offsets.
        let b0 = &self.tensors[t::B0][..f];
        let w = n + 2;
        s.a.clear();
        s.a.resize(w * w * f, 0.0);
        for y in 0..n {
            for x in 0..n {
                let rows = &s.rows[(y * n + x) * 4..(y * n + x) * 4 + 4];
                let r = [
                    rows[0] as usize * f,
                    rows[1] as usize * f,
                    rows[2] as usize * f,
                    rows[3] as usize * f,
                ];
                let (t0, t1, t2, t3) = (
                    &table[r[0]..r[0] + f],
                    &table[r[1]..r[1] + f],
                    &table[r[2]..r[2] + f],
                    &table[r[3]..r[3] + f],
                );
                let q = ((y + 1) * w + x + 1) * f;
                let a = &mut s.a[q..q + f];
                for j in 0..f {
                    a[j] = (b0[j] + t0[j] + t1[j] + t2[j] + t3[j]).max(0.0);
                }
            }
        }
        let conv = &self.tensors[t::CONV];
        let (k0, k1, k2) = (&conv[..f], &conv[f..2 * f], &conv[2 * f..3 * f]);
        let b1 = &self.tensors[t::B1][..f];
        s.g.clear();
        s.g.resize(2 * f, 0.0);
        s.g[f..].fill(f32::NEG_INFINITY);
        let (mean, max) = s.g.split_at_mut(f);
        let (mean, max) = (&mut mean[..f], &mut max[..f]);
        for y in 0..n {
            for x in 0..n {
                let c = ((y + 1) * w + x + 1) * f;
                let at = |q: usize| &s.a[q..q + f];
                let (up, down) = (c - w * f, c + w * f);
                let (ac, al, ar) = (at(c), at(c - f), at(c + f));
                let (au, ad) = (at(up), at(down));
                let (aul, aur, adl, adr) = (at(up - f), at(up + f), at(down - f), at(down + f));
                let p = y * n + x;
                let hp = &mut s.h[p * f..(p + 1) * f];
                for j in 0..f {
                    let orth = al[j] + ar[j] + au[j] + ad[j];
                    let diag = aul[j] + aur[j] + adl[j] + adr[j];
                    let sv = b1[j] + k0[j] * ac[j] + k1[j] * orth + k2[j] * diag;
                    let h = ac[j] + sv.max(0.0);
                    hp[j] = h;
                    mean[j] += h;
                    max[j] = max[j].max(h);
                }
            }
        }
        let inv = 1.0 / p_count as f32;
        for m in &mut s.g[..f] {
            *m *= inv;
        }
        let w1 = &self.tensors[t::W1];
        let c1 = &self.tensors[t::C1];
        let w2 = &self.tensors[t::W2];
        let mut pre = self.tensors[t::C2][0];
        for k in 0..vh {
            let z = c1[k] + dot(&w1[k * 2 * f..(k + 1) * 2 * f], &s.g);
            pre += w2[k] * z.max(0.0);
        }
        let wq = &self.tensors[t::WQ];
        s.weff.clear();
        s.weff.extend_from_slice(&self.tensors[t::U]);
        for (j, w) in s.weff.iter_mut().enumerate() {
            *w += dot(&wq[j * 2 * f..(j + 1) * 2 * f], &s.g);
        }
        for (logit, hp) in logits.iter_mut().zip(s.h.chunks_exact(f)) {
            *logit = dot(&s.weff, hp);
        }
        pre.tanh()
    }

    /// The gradients of a loss with respect to every weight, after [`Mixnet::forward`] left
    /// `scratch`: `dlogits` `[n·n]` and `dvalue` are the loss's derivatives with respect to
    /// the logits and the value. They are added to `grads` (same layout as the weights), the
    /// table's rows too, and the rows touched are passed to `touched` (which may see a row
    /// more than once).
    pub(crate) fn backward(
        &self,
        n: usize,
        scratch: &Scratch,
        dlogits: &[f32],
        dvalue: f32,
        grads: &mut Grads,
        mut touched: impl FnMut(u32),
    ) {
        let Grads {
            tensors: grads,
            work,
        } = grads;
        let s = scratch;
        let p_count = n * n;
        let f = self.features();
        let vh = usize::from(self.config.value_hidden);
        // work: dh [P·F], then ds reuse, da [P·F], dg [2F], dweff [F].
        work.clear();
        work.resize(3 * p_count * f + 3 * f, 0.0);
        let (dh, rest) = work.split_at_mut(p_count * f);
        let (da, rest) = rest.split_at_mut(p_count * f);
        let (ds, rest) = rest.split_at_mut(p_count * f);
        let (dg, dweff) = rest.split_at_mut(2 * f);
        // Policy head.
        for p in 0..p_count {
            let dl = dlogits[p];
            if dl == 0.0 {
                continue;
            }
            mul_add_scalar(dweff, &s.h[p * f..(p + 1) * f], dl);
            mul_add_scalar(&mut dh[p * f..(p + 1) * f], &s.weff, dl);
        }
        add_assign(&mut grads[t::U], dweff);
        {
            let wq = &self.tensors[t::WQ];
            let gwq = &mut grads[t::WQ];
            for j in 0..f {
                let dw = dweff[j];
                mul_add_scalar(&mut gwq[j * 2 * f..(j + 1) * 2 * f], &s.g, dw);
                mul_add_scalar(dg, &wq[j * 2 * f..(j + 1) * 2 * f], dw);
            }
        }
        // Value head.
        let dpre = dvalue * (1.0 - s.value * s.value);
        if dpre != 0.0 {
            grads[t::C2][0] += dpre;
            let w1 = &self.tensors[t::W1];
            let w2 = &self.tensors[t::W2];
            for k in 0..vh {
                grads[t::W2][k] += dpre * s.v1[k];
                if s.v1[k] <= 0.0 {
                    continue;
                }
                let dz = dpre * w2[k];
                grads[t::C1][k] += dz;
                mul_add_scalar(&mut grads[t::W1][k * 2 * f..(k + 1) * 2 * f], &s.g, dz);
                mul_add_scalar(dg, &w1[k * 2 * f..(k + 1) * 2 * f], dz);
            }
        }
        // Pooling.
        let inv = 1.0 / p_count as f32;
        for p in 0..p_count {
            mul_add_scalar(&mut dh[p * f..(p + 1) * f], &dg[..f], inv);
        }
        for j in 0..f {
            let p = s.argmax[j] as usize;
            dh[p * f + j] += dg[f + j];
        }
        // h = a + relu(s).
        for i in 0..p_count * f {
            ds[i] = if s.s[i] > 0.0 { dh[i] } else { 0.0 };
            da[i] = dh[i];
        }
        {
            let conv = &self.tensors[t::CONV];
            for y in 0..n {
                for x in 0..n {
                    let p = y * n + x;
                    let dsp = &ds[p * f..(p + 1) * f];
                    add_assign(&mut grads[t::B1], dsp);
                    for (k, (kx, ky)) in KERNEL.iter().enumerate() {
                        let (qx, qy) = (x as i32 + kx, y as i32 + ky);
                        if qx < 0 || qy < 0 || qx >= n as i32 || qy >= n as i32 {
                            continue;
                        }
                        let q = qy as usize * n + qx as usize;
                        let c = KERNEL_CLASS[k];
                        mul_add_assign(
                            &mut grads[t::CONV][c * f..(c + 1) * f],
                            dsp,
                            &s.a[q * f..(q + 1) * f],
                        );
                        mul_add_assign(&mut da[q * f..(q + 1) * f], &conv[c * f..(c + 1) * f], dsp);
                    }
                }
            }
        }
        // a = relu(e), e = b0 + Σ_d T[row].
        for p in 0..p_count {
            let de = &mut da[p * f..(p + 1) * f];
            for (d, &e) in de.iter_mut().zip(&s.e[p * f..(p + 1) * f]) {
                if e <= 0.0 {
                    *d = 0.0;
                }
            }
            add_assign(&mut grads[t::B0], de);
            for d in 0..4 {
                let r = s.rows[p * 4 + d];
                let ri = r as usize;
                add_assign(&mut grads[t::TABLE][ri * f..(ri + 1) * f], de);
                touched(r);
            }
        }
    }
}

/// The weights of each kernel offset: 0 the centre, 1 the four orthogonal neighbours, 2 the
/// four diagonal ones. Tied so that the kernel, like the line features, is the same under
/// the board's 8 symmetries: the evaluator is exactly symmetric.
const KERNEL_CLASS: [usize; 9] = [2, 1, 2, 1, 0, 1, 2, 1, 2];

/// The 3×3 kernel's offsets `(dx, dy)`, row by row.
const KERNEL: [(i32, i32); 9] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (0, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

#[inline(always)]
fn add_assign(acc: &mut [f32], x: &[f32]) {
    for (a, &b) in acc.iter_mut().zip(x) {
        *a += b;
    }
}

#[inline(always)]
fn mul_add_assign(acc: &mut [f32], x: &[f32], y: &[f32]) {
    for ((a, &b), &c) in acc.iter_mut().zip(x).zip(y) {
        *a += b * c;
    }
}

#[inline(always)]
fn mul_add_scalar(acc: &mut [f32], x: &[f32], k: f32) {
    for (a, &b) in acc.iter_mut().zip(x) {
        *a += b * k;
    }
}

#[inline(always)]
fn dot(x: &[f32], y: &[f32]) -> f32 {
    // Eight partial sums, one vector register of them.
    let mut acc = [0.0f32; 8];
    let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
    let tail: f32 = xc
        .remainder()
        .iter()
        .zip(yc.remainder())
        .map(|(a, b)| a * b)
        .sum();
    for (a, b) in xc.zip(yc) {
        for i in 0..8 {
            acc[i] += a[i] * b[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}
