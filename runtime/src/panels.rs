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
}
