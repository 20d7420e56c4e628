//! numpy's pairwise summation, for float sums over a row-major tensor's
//! trailing axes: the same additions in the same order as numpy's
//! `@TYPE@_pairwise_sum`, so a sum or a mean agrees with numpy to the bit
//! (a mean of equal values equals the values when numpy's does), with
//! O(log n) rounding error instead of the O(n) of adding in order.
//!
//! numpy: fewer than 8 elements are added in order; up to 128 go to 8
//! accumulators (element `i` to accumulator `i % 8`, over the largest
//! multiple of 8), combined as `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`, then
//! the rest in order; more are split at half rounded down to a multiple of
//! 8 and the two halves' sums added. The reduction adds the result to its
//! identity, `0.0` (so a sum of `-0.0`s is `+0.0`, as in numpy).
//!
//! Kernels call the `extern "C"` entries once per reduction, with the input
//! and the output flattened to rank-1 memrefs (MLIR's expanded calling
//! convention): output element `r` is the sum of input row `r`.

use std::ops::Add;

/// Below this many elements numpy adds in order.
const UNROLL: usize = 8;
/// Up to this many elements numpy sums one block with 8 accumulators.
const BLOCK: usize = 128;

/// numpy's pairwise sum of `a`.
pub fn pairwise_sum<T: Copy + Add<Output = T> + Default>(a: &[T]) -> T {
    let n = a.len();
    if n < UNROLL {
        return a.iter().fold(T::default(), |s, &x| s + x);
    }
    if n <= BLOCK {
        let mut r = [T::default(); UNROLL];
        r.copy_from_slice(&a[..UNROLL]);
        let whole = n - n % UNROLL;
        for chunk in a[UNROLL..whole].chunks_exact(UNROLL) {
            for (acc, &x) in r.iter_mut().zip(chunk) {
                *acc = *acc + x;
            }
        }
        let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        return a[whole..].iter().fold(res, |s, &x| s + x);
    }
    let half = n / 2;
    let half = half - half % UNROLL;
    pairwise_sum(&a[..half]) + pairwise_sum(&a[half..])
}

/// Row sums below this many elements in all run on the calling thread.
const PARALLEL_MIN_ELEMENTS: usize = 1 << 16;

/// `out[r] = 0 + pairwise_sum(a[r*n .. (r+1)*n])` for every `r` of `out`,
/// on the thread pool when there are many elements; `false` (nothing
/// written) where the rows are not inside `a`.
///
/// # Safety
/// The memrefs (`aligned`, `offset`, `size`, `stride` each) describe live
/// buffers; the output is written by this call alone.
unsafe fn sum_rows<T>(
    input: (*const T, i64, i64, i64),
    n: i64,
    out: (*mut T, i64, i64, i64),
) -> bool
where
    T: Copy + Add<Output = T> + Default + Send + Sync,
{
    let ((a, a_off, a_size, a_stride), (o, o_off, rows, o_stride)) = (input, out);
    let fits = a_stride == 1
        && o_stride == 1
        && !a.is_null()
        && !o.is_null()
        && n >= 0
        && rows >= 0
        && a_off >= 0
        && o_off >= 0
        && rows.checked_mul(n).is_some_and(|len| len <= a_size);
    if !fits {
        return false;
    }
    let (n, rows) = (n as usize, rows as usize);
    // SAFETY: `rows * n` elements from `a_off` are inside the input (checked
    // above), `rows` from `o_off` inside the output (caller contract).
    let (a, out) = unsafe {
        (
            std::slice::from_raw_parts(a.add(a_off as usize), rows * n),
            SharedOut(o.add(o_off as usize)),
        )
    };
    let sum = |r: usize| T::default() + pairwise_sum(&a[r * n..(r + 1) * n]);
    if rows * n < PARALLEL_MIN_ELEMENTS || rows < 2 {
        // Serial, without asking the pool (whose first thread-count query
        // reads the CPU count through std, a race helgrind reports).
        (0..rows).for_each(|r| unsafe { *out.at(r) = sum(r) });
        return true;
    }
    let tasks = rows.min(4 * crate::pool::threads());
    crate::pool::parallel_for(tasks, &|t| {
        for r in t * rows / tasks..(t + 1) * rows / tasks {
            // SAFETY: each row's output is written by one task only.
            unsafe { *out.at(r) = sum(r) };
        }
    });
    true
}

/// The output rows of [`sum_rows`], shared by its tasks.
struct SharedOut<T>(*mut T);

impl<T> SharedOut<T> {
    /// Element `r` (a method, so that closures capture the whole wrapper).
    fn at(&self, r: usize) -> *mut T {
        self.0.wrapping_add(r)
    }
}

// SAFETY: tasks write disjoint elements.
unsafe impl<T: Send> Sync for SharedOut<T> {}

/// The `extern "C"` entry `$name` for `$t`: numpy's sums (in `$t`, as
/// numpy) of the consecutive rows of `n` elements of a rank-1 memref into
/// the rank-1 memref `out` (one sum per element; both in MLIR's expanded
/// form: allocated, aligned, offset, size, stride); NaNs where the rows are
/// not inside the input (never, for the kernels' calls).
macro_rules! pairwise_rows_entry {
    ($name:ident, $t:ty) => {
        #[doc = concat!("numpy's `", stringify!($t), "` row sums (see [`pairwise_rows_entry`]).")]
        ///
        /// # Safety
        /// The memrefs describe live buffers of this element type.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name(
            _allocated: *const $t,
            aligned: *const $t,
            offset: i64,
            size: i64,
            stride: i64,
            n: i64,
            _out_allocated: *mut $t,
            out: *mut $t,
            out_offset: i64,
            rows: i64,
            out_stride: i64,
        ) {
            // SAFETY: caller contract.
            unsafe {
                let input = (aligned, offset, size, stride);
                if !sum_rows(input, n, (out, out_offset, rows, out_stride)) {
                    fill_nan(out, out_offset, rows, out_stride, <$t>::NAN);
                }
            }
        }
    };
}

pairwise_rows_entry!(agc_rt_pairwise_rows_f64, f64);
pairwise_rows_entry!(agc_rt_pairwise_rows_f32, f32);

/// Writes `nan` to every element of a rank-1 memref that is a valid one.
///
/// # Safety
/// The memref describes a live buffer.
unsafe fn fill_nan<T: Copy>(out: *mut T, offset: i64, size: i64, stride: i64, nan: T) {
    if out.is_null() || offset < 0 || size < 0 || stride < 0 {
        return;
    }
    for r in 0..size {
        // SAFETY: element r of the memref (caller contract).
        unsafe { *out.offset((offset + r * stride) as isize) = nan };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adding in order, the oracle for short rows.
    fn in_order(a: &[f64]) -> f64 {
        a.iter().fold(0.0, |s, &x| s + x)
    }

    #[test]
    fn short_rows_add_in_order() {
        let a: Vec<f64> = (0..7).map(|i| 0.1 * i as f64 + 1e-3).collect();
        for n in 0..7 {
            assert_eq!(pairwise_sum(&a[..n]).to_bits(), in_order(&a[..n]).to_bits());
        }
    }

    #[test]
    fn equal_values_sum_exactly_where_in_order_drifts() {
        // 0.1 added 1000 times in order drifts; the pairwise tree stays
        // within an ulp or two of 100.
        let a = vec![0.1f64; 1000];
        assert!((pairwise_sum(&a) - 100.0).abs() <= 2.0 * f64::EPSILON * 100.0);
        assert!((in_order(&a) - 100.0).abs() > 1e-12);
    }

    #[test]
    fn rows_out_of_range_are_nan_not_reads() {
        let a = [1.0f64; 4];
        let mut out = [0.0f64; 3];
        let (p, o) = (a.as_ptr(), out.as_mut_ptr());
        unsafe {
            agc_rt_pairwise_rows_f64(p, p, 0, 4, 1, 2, o, o, 0, 3, 1);
            assert!(out.iter().all(|x| x.is_nan()), "3 rows of 2 in 4 elements");
            agc_rt_pairwise_rows_f64(p, p, 0, 4, 2, 1, o, o, 0, 2, 1);
            assert!(out[..2].iter().all(|x| x.is_nan()), "a strided input");
            agc_rt_pairwise_rows_f64(p, p, 1, 4, 1, 1, o, o, 0, 3, 1);
            assert_eq!(out, [1.0; 3]);
        }
    }

    #[test]
    fn each_row_sums_pairwise_on_any_thread_count() {
        // Row lengths on both sides of 8 and of the 128-element block, enough
        // elements to go parallel; each row's sum is its own pairwise sum.
        for &(rows, n) in &[(200, 10), (3, 7), (600, 130), (1, 70000)] {
            let a: Vec<f32> = (0..rows * n)
                .map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.3)
                .collect();
            for threads in [1, 2] {
                crate::pool::agc_rt_set_num_threads(threads);
                let mut out = vec![0f32; rows];
                let (p, o) = (a.as_ptr(), out.as_mut_ptr());
                let (len, r) = (a.len() as i64, rows as i64);
                unsafe { agc_rt_pairwise_rows_f32(p, p, 0, len, 1, n as i64, o, o, 0, r, 1) };
                for (row, &got) in a.chunks_exact(n).zip(&out) {
                    assert_eq!(got.to_bits(), (0.0 + pairwise_sum(row)).to_bits());
                }
            }
        }
    }
}
