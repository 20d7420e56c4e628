//! Narrow products on AVX-512: `C[M,N] = A·B` with few columns (`N ≤`
//! [`MAX_COLS`]: a classifier's logits, the weight gradient of a small
//! layer), where the blocked GEMM's kernels would fill a 16-float vector
//! with `N` columns and waste the rest (SGD's 784 → 10 layer: 10 of 16).
//!
//! Two kernels put a long dimension along the vector instead, each over the
//! whole depth in one pass (the one B panel, `K × NR` floats, streams from
//! L2; A is read once, in place):
//!
//! - **Columns of A in memory order** (`A[i, p]` and `A[i+1, p]` adjacent:
//!   the transpose in `xᵀ · d`): a tile of `16·V` rows keeps `N × V`
//!   accumulators, each a column of C over 16 rows; per depth step `V` loads
//!   of A and `N` broadcasts of B. The tile is written through a transpose
//!   on the stack.
//! - **Rows of A in memory order** (`x · w`): a tile of `R` rows keeps
//!   `R × N` accumulators, each the partial dot products of a row of A and
//!   a column of B over 16 depth steps at once; per 16 steps `R` loads of
//!   A and `N` of B (B's columns copied once per call into rows), and each
//!   accumulator is summed across its lanes at the end.
//!
//! Every element of C is computed the same way whatever the tile or thread
//! split (one lane's sequential sum, or fixed lanes summed in a fixed
//! order), so thread counts change no bit.

use crate::gemm::{Problem, NR};
use crate::pool;
use std::cell::RefCell;

/// The most columns of C a narrow kernel computes (`N` accumulators per
/// row vector or per row; more leave too few registers).
pub(crate) const MAX_COLS: usize = 12;
/// Rows below which the column kernel's 16-row vectors are mostly empty.
const MIN_ROWS_ALONG_ROWS: usize = 16;
/// Depth below which the row kernel's final sums outweigh its products.
const MIN_DEPTH_ALONG_DEPTH: usize = 64;

thread_local! {
    /// The columns of B as rows (`Bt[j][p]`), for the row kernel.
    static COLUMNS_OF_B: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// How a narrow product is computed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Narrow {
    /// Vectors along the rows of A (A's columns contiguous).
    AlongRows,
    /// Vectors along the depth (A's rows contiguous).
    AlongDepth,
}

/// The narrow kernel for `p`, if one fits (the CPU has AVX-512: the caller
/// checks).
pub(crate) fn plan(p: &Problem) -> Option<Narrow> {
    if p.n > MAX_COLS || p.k == 0 {
        return None;
    }
    if p.a.rs == 1 && p.m >= MIN_ROWS_ALONG_ROWS {
        Some(Narrow::AlongRows)
    } else if p.a.cs == 1 && p.k >= MIN_DEPTH_ALONG_DEPTH {
        Some(Narrow::AlongDepth)
    } else {
        None
    }
}

/// Computes `p` with the kernel `how` chose ([`plan`]) on `threads`
/// threads; C is overwritten.
///
/// # Safety
/// As [`crate::gemm`]'s `sgemm`; the CPU has AVX-512F.
pub(crate) unsafe fn sgemm(p: &Problem, how: Narrow, threads: usize) {
    let tile_rows = match how {
        Narrow::AlongRows => 16 * x86::column_vectors(p.n),
        Narrow::AlongDepth => x86::dot_rows(p.n),
    };
    let tiles = p.m.div_ceil(tile_rows);
    let tasks = if threads > 1 {
        tiles.min(4 * threads)
    } else {
        1
    };
    let run = |bt: &[f32]| {
        let task = |t: usize| {
            let (t0, t1) = (t * tiles / tasks, (t + 1) * tiles / tasks);
            for tile in t0..t1 {
                let i0 = tile * tile_rows;
                let rows = tile_rows.min(p.m - i0);
                // SAFETY: rows i0.. of A and C (caller contract), the whole
                // depth of the panel or of Bt.
                unsafe {
                    let a = p.a.ptr.offset(i0 as isize * p.a.rs);
                    let c = p.c.add(i0 * p.ldc);
                    match how {
                        Narrow::AlongRows => x86::along_rows(p, a, c, rows),
                        Narrow::AlongDepth => x86::along_depth(p, a, bt.as_ptr(), c, rows),
                    }
                }
            }
        };
        if tasks > 1 {
            pool::parallel_for(tasks, &task);
        } else {
            (0..tasks).for_each(task);
        }
    };
    if how == Narrow::AlongRows {
        run(&[]);
        return;
    }
    COLUMNS_OF_B.with(|buf| {
        let mut bt = buf.borrow_mut();
        if bt.len() < p.n * p.k {
            bt.resize(p.n * p.k, 0.0);
        }
        for (j, column) in bt.chunks_exact_mut(p.k).take(p.n).enumerate() {
            for (q, out) in column.iter_mut().enumerate() {
                // SAFETY: step q, column j < NR of the one panel.
                *out = unsafe { *p.bp.add(q * NR + j) };
            }
        }
        run(&bt);
    });
}

mod x86 {
    use super::MAX_COLS;
    use crate::gemm::{Problem, NR};
    use crate::gemm_avx512::first_lanes;
    use std::arch::x86_64::*;

    /// Row vectors (at most 4) per tile of the column kernel for `n`
    /// columns: `n × V` accumulators, at most 24 of the 32 registers.
    pub(super) const fn column_vectors(n: usize) -> usize {
        per_tile(n, 4)
    }

    /// Rows (at most 6) per tile of the row kernel for `n` columns: `R × n`
    /// accumulators, at most 24.
    pub(super) const fn dot_rows(n: usize) -> usize {
        per_tile(n, 6)
    }

    /// `24 / n`, between 1 and `most`.
    const fn per_tile(n: usize, most: usize) -> usize {
        let k = 24 / if n == 0 { 1 } else { n };
        if k > most {
            most
        } else if k == 0 {
            1
        } else {
            k
        }
    }

    /// `$kernel::<N, { $per(N) }>$args` for `N = $n` (1 to [`MAX_COLS`]).
    macro_rules! by_cols {
        ($n:expr, $kernel:ident, $per:ident, $args:tt) => {
            by_cols!(@ $n, $kernel, $per, $args, 1 2 3 4 5 6 7 8 9 10 11 12)
        };
        (@ $n:expr, $kernel:ident, $per:ident, $args:tt, $($c:literal)*) => {
            match $n {
                $($c => $kernel::<$c, { $per($c) }> $args,)*
                _ => unreachable!("at most MAX_COLS columns"),
            }
        };
    }

    /// Rows `..rows` of C at `c` from the rows of A at `a` (the
    /// column kernel, see the module doc).
    ///
    /// # Safety
    /// AVX-512F; `rows ≤ 16·column_vectors(n)` rows of A at `a` (columns at
    /// stride `p.a.cs`, rows adjacent) and of C at `c` are inside them.
    pub(super) unsafe fn along_rows(p: &Problem, a: *const f32, c: *mut f32, rows: usize) {
        debug_assert!(p.n <= MAX_COLS);
        // SAFETY: caller contract.
        unsafe { by_cols!(p.n, column_kernel, column_vectors, (p, a, c, rows)) }
    }

    /// Rows `..rows` of C at `c` from the rows of A at `a` and the columns
    /// of B as rows at `bt` (the row kernel, see the module doc).
    ///
    /// # Safety
    /// AVX-512F; `rows ≤ dot_rows(n)` rows of A at `a` (contiguous, row stride
    /// `p.a.rs`), `n` rows of `k` floats at `bt`, rows of C at `c`.
    pub(super) unsafe fn along_depth(
        p: &Problem,
        a: *const f32,
        bt: *const f32,
        c: *mut f32,
        rows: usize,
    ) {
        debug_assert!(p.n <= MAX_COLS);
        // SAFETY: caller contract.
        unsafe { by_cols!(p.n, dot_kernel, dot_rows, (p, a, bt, c, rows)) }
    }

    /// `N` columns × `V` row vectors.
    ///
    /// # Safety
    /// As [`along_rows`] with `n = N`, `rows ≤ 16·V`.
    #[target_feature(enable = "avx512f")]
    unsafe fn column_kernel<const N: usize, const V: usize>(
        p: &Problem,
        a: *const f32,
        c: *mut f32,
        rows: usize,
    ) {
        let masks: [__mmask16; V] =
            std::array::from_fn(|v| first_lanes(rows.saturating_sub(16 * v)));
        let mut acc = [[_mm512_setzero_ps(); V]; N];
        for q in 0..p.k {
            // SAFETY: column q of the tile's rows of A (masked past `rows`)
            // and step q of the panel (caller contract).
            unsafe {
                let col = a.offset(q as isize * p.a.cs);
                let x: [__m512; V] =
                    std::array::from_fn(|v| _mm512_maskz_loadu_ps(masks[v], col.add(16 * v)));
                for v in 0..V {
                    let ahead = col.wrapping_add(16 * (V + v));
                    _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
                }
                let b = p.bp.add(q * NR);
                for (j, acc_j) in acc.iter_mut().enumerate() {
                    let y = _mm512_set1_ps(*b.add(j));
                    for (s, &xv) in acc_j.iter_mut().zip(&x) {
                        *s = _mm512_fmadd_ps(xv, y, *s);
                    }
                }
            }
        }
        // Column j of the tile at tile[j][..]: written to C row by row.
        let mut tile = [[[0f32; 16]; V]; N];
        for (out, acc_j) in tile.iter_mut().zip(&acc) {
            for (o, &s) in out.iter_mut().zip(acc_j) {
                // SAFETY: `o` holds 16 floats.
                unsafe { _mm512_storeu_ps(o.as_mut_ptr(), s) };
            }
        }
        for r in 0..rows {
            for (j, column) in tile.iter().enumerate() {
                // SAFETY: row r < rows, column j < n of C (caller contract).
                unsafe { *c.add(r * p.ldc + j) = column[r / 16][r % 16] };
            }
        }
    }

    /// Tiles ahead whose rows the row kernel prefetches.
    const AHEAD: isize = 1;

    /// `R` rows × `N` columns.
    ///
    /// # Safety
    /// As [`along_depth`] with `n = N`, `rows ≤ R`.
    #[target_feature(enable = "avx512f")]
    unsafe fn dot_kernel<const N: usize, const R: usize>(
        p: &Problem,
        a: *const f32,
        bt: *const f32,
        c: *mut f32,
        rows: usize,
    ) {
        let k = p.k;
        // Rows past the tile repeat its last row (read, never written).
        let row: [*const f32; R] =
            std::array::from_fn(|r| unsafe { a.offset(r.min(rows - 1) as isize * p.a.rs) });
        let mut acc = [[_mm512_setzero_ps(); N]; R];
        let mut step = |q: usize, mask: __mmask16| {
            // SAFETY: steps q.. (masked past k) of the rows and of Bt.
            unsafe {
                let x: [__m512; R] =
                    std::array::from_fn(|r| _mm512_maskz_loadu_ps(mask, row[r].add(q)));
                for r in row {
                    let ahead = r.wrapping_offset(AHEAD * R as isize * p.a.rs + q as isize);
                    _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
                }
                for j in 0..N {
                    let y = _mm512_maskz_loadu_ps(mask, bt.add(j * k + q));
                    for (acc_r, &xr) in acc.iter_mut().zip(&x) {
                        acc_r[j] = _mm512_fmadd_ps(xr, y, acc_r[j]);
                    }
                }
            }
        };
        let full = k / 16 * 16;
        for q in (0..full).step_by(16) {
            step(q, !0);
        }
        if full < k {
            step(full, first_lanes(k - full));
        }
        for (r, acc_r) in acc.iter().enumerate().take(rows) {
            for (j, &s) in acc_r.iter().enumerate() {
                // SAFETY: row r < rows, column j < n of C (caller contract).
                unsafe { *c.add(r * p.ldc + j) = _mm512_reduce_add_ps(s) };
            }
        }
    }
}
