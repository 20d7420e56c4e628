//! `C[M,N] = A[M,K] · B[K,N]` in float32: the blocked, packed GEMM behind
//! large matmuls, with the micro-kernel chosen at run time by the CPU's
//! features and the row and column blocks spread over the thread pool.
//!
//! Generated code packs B (`backend/src/mlir/contraction.rs`: column panels
//! `Bp[ceil(N/NR)][K][NR]`, zero past `N`, so that packing a loop-invariant
//! weight is hoisted out of loops) and calls [`agc_rt_sgemm`]. Here, per
//! depth block of [`KC`]: tasks of (row block of [`MC`], group of panels)
//! pack their rows of A into [`MR`]-row panels (zero past `M`) in a
//! per-thread buffer and run the micro-kernel on each `MR × NR` tile: `MR`
//! rows of accumulators carried through the depth block, one panel row of
//! B loaded and `MR` broadcasts of A per step. The first depth block stores
//! C, later ones add to it.
//!
//! Micro-kernels, chosen once per process by the CPU's x86-64 level
//! ([`isa`]): AVX-512 (up to 6 rows × 4 panels in `zmm` accumulators,
//! [`gemm_avx512`]) when the CPU has it,
//! else AVX2 + FMA (6 × 16 in 12 `ymm` accumulators, and [`gemm_wide`] for
//! partial row tiles), else a portable one the compiler vectorises for the
//! baseline.

use crate::gemm_avx512;
#[cfg(target_arch = "x86_64")]
use crate::gemm_narrow;
use crate::gemm_wide::{self, WideTile};
use crate::{cpu, pool};
use std::cell::RefCell;

/// Rows of the micro-kernel's tile.
pub const MR: usize = 6;
/// Columns of the micro-kernel's tile: the width of B's packed panels.
pub const NR: usize = 16;
/// Depth of a block: one packed A panel (`MR × KC`) and one B panel
/// (`KC × NR`) stay in L1 while a tile is computed.
const KC: usize = 512;
/// Rows of a block: its packed A (`MC × KC`, 96 KiB) stays in L2.
const MC: usize = 96;
/// With this many column panels or fewer, tiles read A in place instead of
/// packing it (SGD's `784 → 10` layer: one panel, where packing took longer
/// than the product).
const PACK_A_MIN_PANELS: usize = 2;
/// Below this many multiply-adds a product runs on the calling thread only
/// (waking the pool and the barrier would cost what a second core saves).
/// SGD's 200×784×10 products (1.6M) gain from two threads since the batch
/// slice is a view (its copy used to dominate the step).
const PARALLEL_MIN_MACS: usize = 1 << 20;

thread_local! {
    /// This thread's packed rows of A.
    static PACKED_A: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// A float32 matrix in memory: element `(i, j)` at `ptr + i*rs + j*cs`.
#[derive(Clone, Copy)]
pub(crate) struct Strided {
    pub(crate) ptr: *const f32,
    pub(crate) rs: isize,
    pub(crate) cs: isize,
}

/// The product's operands and sizes, shared by its tasks.
pub(crate) struct Problem {
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) k: usize,
    pub(crate) a: Strided,
    /// Panel `j` starts at `bp + j * k * NR`; row `p` of it at `+ p * NR`.
    pub(crate) bp: *const f32,
    pub(crate) c: *mut f32,
    pub(crate) ldc: usize,
}

// SAFETY: tasks read A and Bp and write disjoint tiles of C.
unsafe impl Sync for Problem {}

/// Computes the product (see the module doc).
///
/// # Safety
/// `a` addresses `m × k` readable elements, `bp` `ceil(n/NR) × k × NR`, and
/// `c` `m` rows of `ldc ≥ n` writable elements.
unsafe fn sgemm(p: &Problem) {
    // SAFETY: caller contract.
    unsafe { sgemm_on(p, isa()) }
}

/// [`sgemm`] with the kernels of `isa` (which this CPU runs).
///
/// # Safety
/// As [`sgemm`].
unsafe fn sgemm_on(p: &Problem, isa: Isa) {
    let (m, n, k) = (p.m, p.n, p.k);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            // SAFETY: row `i` of C holds `n` elements (caller contract).
            unsafe { std::ptr::write_bytes(p.c.add(i * p.ldc), 0, n) };
        }
        return;
    }
    let threads = if m * n * k >= PARALLEL_MIN_MACS {
        pool::threads()
    } else {
        1
    };
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx512 {
        if let Some(how) = gemm_narrow::plan(p) {
            // SAFETY: caller contract; the CPU has AVX-512.
            unsafe { gemm_narrow::sgemm(p, how, threads) };
            return;
        }
    }
    let panels = n.div_ceil(NR);
    // Row blocks of whole tiles, at most MC rows, as many as a multiple of
    // the threads when there are several: block `b` is tiles
    // `b * tiles / row_blocks ..` (sizes differ by one tile at most).
    let tiles_total = m.div_ceil(MR);
    let mut row_blocks = m.div_ceil(MC);
    if threads > 1 && row_blocks >= threads {
        row_blocks = row_blocks.div_ceil(threads) * threads;
    }
    let row_blocks = row_blocks.min(tiles_total);
    let block_rows = |rb: usize| {
        let (t0, t1) = (
            rb * tiles_total / row_blocks,
            (rb + 1) * tiles_total / row_blocks,
        );
        (t0 * MR, (t1 * MR).min(m) - t0 * MR)
    };
    // Enough tasks for every thread, splitting the columns when the rows
    // alone do not give them.
    let col_groups = if threads > 1 {
        (2 * threads).div_ceil(row_blocks).clamp(1, panels)
    } else {
        1
    };
    let avx512 = isa == Isa::Avx512;
    let mut panels_per_group = panels.div_ceil(col_groups);
    if avx512 {
        // Groups of kernel panels start at multiples of PANELS whatever the
        // thread count, so each element is computed by the same kernel (a
        // one-panel kernel sums in another order) and threads change no bit.
        panels_per_group = panels_per_group.next_multiple_of(gemm_avx512::PANELS);
    }
    let col_groups = panels.div_ceil(panels_per_group);
    let kernel = micro_kernel(isa);
    // Packing A costs a pass over it; it pays when many panels reuse it,
    // and not when several tasks would each pack the same rows.
    let pack = panels > PACK_A_MIN_PANELS && col_groups == 1;
    for pc in (0..k).step_by(KC) {
        let kc = KC.min(k - pc);
        let task = |t: usize| {
            let (rb, cg) = (t / col_groups, t % col_groups);
            let (i0, rows) = block_rows(rb);
            let j0 = cg * panels_per_group;
            let j1 = (j0 + panels_per_group).min(panels);
            PACKED_A.with(|buf| {
                let mut buf = buf.borrow_mut();
                let tiles = rows.div_ceil(MR);
                if pack && buf.len() < tiles * MR * kc {
                    // Grown only: resizing down and up again would zero it.
                    buf.resize(tiles * MR * kc, 0.0);
                }
                if pack {
                    // SAFETY: rows i0..i0+rows and depth pc..pc+kc are inside A.
                    unsafe { pack_a(p.a, i0, rows, pc, kc, &mut buf) };
                }
                let tile_rows = |tile: usize| {
                    let r0 = tile * MR;
                    if pack {
                        TileRows {
                            // SAFETY: tile `tile` of the packed block.
                            ptr: unsafe { buf.as_ptr().add(tile * MR * kc) },
                            rows: std::array::from_fn(|r| r as isize),
                            step: MR as isize,
                        }
                    } else {
                        let last = rows - r0 - 1;
                        TileRows {
                            // SAFETY: row i0+r0, column pc of A.
                            ptr: unsafe {
                                p.a.ptr
                                    .offset((i0 + r0) as isize * p.a.rs + pc as isize * p.a.cs)
                            },
                            rows: std::array::from_fn(|r| r.min(last) as isize * p.a.rs),
                            step: p.a.cs,
                        }
                    }
                };
                // SAFETY (both closures): panel `jp` at depth pc of Bp (caller
                // contract); row i0+r0, panel jp of C, which no other task writes.
                let panel = |jp: usize| unsafe { p.bp.add(jp * k * NR + pc * NR) };
                let c_at = |r0: usize, jp: usize| unsafe { p.c.add((i0 + r0) * p.ldc + jp * NR) };
                // Rows `first..` of tile `tile` against the panels from `jp`,
                // the last one's first `cols` columns.
                let wide_tile = |tile: usize, first: usize, jp: usize, cols: usize| WideTile {
                    kc,
                    a: tile_rows(tile),
                    first,
                    bp: panel(jp),
                    panel_stride: k * NR,
                    c: c_at(tile * MR + first, jp),
                    ldc: p.ldc,
                    store: pc == 0,
                    cols,
                };
                let main_tile = |tile: usize, jp: usize| {
                    let r0 = tile * MR;
                    let t = Tile {
                        kc,
                        a: tile_rows(tile),
                        bp: panel(jp),
                        c: c_at(r0, jp),
                        ldc: p.ldc,
                        rows: MR.min(rows - r0),
                        cols: NR.min(n - jp * NR),
                        store: pc == 0,
                    };
                    // SAFETY: the tile's rows and columns are inside C.
                    unsafe { kernel(&t) };
                };
                #[cfg(target_arch = "x86_64")]
                if avx512 {
                    // Groups of up to PANELS panels against every row tile,
                    // partial tiles and columns masked (gemm_avx512).
                    let mut jp = j0;
                    while jp < j1 {
                        let panels = gemm_avx512::PANELS.min(j1 - jp);
                        let cols = NR.min(n - (jp + panels - 1) * NR);
                        for tile in 0..tiles {
                            let kernel =
                                gemm_avx512::kernel(MR.min(rows - tile * MR), panels, pack);
                            // SAFETY: the tile's rows and columns are inside C.
                            unsafe { kernel(&wide_tile(tile, 0, jp, cols)) };
                        }
                        jp += panels;
                    }
                    return;
                }
                // A partial last tile runs on a wide kernel where there is one.
                let full = rows / MR;
                let wide = gemm_wide::for_rows(rows % MR, isa);
                let main_tiles = if wide.is_some() { full } else { tiles };
                for jp in j0..j1 {
                    for tile in 0..main_tiles {
                        main_tile(tile, jp);
                    }
                }
                if let Some((wide_kernel, step, width)) = wide {
                    let mut jp = j0;
                    while jp < j1 {
                        if jp + width > j1 || (jp + width) * NR > n {
                            main_tile(full, jp);
                            jp += 1;
                            continue;
                        }
                        for first in (0..rows % MR).step_by(step) {
                            // SAFETY: rows and full panels inside C.
                            unsafe { wide_kernel(&wide_tile(full, first, jp, NR)) };
                        }
                        jp += width;
                    }
                }
            });
        };
        let tasks = row_blocks * col_groups;
        if threads > 1 {
            pool::parallel_for(tasks, &task);
        } else {
            (0..tasks).for_each(task);
        }
    }
}

/// Packs rows `i0..i0+rows`, depth `p0..p0+kc` of A into `MR`-row panels:
/// panel `t`, step `p`, row `r` at `out[(t * kc + p) * MR + r]`; rows past
/// the block are zero.
///
/// # Safety
/// The block is inside A.
unsafe fn pack_a(a: Strided, i0: usize, rows: usize, p0: usize, kc: usize, out: &mut [f32]) {
    for t in 0..rows.div_ceil(MR) {
        let panel = &mut out[t * kc * MR..(t + 1) * kc * MR];
        if (t + 1) * MR <= rows {
            // A full panel: the MR rows read in step and the panel written
            // in order (one write stream instead of MR strided ones).
            // SAFETY: rows i0+t*MR.., columns p0.. of A (caller contract).
            let row: [*const f32; MR] = std::array::from_fn(|r| unsafe {
                a.ptr
                    .offset((i0 + t * MR + r) as isize * a.rs + p0 as isize * a.cs)
            });
            for (p, out) in panel.chunks_exact_mut(MR).enumerate() {
                for (o, &src) in out.iter_mut().zip(&row) {
                    // SAFETY: as above.
                    *o = unsafe { *src.offset(p as isize * a.cs) };
                }
            }
            continue;
        }
        for r in 0..MR {
            let i = t * MR + r;
            if i >= rows {
                for p in 0..kc {
                    panel[p * MR + r] = 0.0;
                }
                continue;
            }
            // SAFETY: row i0+i, columns p0.. of A (caller contract).
            let row = unsafe { a.ptr.offset((i0 + i) as isize * a.rs + p0 as isize * a.cs) };
            for p in 0..kc {
                // SAFETY: as above.
                panel[p * MR + r] = unsafe { *row.offset(p as isize * a.cs) };
            }
        }
    }
}

/// The `MR` rows of A a tile reads: row `r`, step `p` at
/// `ptr + rows[r] + p * step` (packed: `rows[r] = r`, `step = MR`; read in
/// place: the rows' offsets, rows past the block repeating the last one).
#[derive(Clone, Copy)]
pub(crate) struct TileRows {
    pub(crate) ptr: *const f32,
    pub(crate) rows: [isize; MR],
    pub(crate) step: isize,
}

/// One micro-kernel call: `C[..rows, ..cols] (=|+=) A · Bp`, `a` the tile's
/// rows of A and `bp` an `NR`-column panel, both `kc` deep; C at `c` with
/// row stride `ldc`; `store` overwrites C instead of adding to it.
struct Tile {
    kc: usize,
    a: TileRows,
    bp: *const f32,
    c: *mut f32,
    ldc: usize,
    rows: usize,
    cols: usize,
    store: bool,
}

/// A micro-kernel.
///
/// # Safety
/// The tile's panels hold `kc` steps and its `rows × cols` of C are
/// writable by this call alone.
type MicroKernel = unsafe fn(&Tile);

/// The vector instruction sets the GEMM has kernels for, worst first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Isa {
    /// Neither of the others: the portable kernel.
    Portable,
    /// AVX2 and FMA ([`avx2`], [`gemm_wide`]): x86-64 level 3.
    Avx2,
    /// AVX-512 ([`gemm_avx512`]): x86-64 level 4.
    Avx512,
}

/// The best instruction set of the running CPU's x86-64 level
/// ([`cpu::agc_rt_cpu_level`], the level that also picks the generated
/// kernels' variant; `AGC_CPU_MASK` counts).
pub(crate) fn isa() -> Isa {
    match cpu::agc_rt_cpu_level() {
        4.. => Isa::Avx512,
        3 => Isa::Avx2,
        _ => Isa::Portable,
    }
}

/// The one-panel micro-kernel of `isa` (the AVX-512 path uses
/// [`gemm_avx512`]'s instead).
fn micro_kernel(isa: Isa) -> MicroKernel {
    #[cfg(target_arch = "x86_64")]
    if isa != Isa::Portable {
        return avx2::kernel;
    }
    portable_kernel
}

/// Writes (or adds) a computed `MR × NR` tile into C, the valid part only.
///
/// # Safety
/// As [`MicroKernel`].
unsafe fn write_tile(acc: &[[f32; NR]; MR], t: &Tile) {
    for (r, acc_row) in acc.iter().enumerate().take(t.rows) {
        for (j, &v) in acc_row.iter().enumerate().take(t.cols) {
            // SAFETY: inside the tile (caller contract).
            unsafe {
                let dst = t.c.add(r * t.ldc + j);
                *dst = if t.store { v } else { *dst + v };
            }
        }
    }
}

/// The micro-kernel in plain Rust (any CPU).
///
/// # Safety
/// As [`MicroKernel`].
unsafe fn portable_kernel(t: &Tile) {
    let (a, bp) = (t.a, t.bp);
    let mut acc = [[0f32; NR]; MR];
    for p in 0..t.kc {
        // SAFETY: step `p` of the panel of B.
        let b = unsafe { std::slice::from_raw_parts(bp.add(p * NR), NR) };
        for (acc_row, &off) in acc.iter_mut().zip(&a.rows) {
            // SAFETY: row `off`, step `p` of A (caller contract).
            let x = unsafe { *a.ptr.offset(off + p as isize * a.step) };
            for (s, &y) in acc_row.iter_mut().zip(b) {
                // A multiply and an add, not `mul_add`: without FMA in the
                // target (the x86-64 baseline) that is a libm call per
                // element, 200x slower than the vectorised pair.
                *s += x * y;
            }
        }
    }
    // SAFETY: caller contract.
    unsafe { write_tile(&acc, t) };
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::{write_tile, Tile, MR, NR};
    use std::arch::x86_64::*;

    /// Writes (`store`) or adds one row of `NR` accumulated floats at `dst`.
    ///
    /// # Safety
    /// The CPU has AVX2; `dst` holds `NR` writable floats.
    #[target_feature(enable = "avx2")]
    pub unsafe fn store_row(dst: *mut f32, row: &[__m256; 2], store: bool) {
        // SAFETY: caller contract.
        unsafe {
            let (mut v0, mut v1) = (row[0], row[1]);
            if !store {
                v0 = _mm256_add_ps(v0, _mm256_loadu_ps(dst));
                v1 = _mm256_add_ps(v1, _mm256_loadu_ps(dst.add(8)));
            }
            _mm256_storeu_ps(dst, v0);
            _mm256_storeu_ps(dst.add(8), v1);
        }
    }

    /// The AVX2 + FMA micro-kernel: two `ymm` per tile row.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; otherwise as [`super::MicroKernel`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn kernel(t: &Tile) {
        let (a, bp, c, ldc) = (t.a, t.bp, t.c, t.ldc);
        let mut acc = [[_mm256_setzero_ps(); 2]; MR];
        for p in 0..t.kc {
            // SAFETY: step `p` of A's rows and of the panel (caller contract).
            unsafe {
                let b0 = _mm256_loadu_ps(bp.add(p * NR));
                let b1 = _mm256_loadu_ps(bp.add(p * NR + 8));
                let ap = a.ptr.offset(p as isize * a.step);
                for (row, &off) in acc.iter_mut().zip(&a.rows) {
                    let x = _mm256_broadcast_ss(&*ap.offset(off));
                    row[0] = _mm256_fmadd_ps(x, b0, row[0]);
                    row[1] = _mm256_fmadd_ps(x, b1, row[1]);
                }
            }
        }
        if t.rows == MR && t.cols == NR {
            for (r, row) in acc.iter().enumerate() {
                // SAFETY: a full tile inside C (caller contract).
                unsafe { store_row(c.add(r * ldc), row, t.store) };
            }
            return;
        }
        let mut tile = [[0f32; NR]; MR];
        for (row, out) in acc.iter().zip(tile.iter_mut()) {
            // SAFETY: `out` holds NR floats.
            unsafe {
                _mm256_storeu_ps(out.as_mut_ptr(), row[0]);
                _mm256_storeu_ps(out.as_mut_ptr().add(8), row[1]);
            }
        }
        // SAFETY: caller contract.
        unsafe { write_tile(&tile, t) };
    }
}

/// `C = A · B` for generated code: `A` as a rank-2 memref (`[M, K]`, or,
/// when `a_transposed` is non-zero, its transpose's source `[K, M]`, read in
/// place), `Bp` B's packed panels as a rank-3 memref `[ceil(N/NR), K, NR]`,
/// `C` a rank-2 memref `[M, N]`, written whole. Memrefs come in MLIR's
/// expanded form (allocated, aligned, offset, sizes, strides).
///
/// # Safety
/// The memrefs describe live buffers of those shapes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn agc_rt_sgemm(
    _a_alloc: *const f32,
    a: *const f32,
    a_off: i64,
    a_s0: i64,
    a_s1: i64,
    a_st0: i64,
    a_st1: i64,
    a_transposed: i64,
    _bp_alloc: *const f32,
    bp: *const f32,
    bp_off: i64,
    _bp_s0: i64,
    bp_s1: i64,
    _bp_s2: i64,
    _bp_st0: i64,
    _bp_st1: i64,
    _bp_st2: i64,
    _c_alloc: *mut f32,
    c: *mut f32,
    c_off: i64,
    c_s0: i64,
    c_s1: i64,
    c_st0: i64,
    _c_st1: i64,
) {
    let (m, k, rs, cs) = if a_transposed != 0 {
        (a_s1, a_s0, a_st1, a_st0)
    } else {
        (a_s0, a_s1, a_st0, a_st1)
    };
    debug_assert!(bp_s1 == k && c_s0 == m);
    // SAFETY: the offsets address each memref's first element.
    let problem = unsafe {
        Problem {
            m: m.max(0) as usize,
            n: c_s1.max(0) as usize,
            k: k.max(0) as usize,
            a: Strided {
                ptr: a.offset(a_off as isize),
                rs: rs as isize,
                cs: cs as isize,
            },
            bp: bp.offset(bp_off as isize),
            c: c.offset(c_off as isize),
            ldc: c_st0.max(0) as usize,
        }
    };
    // SAFETY: the memrefs hold the shapes (caller contract).
    unsafe { sgemm(&problem) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// B packed as generated code packs it.
    fn pack_b(b: &[f32], k: usize, n: usize) -> Vec<f32> {
        let panels = n.div_ceil(NR);
        let mut out = vec![0.0; panels * k * NR];
        for j in 0..n {
            for p in 0..k {
                out[(j / NR) * k * NR + p * NR + j % NR] = b[p * n + j];
            }
        }
        out
    }

    /// The product in float64, the oracle.
    fn reference(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0f64; m * n];
        for i in 0..m {
            for p in 0..k {
                for j in 0..n {
                    c[i * n + j] += f64::from(a[i * k + p]) * f64::from(b[p * n + j]);
                }
            }
        }
        c
    }

    fn values(len: usize, seed: u32) -> Vec<f32> {
        (0..len)
            .map(|i| (((i as u32).wrapping_mul(2654435761) ^ seed) % 2001) as f32 / 1000.0 - 1.0)
            .collect()
    }

    /// The instruction sets this CPU runs, each checked by [`check`].
    fn isas() -> Vec<Isa> {
        [Isa::Portable, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .filter(|&i| i <= isa())
            .collect()
    }

    /// `A · B` of the test operands (A read transposed in place when
    /// `transposed`) on `threads` threads with the kernels of `isa`.
    fn product(
        (m, k, n): (usize, usize, usize),
        transposed: bool,
        threads: i32,
        isa: Isa,
    ) -> Vec<f32> {
        pool_threads(threads);
        let (a, b) = (values(m * k, 7), values(k * n, 11));
        let bp = pack_b(&b, k, n);
        let mut c = vec![f32::NAN; m * n];
        let at: Vec<f32> = (0..k * m).map(|q| a[(q % m) * k + q / m]).collect();
        let (src, rs, cs) = if transposed {
            (&at, 1, m as isize)
        } else {
            (&a, k as isize, 1)
        };
        let problem = Problem {
            m,
            n,
            k,
            a: Strided {
                ptr: src.as_ptr(),
                rs,
                cs,
            },
            bp: bp.as_ptr(),
            c: c.as_mut_ptr(),
            ldc: n,
        };
        // SAFETY: buffers sized for the problem.
        unsafe { sgemm_on(&problem, isa) };
        c
    }

    /// Checks the product against float64 with the kernels of every
    /// instruction set this CPU runs.
    fn check(m: usize, k: usize, n: usize, transposed: bool, threads: i32) {
        for isa in isas() {
            check_on(m, k, n, transposed, threads, isa);
        }
    }

    fn check_on(m: usize, k: usize, n: usize, transposed: bool, threads: i32, isa: Isa) {
        let c = product((m, k, n), transposed, threads, isa);
        let want = reference(&values(m * k, 7), &values(k * n, 11), m, k, n);
        for (q, (&got, &w)) in c.iter().zip(&want).enumerate() {
            let tol = 1e-5 * (k as f64).sqrt() * (1.0 + w.abs());
            assert!(
                (f64::from(got) - w).abs() <= tol,
                "{isa:?} {m}x{k}x{n} t={transposed} at {q}: {got} vs {w}"
            );
        }
    }

    fn pool_threads(n: i32) {
        crate::pool::agc_rt_set_num_threads(n);
    }

    #[test]
    fn products_of_every_edge_shape_match_float64() {
        for &(m, k, n) in &[
            (1, 1, 1),
            (5, 3, 17),
            (6, 16, 16),
            (7, 300, 33),
            (97, 257, 40),
            (13, 0, 5),
        ] {
            check(m, k, n, false, 1);
            check(m, k, n, true, 1);
        }
    }

    #[test]
    fn partial_row_tiles_match_float64() {
        // Every count of leftover rows (m % MR = 1..5), with panels that do
        // and do not fill a wide kernel's group (the last one partial), one
        // depth block and two (stored, then added), A packed (n > 2 panels)
        // and read in place.
        for m in [7, 8, 9, 10, 11, 32] {
            for n in [16, 32, 48, 50, 80] {
                for k in [37, 600] {
                    check(m, k, n, false, 1);
                    check(m, k, n, true, 1);
                }
            }
        }
        check(35, 700, 50, false, 2);
        check(35, 700, 50, true, 2);
    }

    #[test]
    fn panel_groups_and_partial_columns_match_float64() {
        // Column counts that fill 1..4 panels of a group exactly, leave a
        // partial last panel, or a group of fewer panels (the AVX-512
        // kernels' masked stores), with every count of leftover rows.
        for n in [1, 15, 16, 31, 47, 63, 64, 65, 80, 100, 129] {
            for m in [1, 5, 6, 13] {
                check(m, 70, n, false, 1);
                check(m, 530, n, true, 1);
            }
        }
    }

    #[test]
    fn thread_counts_change_no_bit() {
        // Column splits of 9 and 64 panels that would leave a one-panel
        // group in one thread count and not in another; narrow products
        // (10 columns) with A's rows and A's columns contiguous.
        for &(m, k, n, t) in &[
            (32, 256, 1024, false),
            (257, 300, 130, false),
            (96, 520, 97, false),
            (200, 784, 10, false),
            (784, 200, 10, true),
        ] {
            for isa in isas() {
                let run = |threads| product((m, k, n), t, threads, isa);
                let one = run(1);
                for threads in [2, 3] {
                    let c = run(threads);
                    assert!(
                        one.iter().zip(&c).all(|(x, y)| x.to_bits() == y.to_bits()),
                        "{isa:?} {m}x{k}x{n}: {threads} threads changed bits"
                    );
                }
            }
        }
    }

    #[test]
    fn narrow_products_match_float64() {
        // Every column count of the narrow kernels (and one past), A's
        // columns adjacent (transposed) and A's rows adjacent, partial row
        // tiles and depths that are not a multiple of 16; on 1 and 3 threads.
        for n in 1..=13 {
            for &(m, k) in &[(16, 64), (37, 200), (200, 79), (9, 130)] {
                check(m, k, n, false, 1);
                check(m, k, n, true, 1);
            }
        }
        check(784, 200, 10, true, 3);
        check(200, 784, 10, false, 3);
    }

    #[test]
    fn threaded_products_match_float64() {
        for &(m, k, n) in &[(32, 256, 1024), (200, 784, 10), (130, 520, 70)] {
            check(m, k, n, false, 2);
            check(m, k, n, true, 3);
        }
    }

    #[test]
    fn the_portable_kernel_matches_the_dispatched_one() {
        let (k, a, b) = (37, values(MR * 37, 3), values(37 * NR, 5));
        let (mut c1, mut c2) = (vec![0f32; MR * NR], vec![0f32; MR * NR]);
        let ap: Vec<f32> = (0..k * MR).map(|q| a[(q % MR) * k + q / MR]).collect();
        let packed = TileRows {
            ptr: ap.as_ptr(),
            rows: std::array::from_fn(|r| r as isize),
            step: MR as isize,
        };
        let in_place = TileRows {
            ptr: a.as_ptr(),
            rows: std::array::from_fn(|r| (r * k) as isize),
            step: 1,
        };
        let (p1, p2) = (c1.as_mut_ptr(), c2.as_mut_ptr());
        // SAFETY: full tiles.
        unsafe {
            let tile = |a, c| Tile {
                kc: k,
                a,
                bp: b.as_ptr(),
                c,
                ldc: NR,
                rows: MR,
                cols: NR,
                store: true,
            };
            portable_kernel(&tile(packed, p1));
            micro_kernel(isa())(&tile(in_place, p2));
        }
        for (x, y) in c1.iter().zip(&c2) {
            assert!((x - y).abs() <= 1e-5 * (1.0 + x.abs()));
        }
    }
}
