//! Micro-kernels for the last, partial row tile of a GEMM block: `R < MR`
//! rows across `P` column panels at once.
//!
//! The main micro-kernel computes `MR` rows of one panel; run on the rows
//! left over when a block's rows are not a multiple of `MR` (a batch of 32
//! is five tiles of 6 and 2 rows), it computes `MR` rows for `R` and wastes
//! the rest. These kernels keep the `R` rows' accumulators of `P` panels in
//! registers instead (`2·R·P ≤ 12` vectors), so the partial tile costs in
//! proportion to its rows. Only AVX2 + FMA CPUs have them; elsewhere, and
//! for the panels a group does not fill, the main kernel runs.

use crate::gemm::{Isa, TileRows, NR};

/// A call of a wide kernel: rows `first..first + R` of `a` against the `P`
/// panels at `bp`, `bp + panel_stride`, ... (all `NR` columns wide), into
/// C at `c` (row stride `ldc`); `store` overwrites C instead of adding.
pub struct WideTile {
    /// Depth of the block.
    pub kc: usize,
    /// The tile's rows of A (`MR` of them; these kernels read some).
    pub a: TileRows,
    /// The first row of `a` this call computes.
    pub first: usize,
    /// The first panel at the block's depth.
    pub bp: *const f32,
    /// Floats from one panel to the next.
    pub panel_stride: usize,
    /// Row `first`, first panel's column 0 of C.
    pub c: *mut f32,
    /// Row stride of C.
    pub ldc: usize,
    /// Overwrite C (the first depth block) instead of adding to it.
    pub store: bool,
    /// Columns of the last panel to write (`1..=NR`; the AVX2 kernels
    /// here are only called on full panels and write all `NR`).
    pub cols: usize,
}

/// A wide kernel.
///
/// # Safety
/// The tile's rows of A and the panels hold `kc` steps; its rows and the
/// `P · NR` columns of C are writable by this call alone.
pub type WideKernel = unsafe fn(&WideTile);

/// How the partial tile of `rows` rows (`0 < rows < MR`) is computed with
/// the kernels of `isa`: the kernel, the rows per call (calls at rows `0,
/// step, ..`) and the panels per call; `None` where the main kernel should
/// run.
pub fn for_rows(rows: usize, isa: Isa) -> Option<(WideKernel, usize, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        if isa != Isa::Portable {
            return match rows {
                1 => Some((avx2::kernel::<1, 3>, 1, 3)),
                2 | 4 => Some((avx2::kernel::<2, 3>, 2, 3)),
                3 => Some((avx2::kernel::<3, 2>, 3, 2)),
                5 => Some((avx2::kernel::<5, 1>, 5, 1)),
                _ => None,
            };
        }
    }
    let _ = (rows, isa);
    None
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{WideTile, NR};
    use crate::gemm::avx2::store_row;
    use std::arch::x86_64::*;

    /// `R` rows × `P` panels: per depth step, each panel's row of B is
    /// loaded once and each row of A broadcast once per panel.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; otherwise as [`super::WideKernel`].
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn kernel<const R: usize, const P: usize>(t: &WideTile) {
        let a = t.a;
        let mut acc = [[[_mm256_setzero_ps(); 2]; P]; R];
        for p in 0..t.kc {
            // SAFETY: step `p` of the rows and panels (caller contract).
            unsafe {
                let ap = a.ptr.offset(p as isize * a.step);
                for q in 0..P {
                    let b = t.bp.add(q * t.panel_stride + p * NR);
                    let (b0, b1) = (_mm256_loadu_ps(b), _mm256_loadu_ps(b.add(8)));
                    for (r, row) in acc.iter_mut().enumerate() {
                        let x = _mm256_broadcast_ss(&*ap.offset(a.rows[t.first + r]));
                        row[q][0] = _mm256_fmadd_ps(x, b0, row[q][0]);
                        row[q][1] = _mm256_fmadd_ps(x, b1, row[q][1]);
                    }
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (q, v) in row.iter().enumerate() {
                // SAFETY: row r, panel q of the tile's C (caller contract).
                unsafe { store_row(t.c.add(r * t.ldc + q * NR), v, t.store) };
            }
        }
    }
}
