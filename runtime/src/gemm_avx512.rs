//! The AVX-512 micro-kernels of the float32 GEMM ([`crate::gemm`]).
//!
//! One `zmm` register holds a whole row of a packed B panel (`NR` = 16
//! floats), so a kernel keeps `R × P` accumulators for `R ≤ MR` rows of A
//! against `P ≤` [`PANELS`] adjacent panels: per depth step, `P` loads of B,
//! `R` broadcasts of A and `R·P` fused multiply-adds (at `R = MR`, `P = 4`:
//! 24 accumulators of the 32 registers). Masked stores write the valid
//! columns of the last panel and only the tile's rows, so partial tiles need
//! no scratch tile and no second kernel.
//!
//! Chosen at run time on an x86-64 level 4 CPU ([`crate::cpu::agc_rt_cpu_level`]:
//! `AGC_CPU_MASK=avx512f` turns it off, and valgrind, which does not
//! emulate AVX-512, hides it); elsewhere the AVX2 kernels run.

use crate::gemm::MR;
use crate::gemm_wide::WideTile;

/// Panels one kernel call covers at most.
pub const PANELS: usize = 4;

/// The 16-lane mask of the first `n` lanes (all of them from 16 on).
pub fn first_lanes(n: usize) -> u16 {
    if n >= 16 {
        !0
    } else {
        (1u16 << n) - 1
    }
}

/// A kernel for `rows` rows (`1..=MR`) of A and `panels` panels
/// (`1..=PANELS`) of B: it computes rows `first..first + rows` of the tile
/// against the panels at `bp`, `bp + panel_stride`, ..., writing all `NR`
/// columns of each panel but the last, and the last panel's first `cols`.
pub type Kernel = unsafe fn(&WideTile);

/// The kernel for a tile of `rows` rows and `panels` panels (both at least
/// one and at most `MR` and [`PANELS`]); `packed`: the tile's rows of A are
/// a packed panel (row `r` at offset `r`, `first` 0), whose offsets the
/// kernel then knows at compile time (3% on a 2048² product).
#[cfg(target_arch = "x86_64")]
pub fn kernel(rows: usize, panels: usize, packed: bool) -> Kernel {
    use x86::kernel as k;
    macro_rules! by_rows {
        ($p:literal, $packed:literal) => {
            match rows {
                1 => k::<1, $p, $packed>,
                2 => k::<2, $p, $packed>,
                3 => k::<3, $p, $packed>,
                4 => k::<4, $p, $packed>,
                5 => k::<5, $p, $packed>,
                _ => k::<MR, $p, $packed>,
            }
        };
    }
    macro_rules! by_panels {
        ($packed:literal) => {
            match panels {
                1 => by_rows!(1, $packed),
                2 => by_rows!(2, $packed),
                3 => by_rows!(3, $packed),
                _ => by_rows!(4, $packed),
            }
        };
    }
    debug_assert!((1..=MR).contains(&rows) && (1..=PANELS).contains(&panels));
    if packed {
        by_panels!(true)
    } else {
        by_panels!(false)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use crate::gemm::NR;
    use crate::gemm_wide::WideTile;
    use std::arch::x86_64::*;

    /// `R` rows × `P` panels (see the module doc); `PACKED`: row `r` of A
    /// at offset `r` (see [`super::kernel`]).
    ///
    /// # Safety
    /// The CPU has AVX-512F; the tile's rows of A and its panels hold `kc`
    /// steps; rows `first..first + R` of C, `NR` columns of each panel (the
    /// last one's `cols`), are writable by this call alone.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn kernel<const R: usize, const P: usize, const PACKED: bool>(t: &WideTile) {
        let a = t.a;
        // The tile's rows of C are far apart and, in a large product, no
        // longer in cache when the depth loop ends: ask for them now so
        // that their misses overlap the multiply-adds instead of stalling
        // the stores (8% of a 2048² product).
        for r in 0..R {
            for q in 0..P {
                // SAFETY: inside the tile's C (caller contract); a prefetch
                // does not fault.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(t.c.add(r * t.ldc + q * NR) as *const i8) };
            }
        }
        let mut acc = [[_mm512_setzero_ps(); P]; R];
        // One panel gives at most MR independent sums, fewer than the FMA
        // units' latency needs: odd depth steps go to a second set.
        let mut odd = [[_mm512_setzero_ps(); P]; R];
        // SAFETY (both closures): step `p` of the rows and panels (caller contract).
        let step = |acc: &mut [[__m512; P]; R], p: usize| unsafe {
            let ap = a.ptr.offset(p as isize * a.step);
            let b: [__m512; P] =
                std::array::from_fn(|q| _mm512_loadu_ps(t.bp.add(q * t.panel_stride + p * NR)));
            for (r, row) in acc.iter_mut().enumerate() {
                let off = if PACKED {
                    r as isize
                } else {
                    a.rows[t.first + r]
                };
                let x = _mm512_set1_ps(*ap.offset(off));
                for (s, &bq) in row.iter_mut().zip(&b) {
                    *s = _mm512_fmadd_ps(x, bq, *s);
                }
            }
        };
        if P == 1 {
            let pairs = t.kc / 2;
            for p in 0..pairs {
                step(&mut acc, 2 * p);
                step(&mut odd, 2 * p + 1);
            }
            if t.kc % 2 == 1 {
                step(&mut acc, t.kc - 1);
            }
            for (row, odd_row) in acc.iter_mut().zip(&odd) {
                row[0] = _mm512_add_ps(row[0], odd_row[0]);
            }
        } else {
            for p in 0..t.kc {
                step(&mut acc, p);
            }
        }
        let last: __mmask16 = super::first_lanes(t.cols);
        for (r, row) in acc.iter().enumerate() {
            for (q, &v) in row.iter().enumerate() {
                let mask = if q + 1 == P { last } else { !0 };
                // SAFETY: row r, panel q of the tile's C, its valid columns
                // (caller contract).
                unsafe {
                    let dst = t.c.add(r * t.ldc + q * NR);
                    let v = if t.store {
                        v
                    } else {
                        _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, dst))
                    };
                    _mm512_mask_storeu_ps(dst, mask, v);
                }
            }
        }
    }
}
