//! Result export: wrap the kernel's result descriptors into library-owned
//! `DLTensor`s, and release them.
//!
//! The kernel returns fresh identity-layout buffers from [`crate::alloc`], which the
//! tensors adopt without a copy. Defensively, a result that does not own its
//! buffer is copied into a fresh one: a buffer that is a parameter's data (a
//! kernel that returns its input), a constant global (MLIR marks those with
//! the `allocated` pointer `0xdeadbeef`), a buffer already adopted by an
//! earlier result, or a non-compact view.

use crate::alloc::{allocate, release};
use crate::dlpack::{DLDataType, DLDevice, DLTensor};
use crate::error::{fail, take_pending, Status};
use crate::import::{descriptor_words, is_compact};
use crate::spec::{slice, FuncSpec};
use std::ffi::c_void;

/// The `allocated` pointer MLIR gives views of constant globals.
const MLIR_GLOBAL_SENTINEL: i64 = 0xdead_beef;
/// Marks a live tensor made by [`agc_rt_export_results`].
const MAGIC: u64 = 0x6167_635f_7465_6e73;

/// A tensor handed to the caller, in one block of the runtime's allocator:
/// this header (the `DLTensor` first, so that the pointer the caller holds
/// is a pointer to it), then the shape and the strides, `rank` words each.
#[repr(C)]
struct Owned {
    tensor: DLTensor,
    magic: u64,
    allocated: *mut c_void,
}

/// One result descriptor, read from the kernel's return buffer.
pub(crate) struct View<'a> {
    /// The buffer's base as allocated (what is freed).
    pub allocated: i64,
    /// The aligned base the offset counts from.
    pub aligned: i64,
    /// Offset of the first element from `aligned`, in elements.
    pub offset: i64,
    /// Sizes.
    pub sizes: &'a [i64],
    /// Strides in elements.
    pub strides: &'a [i64],
}

impl View<'_> {
    /// The address of the first element, for elements of `elem` bytes.
    pub fn first(&self, elem: usize) -> *mut u8 {
        (self.aligned as *mut u8).wrapping_add((self.offset as usize).wrapping_mul(elem))
    }
}

/// The result descriptors in `ret`, in order.
///
/// # Safety
/// `ret` holds every result's descriptor (see [`agc_rt_export_results`]).
pub(crate) unsafe fn views<'a>(
    spec: &'a FuncSpec,
    ret: *const i64,
) -> impl Iterator<Item = View<'a>> {
    spec.results().iter().scan(0usize, move |off, r| {
        let rank = r.rank();
        // SAFETY: `ret` holds every result's descriptor (caller contract).
        let d = unsafe { std::slice::from_raw_parts(ret.add(*off), descriptor_words(rank)) };
        *off += descriptor_words(rank);
        Some(View {
            allocated: d[0],
            aligned: d[1],
            offset: d[2],
            sizes: &d[3..3 + rank],
            strides: &d[3 + rank..],
        })
    })
}

/// Whether result `k` (whose buffer is `allocated`) owns its buffer: the
/// kernel allocated it, it is no parameter's data and no earlier result's.
///
/// # Safety
/// As [`agc_rt_export_results`].
pub(crate) unsafe fn owns(
    spec: &FuncSpec,
    ret: *const i64,
    descs: *const i64,
    k: usize,
    allocated: i64,
) -> bool {
    // SAFETY: `descs` holds every parameter's and variable's descriptor (caller contract).
    let is_param = unsafe { spec.param_buffers(descs) }.any(|a| a == allocated);
    allocated != 0
        && allocated != MLIR_GLOBAL_SENTINEL
        && !is_param
        // SAFETY: as above.
        && !unsafe { views(spec, ret) }.take(k).any(|w| w.allocated == allocated)
}

/// Finishes a call: checks for a status a kernel raised, then stores one new
/// tensor per result in `*outs[k]`. On failure every result buffer is freed,
/// every `*outs[k]` stays NULL and the status is returned.
///
/// Allocation-free apart from the result tensors themselves (one block each
/// from the runtime's allocator): a call's fixed cost is part of every
/// small model's latency.
///
/// # Safety
/// `spec` is the signature passed to `agc_rt_import_args`, `ret` the
/// kernel's (zero-initialised, then filled) result descriptors one after the
/// other, `descs` the parameters' descriptors, `outs` the checked slots.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_export_results(
    spec: *const FuncSpec,
    ret: *const i64,
    descs: *const i64,
    outs: *const *mut *mut DLTensor,
) -> i32 {
    // SAFETY: the generated code passes its constant signature.
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return fail(Status::Internal, "agc: missing signature");
    };
    // SAFETY: `outs` holds `nresults` slots, checked non-NULL at import.
    let out_slots = unsafe { slice(outs, spec.nresults) };
    let name = spec.name();
    let mut status = take_pending();
    if status != 0 {
        crate::error::prefix_message(&name.to_string());
    }
    // Results made (in `*out_slots[..made]`), and whether each adopted its buffer.
    let mut made = 0usize;
    let adopts = |k: usize, v: &View| {
        // SAFETY: as this function's.
        let owned = unsafe { owns(spec, ret, descs, k, v.allocated) };
        owned && is_compact(v.sizes, v.strides)
    };
    if status == 0 {
        // SAFETY: as this function's.
        for (k, v) in unsafe { views(spec, ret) }.enumerate() {
            let dtype = spec.results()[k].dtype();
            match make_tensor(&v, dtype, adopts(k, &v)) {
                Ok(t) => {
                    // SAFETY: slots are valid, checked at import.
                    unsafe { *out_slots[k] = t };
                    made += 1;
                }
                Err(msg) => {
                    status = fail(Status::OutOfMemory, format!("{name}: result {k}: {msg}"));
                    break;
                }
            }
        }
    }
    // SAFETY: as this function's.
    for (k, v) in unsafe { views(spec, ret) }.enumerate() {
        // SAFETY: as this function's.
        let owned = unsafe { owns(spec, ret, descs, k, v.allocated) };
        let adopted = k < made && owned && is_compact(v.sizes, v.strides);
        if owned && !adopted {
            // SAFETY: a buffer the kernel allocated, owned by nobody else.
            unsafe { release(v.allocated as *mut c_void) };
        }
    }
    crate::device::release_copies();
    if status != 0 {
        for &slot in &out_slots[..made] {
            // SAFETY: made by make_tensor above; the slot is valid.
            unsafe {
                agc_rt_release(*slot);
                *slot = std::ptr::null_mut();
            }
        }
        return status;
    }
    Status::Ok as i32
}

/// A new tensor for one result: adopting its buffer, or copying it.
fn make_tensor(v: &View, dtype: DLDataType, adopt: bool) -> Result<*mut DLTensor, String> {
    let elem = usize::from(dtype.bits / 8).max(1);
    let rank = v.sizes.len();
    if v.sizes.iter().any(|&s| s < 0) {
        return Err(format!("negative size in {:?}", v.sizes));
    }
    let numel = v
        .sizes
        .iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s as usize));
    let bytes = numel
        .and_then(|n| n.checked_mul(elem))
        .ok_or("size overflow")?;
    let src = v.first(elem);
    let (data, allocated) = if adopt {
        (src as *mut c_void, v.allocated as *mut c_void)
    } else {
        let dst = allocate(bytes.max(1)) as *mut u8;
        if dst.is_null() {
            return Err(format!("out of memory allocating {bytes} bytes"));
        }
        if bytes > 0 {
            // SAFETY: `src` is a valid strided view of `numel` elements, `dst` holds `bytes`.
            unsafe { copy_strided(src, v.sizes, v.strides, elem, dst) };
        }
        (dst as *mut c_void, dst as *mut c_void)
    };
    let block = std::mem::size_of::<Owned>() + 2 * rank * std::mem::size_of::<i64>();
    let owned = allocate(block) as *mut Owned;
    if owned.is_null() {
        if !adopt {
            // SAFETY: the copy allocated just above.
            unsafe { release(allocated) };
        }
        return Err(format!("out of memory allocating {block} bytes"));
    }
    // SAFETY: `owned` is a fresh block of `block` bytes, aligned for `Owned`
    // (the allocator aligns to 16), with the dims right after the header.
    unsafe {
        let dims = owned.add(1) as *mut i64;
        let mut stride = 1i64;
        for d in (0..rank).rev() {
            *dims.add(d) = v.sizes[d];
            *dims.add(rank + d) = stride;
            stride = stride.wrapping_mul(v.sizes[d]);
        }
        let (shape, strides) = if rank > 0 {
            (dims, dims.add(rank))
        } else {
            (std::ptr::null_mut(), std::ptr::null_mut())
        };
        owned.write(Owned {
            tensor: DLTensor {
                data,
                device: DLDevice {
                    device_type: crate::device::device_type(),
                    device_id: 0,
                },
                ndim: rank as i32,
                dtype,
                shape,
                strides,
                byte_offset: 0,
            },
            magic: MAGIC,
            allocated,
        });
    }
    Ok(owned as *mut DLTensor)
}

/// Copies a strided view (strides in elements) into a compact buffer and
/// returns the end of what it wrote. Allocation-free: it recurses over the
/// dims (a result's rank is small), copying rows of unit stride at once.
///
/// # Safety
/// `src` addresses every element of the view, `dst` holds all of them.
pub(crate) unsafe fn copy_strided(
    src: *const u8,
    sizes: &[i64],
    strides: &[i64],
    elem: usize,
    dst: *mut u8,
) -> *mut u8 {
    let (Some((&n, inner_sizes)), Some((&stride, inner_strides))) =
        (sizes.split_first(), strides.split_first())
    else {
        // SAFETY: one element, in bounds of both (caller contract).
        unsafe { std::ptr::copy_nonoverlapping(src, dst, elem) };
        return dst.wrapping_add(elem);
    };
    let n = usize::try_from(n).unwrap_or(0);
    if inner_sizes.is_empty() && stride == 1 {
        // SAFETY: a row of `n` consecutive elements (caller contract).
        unsafe { std::ptr::copy_nonoverlapping(src, dst, n * elem) };
        return dst.wrapping_add(n * elem);
    }
    let step = (stride as isize).wrapping_mul(elem as isize);
    let mut out = dst;
    for i in 0..n {
        // SAFETY: row `i` of the view, and the rest of `dst` (caller contract).
        out = unsafe {
            copy_strided(
                src.wrapping_offset((i as isize).wrapping_mul(step)),
                inner_sizes,
                inner_strides,
                elem,
                out,
            )
        };
    }
    out
}

/// Releases a tensor returned by an exported function: frees its data, shape
/// and the tensor itself. NULL is ignored; a pointer this library did not
/// return (or returned and was already released) is reported through the
/// last error and otherwise ignored, when that can be detected.
///
/// # Safety
/// `t` is NULL or a tensor returned by an exported function of an agc library.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_release(t: *mut DLTensor) {
    if t.is_null() {
        return;
    }
    let owned = t as *mut Owned;
    // SAFETY: `t` came from make_tensor (caller contract); the magic check
    // catches double releases while the memory is still mapped.
    unsafe {
        if (*owned).magic != MAGIC {
            fail(
                Status::InvalidArgument,
                "release: not a live tensor returned by an agc library",
            );
            return;
        }
        (*owned).magic = 0;
        release((*owned).allocated);
        release(owned as *mut c_void);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tests::make;

    fn call(ret: &[i64], descs: &[i64]) -> (i32, Vec<*mut DLTensor>) {
        let s = make(
            "f",
            &[],
            &[("x", (2, 32), vec![2])],
            &[("out0", (2, 32), vec![-1]), ("out1", (2, 32), vec![-1])],
        );
        let mut outs = [std::ptr::null_mut(); 2];
        let slots = [&mut outs[0] as *mut _, &mut outs[1] as *mut _];
        // SAFETY: buffers sized for the spec.
        let st = unsafe {
            agc_rt_export_results(&*s.spec, ret.as_ptr(), descs.as_ptr(), slots.as_ptr())
        };
        (st, outs.to_vec())
    }

    fn allocated_f32(v: &[f32]) -> i64 {
        // SAFETY: plain allocation of the right size.
        unsafe {
            let p = allocate(4 * v.len()) as *mut f32;
            std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len());
            p as i64
        }
    }

    fn values(t: *mut DLTensor) -> Vec<f32> {
        // SAFETY: a live compact f32 tensor.
        unsafe {
            std::slice::from_raw_parts((*t).data as *const f32, *(*t).shape as usize).to_vec()
        }
    }

    #[test]
    fn adopts_owned_and_copies_aliases() {
        let mut input = [5f32, 6.0];
        let a = allocated_f32(&[1.0, 2.0, 3.0]);
        let inp = input.as_mut_ptr() as i64;
        // out0 adopts `a` reversed (non-compact view: copied, then `a` freed), out1 aliases the input.
        let ret = [a, a + 8, 0, 3, -1, inp, inp, 0, 2, 1];
        let (st, outs) = call(&ret, &[inp, inp, 0, 2, 1]);
        assert_eq!(st, 0);
        assert_eq!(values(outs[0]), vec![3.0, 2.0, 1.0]);
        assert_eq!(values(outs[1]), vec![5.0, 6.0]);
        // SAFETY: live tensors.
        unsafe { outs.iter().for_each(|&t| agc_rt_release(t)) };
    }

    #[test]
    fn duplicate_buffer_is_copied_once_and_pending_status_frees() {
        let a = allocated_f32(&[1.0, 2.0]);
        let ret = [a, a, 0, 2, 1, a, a, 0, 2, 1];
        let (st, outs) = call(&ret, &[0, 0, 0, 2, 1]);
        assert_eq!(st, 0);
        assert_ne!(unsafe { (*outs[0]).data }, unsafe { (*outs[1]).data });
        assert_eq!(values(outs[1]), vec![1.0, 2.0]);
        // SAFETY: live tensors, then a double release that is detected.
        unsafe {
            outs.iter().for_each(|&t| agc_rt_release(t));
            agc_rt_release(std::ptr::null_mut());
        }
        let b = allocated_f32(&[1.0]);
        crate::error::begin_call();
        // SAFETY: literal.
        unsafe { crate::error::agc_rt_raise(3, c"index out of range".as_ptr()) };
        let (st, outs) = call(&[b, b, 0, 1, 1, 0, 0, 0, 0, 0], &[0, 0, 0, 2, 1]);
        assert_eq!(st, 3);
        assert!(outs.iter().all(|t| t.is_null()));
    }
}
