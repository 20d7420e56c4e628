//! MLIR's `memrefCopy`, which `memref.copy` lowers to when a layout is not
//! known to be contiguous: bufferization copies a view (`xs[k]`, a slice of
//! a batch) whose layout became dynamic, for instance by flowing through a
//! loop, into a buffer of its own. MLIR's C runner library defines it; agc's
//! libraries carry this one instead (localised like every runtime symbol).
//!
//! The descriptors are MLIR's ranked memref descriptors: allocated and
//! aligned pointers, offset, `rank` sizes, `rank` strides (in elements), all
//! 64-bit words.

/// MLIR's unranked memref: the rank and a pointer to the ranked descriptor.
#[repr(C)]
pub struct UnrankedMemRef {
    rank: i64,
    descriptor: *const i64,
}

/// The most dims a copy indexes without allocating.
const MAX_RANK: usize = 16;

/// Copies every element of `src` into the same position of `dst` (equal
/// sizes), `elem_size` bytes each.
///
/// # Safety
/// Both describe live buffers of the same sizes, the destination writable
/// and not overlapping the source.
#[no_mangle]
pub unsafe extern "C" fn memrefCopy(
    elem_size: i64,
    src: *const UnrankedMemRef,
    dst: *const UnrankedMemRef,
) {
    // SAFETY: caller contract: valid unranked memrefs of equal rank.
    let (s, d) = unsafe { (&*src, &*dst) };
    let rank = s.rank.max(0) as usize;
    let words = |m: &UnrankedMemRef| {
        // SAFETY: a ranked descriptor holds 3 + 2 * rank words.
        unsafe { std::slice::from_raw_parts(m.descriptor, 3 + 2 * rank) }
    };
    let (sw, dw) = (words(s), words(d));
    let sizes = &sw[3..3 + rank];
    if sizes.iter().any(|&n| n <= 0) {
        return;
    }
    let (s_strides, d_strides) = (&sw[3 + rank..], &dw[3 + rank..]);
    let es = elem_size.max(0) as usize;
    let (s_base, d_base) = (sw[1] as *const u8, dw[1] as *mut u8);
    // Rows along the last dim: one `copy` when both are contiguous there.
    let (inner, outer_rank) = match rank {
        0 => (1, 0),
        r => (sizes[r - 1] as usize, r - 1),
    };
    let contiguous_rows = rank > 0 && s_strides[rank - 1] == 1 && d_strides[rank - 1] == 1;
    let mut index = [0i64; MAX_RANK];
    let mut spill = Vec::new();
    let index: &mut [i64] = if outer_rank <= MAX_RANK {
        &mut index[..outer_rank]
    } else {
        spill.resize(outer_rank, 0);
        &mut spill
    };
    loop {
        let at = |base: i64, strides: &[i64]| {
            base + index.iter().zip(strides).map(|(i, s)| i * s).sum::<i64>()
        };
        let (so, doff) = (at(sw[2], s_strides), at(dw[2], d_strides));
        if contiguous_rows || rank == 0 {
            // SAFETY: the row's elements are inside both buffers.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    s_base.offset(so as isize * es as isize),
                    d_base.offset(doff as isize * es as isize),
                    inner * es,
                )
            };
        } else {
            let (ss, ds) = (s_strides[rank - 1], d_strides[rank - 1]);
            for j in 0..inner as i64 {
                // SAFETY: element j of the row is inside both buffers.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        s_base.offset((so + j * ss) as isize * es as isize),
                        d_base.offset((doff + j * ds) as isize * es as isize),
                        es,
                    )
                };
            }
        }
        // The next row, last outer dim fastest.
        let mut dim = outer_rank;
        loop {
            if dim == 0 {
                return;
            }
            dim -= 1;
            index[dim] += 1;
            if index[dim] < sizes[dim] {
                break;
            }
            index[dim] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor of `data` (f32) with the given offset, sizes and strides.
    fn descriptor(data: &[f32], offset: i64, sizes: &[i64], strides: &[i64]) -> Vec<i64> {
        let p = data.as_ptr() as i64;
        let mut d = vec![p, p, offset];
        d.extend_from_slice(sizes);
        d.extend_from_slice(strides);
        d
    }

    #[test]
    fn strided_views_copy_element_by_element() {
        // A 3x4 matrix; copy its transpose view (4x3, strides 1, 4) at
        // offset 0, and a 2x2 window at offset 5, into compact buffers.
        let src: Vec<f32> = (0..12).map(|x| x as f32).collect();
        for (offset, sizes, strides) in [(0, [4i64, 3], [1i64, 4]), (5, [2, 2], [4, 1])] {
            let n = (sizes[0] * sizes[1]) as usize;
            let dst = vec![f32::NAN; n];
            let sd = descriptor(&src, offset, &sizes, &strides);
            let dd = descriptor(&dst, 0, &sizes, &[sizes[1], 1]);
            let (s, d) = (
                UnrankedMemRef {
                    rank: 2,
                    descriptor: sd.as_ptr(),
                },
                UnrankedMemRef {
                    rank: 2,
                    descriptor: dd.as_ptr(),
                },
            );
            // SAFETY: the descriptors describe the vectors.
            unsafe { memrefCopy(4, &s, &d) };
            for i in 0..sizes[0] {
                for j in 0..sizes[1] {
                    let want = src[(offset + i * strides[0] + j * strides[1]) as usize];
                    assert_eq!(dst[(i * sizes[1] + j) as usize], want);
                }
            }
        }
    }

    #[test]
    fn rank_zero_and_empty_copies() {
        let (src, dst) = (vec![7.5f32, 2.0], vec![0f32]);
        let sd = descriptor(&src, 1, &[], &[]);
        let dd = descriptor(&dst, 0, &[], &[]);
        let (s, d) = (
            UnrankedMemRef {
                rank: 0,
                descriptor: sd.as_ptr(),
            },
            UnrankedMemRef {
                rank: 0,
                descriptor: dd.as_ptr(),
            },
        );
        // SAFETY: one element each.
        unsafe { memrefCopy(4, &s, &d) };
        assert_eq!(dst[0], 2.0);
        let empty = descriptor(&src, 0, &[0, 3], &[3, 1]);
        let e = UnrankedMemRef {
            rank: 2,
            descriptor: empty.as_ptr(),
        };
        // SAFETY: nothing is read or written for zero elements.
        unsafe { memrefCopy(4, &e, &e) };
    }
}
