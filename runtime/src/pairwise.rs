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
//! Kernels call the `extern "C"` entries once per output element with the
//! input as a rank-1 memref (MLIR's expanded calling convention).

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

/// The `n` elements from `start` of a rank-1 memref given in MLIR's
/// expanded form, or `None` where the range is not inside it.
///
/// # Safety
/// `aligned`, `offset`, `size` and `stride` describe a live buffer (the
/// kernel passes its own memref); `stride` is 1 (an identity layout).
unsafe fn row<'a, T>(
    aligned: *const T,
    offset: i64,
    size: i64,
    stride: i64,
    start: i64,
    n: i64,
) -> Option<&'a [T]> {
    let in_range = stride == 1 && start >= 0 && n >= 0 && start.checked_add(n)? <= size;
    if !in_range || aligned.is_null() {
        return None;
    }
    let first = usize::try_from(offset.checked_add(start)?).ok()?;
    Some(std::slice::from_raw_parts(aligned.add(first), n as usize))
}

/// numpy's float64 sum of elements `start..start + n` of a rank-1 memref
/// (`allocated`, `aligned`, `offset`, `size`, `stride`); NaN where the range
/// is not inside it (never, for the kernels' calls).
///
/// # Safety
/// The memref describes a live float64 buffer.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_pairwise_sum_f64(
    _allocated: *const f64,
    aligned: *const f64,
    offset: i64,
    size: i64,
    stride: i64,
    start: i64,
    n: i64,
) -> f64 {
    match row(aligned, offset, size, stride, start, n) {
        Some(a) => 0.0 + pairwise_sum(a),
        None => f64::NAN,
    }
}

/// numpy's float32 sum (in float32, as numpy) of elements `start..start +
/// n` of a rank-1 memref; see [`agc_rt_pairwise_sum_f64`].
///
/// # Safety
/// The memref describes a live float32 buffer.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_pairwise_sum_f32(
    _allocated: *const f32,
    aligned: *const f32,
    offset: i64,
    size: i64,
    stride: i64,
    start: i64,
    n: i64,
) -> f32 {
    match row(aligned, offset, size, stride, start, n) {
        Some(a) => 0.0 + pairwise_sum(a),
        None => f32::NAN,
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
    fn out_of_range_rows_are_nan_not_reads() {
        let a = [1.0f64; 4];
        let p = a.as_ptr();
        unsafe {
            assert!(agc_rt_pairwise_sum_f64(p, p, 0, 4, 1, 2, 3).is_nan());
            assert!(agc_rt_pairwise_sum_f64(p, p, 0, 4, 1, -1, 1).is_nan());
            assert!(agc_rt_pairwise_sum_f64(p, p, 0, 4, 2, 0, 2).is_nan());
            assert_eq!(agc_rt_pairwise_sum_f64(p, p, 0, 4, 1, 1, 3), 3.0);
        }
    }
}
