//! Products with few columns, `C[M,N] = A[M,K] · B[K,N]` for `N ≤`
//! [`MAX_N`]: a classifier's `784 → 10` layer and its weight gradient
//! `xᵀ · δ`. The blocked GEMM's `MR × NR` tiles are 16 columns wide, so at
//! `N = 10` six of every sixteen multiply-adds are wasted, and at `N = 5`
//! eleven. Here every multiply-add is used, with one accumulator register
//! per column, in one of two forms chosen by how A lies in memory:
//!
//! - **rows** (A's rows contiguous): each output row is `N` dot products of
//!   that row of A with the columns of B, eight depth steps per register;
//!   B's columns are first copied out of its packed panel into a per-thread
//!   `N × K` buffer so that each is contiguous; a horizontal sum per column
//!   ends each row;
//! - **columns** (A's columns contiguous: `xᵀ` read in place): eight rows of
//!   C at a time, the column of A in a register and `B[p, j]` broadcast from
//!   the packed panel; the `8 × N` block is stored transposed.
//!
//! Small `N` takes two rows (two vectors of rows) per step, so that enough
//! independent accumulators hide the FMA latency. Rows are split evenly over
//! the thread pool. Only AVX2 + FMA CPUs take this path; others use the
//! blocked GEMM's portable kernel.

use crate::gemm::{Problem, Strided, NR};
use crate::pool;
use std::cell::RefCell;

/// The most columns this path takes (one accumulator register per column
/// and step row, leaving registers for the operands).
pub const MAX_N: usize = 12;

thread_local! {
    /// The caller's copy of B's columns (`N × K`, column `j` at `j * K`).
    static COLUMNS_OF_B: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Computes the product when this path applies (see the module doc) and
/// returns whether it did.
///
/// # Safety
/// As `gemm::sgemm`: the problem's buffers hold its shapes; `n ≥ 1`, `k ≥ 1`.
pub(crate) unsafe fn sgemm(p: &Problem, threads: usize) -> bool {
    if p.n > MAX_N || !has_avx2_fma() {
        return false;
    }
    if p.a.cs == 1 {
        COLUMNS_OF_B.with(|buf| {
            let mut bt = buf.borrow_mut();
            bt.resize(p.n * p.k, 0.0);
            for (j, col) in bt.chunks_exact_mut(p.k).enumerate() {
                for (q, x) in col.iter_mut().enumerate() {
                    // SAFETY: row `q` of the single panel holds column `j < n ≤ NR`.
                    *x = unsafe { *p.bp.add(q * NR + j) };
                }
            }
            let columns: &[f32] = &bt;
            // SAFETY: caller contract; `columns` holds B's columns.
            unsafe {
                split_rows(p, threads, 1, &|i0, i1| {
                    rows_form(p, columns.as_ptr(), i0, i1)
                })
            };
        });
        true
    } else if p.a.rs == 1 {
        // SAFETY: caller contract.
        unsafe { split_rows(p, threads, 8, &|i0, i1| columns_form(p, i0, i1)) };
        true
    } else {
        false
    }
}

fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs `run(i0, i1)` over `[0, m)` in ranges aligned to `align` rows, one
/// per thread (all on the caller when `threads` is 1).
///
/// # Safety
/// `run` writes only rows `i0..i1` of C.
unsafe fn split_rows(
    p: &Problem,
    threads: usize,
    align: usize,
    run: &(dyn Fn(usize, usize) + Sync),
) {
    let units = p.m.div_ceil(align);
    let tasks = threads.clamp(1, units);
    let range = |t: usize| {
        let (u0, u1) = (t * units / tasks, (t + 1) * units / tasks);
        ((u0 * align).min(p.m), (u1 * align).min(p.m))
    };
    if tasks == 1 {
        run(0, p.m);
    } else {
        pool::parallel_for(tasks, &|t| {
            let (i0, i1) = range(t);
            run(i0, i1);
        });
    }
}

/// The rows form (see the module doc) for rows `i0..i1`.
fn rows_form(p: &Problem, bt: *const f32, i0: usize, i1: usize) {
    macro_rules! dispatch {
        ($($n:literal => $r:literal),*) => {
            match p.n {
                // SAFETY: AVX2 and FMA checked by `sgemm`; shapes by its caller.
                $($n => unsafe { avx2::rows::<$n, $r>(p.a, bt, p.k, p.c, p.ldc, i0, i1) },)*
                _ => unreachable!("n ≤ MAX_N"),
            }
        };
    }
    dispatch!(1 => 2, 2 => 2, 3 => 2, 4 => 2, 5 => 2, 6 => 2,
              7 => 1, 8 => 1, 9 => 1, 10 => 1, 11 => 1, 12 => 1)
}

/// The columns form (see the module doc) for rows `i0..i1`.
fn columns_form(p: &Problem, i0: usize, i1: usize) {
    macro_rules! dispatch {
        ($($n:literal => $r:literal),*) => {
            match p.n {
                // SAFETY: AVX2 and FMA checked by `sgemm`; shapes by its caller.
                $($n => unsafe { avx2::columns::<$n, $r>(p.a, p.bp, p.k, p.c, p.ldc, i0, i1) },)*
                _ => unreachable!("n ≤ MAX_N"),
            }
        };
    }
    dispatch!(1 => 2, 2 => 2, 3 => 2, 4 => 2, 5 => 2, 6 => 2,
              7 => 1, 8 => 1, 9 => 1, 10 => 1, 11 => 1, 12 => 1)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Strided, NR};
    use std::arch::x86_64::*;

    /// The sum of a vector's lanes.
    #[target_feature(enable = "avx2,fma")]
    fn hsum(v: __m256) -> f32 {
        let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)))
    }

    /// Rows `i0..i1` of C, `R` at a time: `C[i, j] = A[i, :] · Bᵀ[j, :]`,
    /// A's rows contiguous, `bt` B's `N` columns of `k` contiguous floats.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; A holds rows `i0..i1` of `k` floats, C
    /// their `N` columns.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn rows<const N: usize, const R: usize>(
        a: Strided,
        bt: *const f32,
        k: usize,
        c: *mut f32,
        ldc: usize,
        i0: usize,
        i1: usize,
    ) {
        let mut i = i0;
        while i < i1 {
            let r = R.min(i1 - i);
            // Rows past the range repeat the last one (computed, not stored).
            // SAFETY: rows i..i+r of A (caller contract).
            let ar: [*const f32; R] = std::array::from_fn(|q| unsafe {
                a.ptr.offset((i + q.min(r - 1)) as isize * a.rs)
            });
            let mut acc = [[_mm256_setzero_ps(); N]; R];
            let mut p = 0;
            while p + 8 <= k {
                for (row, &ap) in acc.iter_mut().zip(&ar) {
                    // SAFETY: depth p..p+8 of the row and of each column.
                    unsafe {
                        let av = _mm256_loadu_ps(ap.add(p));
                        for (j, s) in row.iter_mut().enumerate() {
                            *s = _mm256_fmadd_ps(av, _mm256_loadu_ps(bt.add(j * k + p)), *s);
                        }
                    }
                }
                p += 8;
            }
            for (q, (row, &ap)) in acc.iter().zip(&ar).enumerate().take(r) {
                for (j, &s) in row.iter().enumerate() {
                    let mut sum = hsum(s);
                    for d in p..k {
                        // SAFETY: as above, the depth's tail.
                        sum = unsafe { (*ap.add(d)).mul_add(*bt.add(j * k + d), sum) };
                    }
                    // SAFETY: row i+q, column j < N of C.
                    unsafe { *c.add((i + q) * ldc + j) = sum };
                }
            }
            i += r;
        }
    }

    /// Rows `i0..i1` of C, `8 × R` at a time: `C[i.., j] = Σ_p A[i.., p] ·
    /// B[p, j]`, A's columns contiguous (`a.rs == 1`), B the packed panel
    /// (row `p` at `bp + p * NR`).
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; A holds rows `i0..i1` at depth `0..k`, the
    /// panel `k` rows, C rows `i0..i1` of `N` columns.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn columns<const N: usize, const R: usize>(
        a: Strided,
        bp: *const f32,
        k: usize,
        c: *mut f32,
        ldc: usize,
        i0: usize,
        i1: usize,
    ) {
        let mut i = i0;
        while i < i1 {
            // Lanes of each vector that hold rows below i1.
            let lanes: [usize; R] = std::array::from_fn(|v| (i1 - i).saturating_sub(8 * v).min(8));
            let masks: [__m256i; R] = std::array::from_fn(|v| {
                let n = lanes[v] as i32;
                _mm256_cmpgt_epi32(
                    _mm256_set1_epi32(n),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                )
            });
            let mut acc = [[_mm256_setzero_ps(); N]; R];
            for p in 0..k {
                // SAFETY: depth p of A's rows i.. (masked past i1) and row p of the panel.
                unsafe {
                    let col = a.ptr.offset(i as isize + p as isize * a.cs);
                    let b = bp.add(p * NR);
                    for (v, row) in acc.iter_mut().enumerate() {
                        let av = if lanes[v] == 8 {
                            _mm256_loadu_ps(col.wrapping_add(8 * v))
                        } else {
                            // Masked lanes are not read (nor is any lane
                            // of a vector wholly past i1).
                            _mm256_maskload_ps(col.wrapping_add(8 * v), masks[v])
                        };
                        for (j, s) in row.iter_mut().enumerate() {
                            *s = _mm256_fmadd_ps(av, _mm256_broadcast_ss(&*b.add(j)), *s);
                        }
                    }
                }
            }
            for (v, row) in acc.iter().enumerate() {
                let mut block = [[0f32; 8]; N];
                for (out, &s) in block.iter_mut().zip(row) {
                    // SAFETY: `out` holds 8 floats.
                    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), s) };
                }
                for l in 0..lanes[v] {
                    for (j, out) in block.iter().enumerate() {
                        // SAFETY: row i+8v+l < i1, column j < N of C.
                        unsafe { *c.add((i + 8 * v + l) * ldc + j) = out[l] };
                    }
                }
            }
            i += 8 * R;
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod avx2 {
    //! Never called: `has_avx2_fma` is false off x86-64.
    use super::Strided;

    pub unsafe fn rows<const N: usize, const R: usize>(
        _: Strided,
        _: *const f32,
        _: usize,
        _: *mut f32,
        _: usize,
        _: usize,
        _: usize,
    ) {
        unreachable!("AVX2 off x86-64")
    }

    pub unsafe fn columns<const N: usize, const R: usize>(
        _: Strided,
        _: *const f32,
        _: usize,
        _: *mut f32,
        _: usize,
        _: usize,
        _: usize,
    ) {
        unreachable!("AVX2 off x86-64")
    }
}
