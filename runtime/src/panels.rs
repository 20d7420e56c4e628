//! B's column panels for the blocked GEMM ([`crate::gemm`]): `B[K, N]`
//! (row-major, or given as its transpose `S[N, K]`) laid out as
//! `[ceil(N/NR)][K][NR]`, zero past `N`. Generated code packs per call;
//! weights are packed once by this, at build time (embedded weights) or
//! when a context is created (external weights).

use crate::gemm::NR;

/// Floats of the panels of a `[k, n]` B.
pub fn panels_len(k: usize, n: usize) -> usize {
    n.div_ceil(NR) * k * NR
}

/// Packs B into `out` (of [`panels_len`] floats): `at(i)` reads element `i`
/// of the source in its row-major order, `[K, N]`, or `[N, K]` when
/// `transposed`.
pub fn pack(at: impl Fn(usize) -> f32, k: usize, n: usize, transposed: bool, out: &mut [f32]) {
    for (p, panel) in out.chunks_exact_mut(k * NR).enumerate() {
        for (kk, row) in panel.chunks_exact_mut(NR).enumerate() {
            for (l, slot) in row.iter_mut().enumerate() {
                let col = p * NR + l;
                *slot = if col >= n {
                    0.0
                } else if transposed {
                    at(col * k + kk)
                } else {
                    at(kk * n + col)
                };
            }
        }
    }
}

/// Below this many floats of B its panels are packed on the calling
/// thread only.
const PARALLEL_MIN_FLOATS: usize = 1 << 16;

/// Packs B for generated code: `b` a rank-2 memref (`[K, N]`, or, when
/// `transposed` is non-zero, its transpose's source `[N, K]`) at any strides
/// and offset, into `bp`, a rank-3 memref `[ceil(N/NR), K, NR]`; panels are
/// spread over the thread pool when B is large. Memrefs come in MLIR's
/// expanded form (allocated, aligned, offset, sizes, strides).
///
/// # Safety
/// The memrefs describe live buffers of those shapes; `bp` is writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn agc_rt_pack_b(
    _b_alloc: *const f32,
    b: *const f32,
    b_off: i64,
    b_s0: i64,
    b_s1: i64,
    b_st0: i64,
    b_st1: i64,
    transposed: i64,
    _bp_alloc: *mut f32,
    bp: *mut f32,
    bp_off: i64,
    _bp_s0: i64,
    _bp_s1: i64,
    _bp_s2: i64,
    _bp_st0: i64,
    _bp_st1: i64,
    _bp_st2: i64,
) {
    // Element (p, j) of B at `b + p * rs + j * cs`.
    let (k, n, rs, cs) = if transposed != 0 {
        (b_s1, b_s0, b_st1, b_st0)
    } else {
        (b_s0, b_s1, b_st0, b_st1)
    };
    let (k, n) = (k.max(0) as usize, n.max(0) as usize);
    let panels = n.div_ceil(NR);
    if k == 0 || panels == 0 {
        return;
    }
    // SAFETY: the offsets address each memref's first element.
    let (b, bp) = unsafe {
        (
            b.offset(b_off as isize) as usize,
            bp.offset(bp_off as isize) as usize,
        )
    };
    let pack_panel = |j: usize| {
        let (b, bp) = (b as *const f32, bp as *mut f32);
        let cols = NR.min(n - j * NR);
        for p in 0..k {
            // SAFETY: row p of panel j inside Bp; B's elements (p, j*NR..)
            // inside B (caller contract).
            unsafe {
                let dst = bp.add((j * k + p) * NR);
                let src = b.offset(p as isize * rs as isize + (j * NR) as isize * cs as isize);
                if cs == 1 && cols == NR {
                    std::ptr::copy_nonoverlapping(src, dst, NR);
                } else {
                    for l in 0..NR {
                        *dst.add(l) = if l < cols {
                            *src.offset(l as isize * cs as isize)
                        } else {
                            0.0
                        };
                    }
                }
            }
        }
    };
    if k * n >= PARALLEL_MIN_FLOATS && crate::pool::threads() > 1 {
        crate::pool::parallel_for(panels, &pack_panel);
    } else {
        (0..panels).for_each(pack_panel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_hold_columns_zero_padded() {
        let (k, n) = (3, NR + 2);
        let b: Vec<f32> = (0..k * n).map(|i| i as f32).collect();
        let mut p = vec![f32::NAN; panels_len(k, n)];
        pack(|i| b[i], k, n, false, &mut p);
        // panel 1, row 2, lane 1: B[2][NR + 1]
        assert_eq!(p[k * NR + 2 * NR + 1], b[2 * n + NR + 1]);
        assert_eq!(p[k * NR + 2 * NR + 2], 0.0);
        let s: Vec<f32> = (0..n * k).map(|i| b[(i % k) * n + i / k]).collect();
        let mut q = vec![f32::NAN; panels_len(k, n)];
        pack(|i| s[i], k, n, true, &mut q);
        assert_eq!(p, q);
    }

    #[test]
    fn the_runtime_packer_matches_pack_for_both_layouts_and_threads() {
        for (k, n, threads) in [(3, NR + 2, 1), (300, 5 * NR + 3, 2), (257, 256, 2)] {
            crate::pool::agc_rt_set_num_threads(threads);
            let b: Vec<f32> = (0..k * n).map(|i| i as f32).collect();
            let mut want = vec![f32::NAN; panels_len(k, n)];
            pack(|i| b[i], k, n, false, &mut want);
            let s: Vec<f32> = (0..n * k).map(|i| b[(i % k) * n + i / k]).collect();
            let panels = n.div_ceil(NR) as i64;
            for (src, transposed, s0, s1) in [(&b, 0, k, n), (&s, 1, n, k)] {
                let mut got = vec![f32::NAN; panels_len(k, n)];
                let (ki, nr) = (k as i64, NR as i64);
                // SAFETY: the memrefs describe the vectors.
                unsafe {
                    agc_rt_pack_b(
                        src.as_ptr(),
                        src.as_ptr(),
                        0,
                        s0 as i64,
                        s1 as i64,
                        s1 as i64,
                        1,
                        transposed,
                        got.as_mut_ptr(),
                        got.as_mut_ptr(),
                        0,
                        panels,
                        ki,
                        nr,
                        ki * nr,
                        nr,
                        1,
                    )
                };
                assert_eq!(got, want, "k {k} n {n} transposed {transposed}");
            }
        }
    }
}
