//! Calls that write into the caller's tensors: `<NAME>_f_into(args...,
//! DLTensor* out0, ...)`.
//!
//! The entry point checks the arguments and the caller's result tensors
//! ([`agc_rt_import_into`]: every dim that the argument shapes determine is
//! checked before the kernel runs), runs the kernel as `<NAME>_f` does, and
//! then [`agc_rt_finish_into`] checks the results' actual shapes against the
//! caller's tensors, copies the results into them and gives the kernel's
//! buffers back to the runtime's allocator. That allocator keeps freed blocks
//! per thread ([`crate::alloc`]), so in the steady state a call allocates
//! nothing: the next call's buffers are this call's.
//!
//! Results are written only after the kernel has returned, and only when
//! every check passed: a failed call leaves the caller's tensors untouched.
//! A result tensor may therefore share memory with an argument (the
//! computation has read the arguments by then; a result that is itself a
//! view of an argument is first copied aside when it overlaps any result
//! tensor). Result tensors must not overlap each other.

use crate::alloc::{allocate, release};
use crate::dlpack::{dtype_string, DLTensor};
use crate::error::{fail, prefix_message, take_pending, Status};
use crate::export::{copy_strided, owns, views, View};
use crate::import::{
    check_layout, check_shape, descriptor_words, first_element, import_params, is_compact,
    shape_dtype, syms_of, Named, Reads,
};
use crate::spec::{resolve_dim, slice, tuple_string, FuncSpec, TensorSpec};
use std::ffi::c_void;

/// Starts a call of `<NAME>_f_into`: clears this thread's error, checks
/// every argument (filling the parameters' descriptors into `descs`, binding
/// the symbolic dims into `syms`, as [`crate::import::agc_rt_import_args`]
/// does), then every result tensor `outs[k]`: non-NULL, on the CPU, of the
/// result's dtype and rank, C-contiguous, data non-NULL unless empty, and
/// each dim that is static or a parameter's symbolic dim equal to its size.
/// Returns 0, or a status with the last error set; writes no tensor.
///
/// # Safety
/// `spec` is a signature emitted by agc; `args` holds `nparams` pointers and
/// `outs` `nresults` pointers (each may be NULL: that is reported); `descs`
/// and `syms` are large enough for the signature.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_import_into(
    spec: *const FuncSpec,
    args: *const *const DLTensor,
    outs: *const *mut DLTensor,
    descs: *mut i64,
    syms: *mut i64,
) -> i32 {
    // SAFETY: the generated code passes its constant signature.
    let spec = match unsafe { crate::spec::begin_run(spec) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: `syms` holds `nsyms` words (caller contract).
    let syms = unsafe { syms_of(spec, syms) };
    // SAFETY: `args` and `descs` are sized for the signature (caller contract).
    let status = unsafe { import_params(spec, args, syms, Some(descs)) };
    if status != 0 {
        return status;
    }
    // SAFETY: `outs` holds `nresults` pointers (caller contract).
    let outs = unsafe { slice(outs, spec.nresults) };
    for (r, &out) in spec.results().iter().zip(outs) {
        // SAFETY: each result tensor is NULL or readable (caller contract).
        let out = unsafe { out.as_ref() };
        if let Err(msg) = check_out(r, out, syms) {
            crate::device::release_copies();
            return fail(Status::InvalidArgument, format!("{}: {msg}", spec.name()));
        }
    }
    Status::Ok as i32
}

/// Checks the caller's tensor for result `r` against everything the
/// argument shapes (`syms`) determine; the error omits the function name.
fn check_out(r: &TensorSpec, out: Option<&DLTensor>, syms: &[i64]) -> Result<(), String> {
    let what = Named("result tensor", r.name());
    let out = out.ok_or_else(|| format!("{what} is NULL"))?;
    let dims = r.dims();
    let want = |d: usize| dims.get(d).and_then(|&d| resolve_dim(d, syms));
    let expected = || {
        format!(
            "{what} expects shape {} {}",
            expected_shape(r, syms),
            dtype_string(r.dtype())
        )
    };
    let (shape, numel) = check_shape(
        out,
        Reads::All,
        &what,
        &expected,
        (r.dtype(), dims.len()),
        &want,
    )?;
    check_layout(out, shape, numel, &what)
}

/// Result `r`'s shape for messages: sizes where the arguments determine
/// them, `?` where only the computation does.
fn expected_shape(r: &TensorSpec, syms: &[i64]) -> String {
    let dims: Vec<String> = r
        .dims()
        .iter()
        .map(|&d| resolve_dim(d, syms).map_or_else(|| "?".to_string(), |n| n.to_string()))
        .collect();
    tuple_string(&dims)
}

/// Finishes a call of `<NAME>_f_into`: checks for a status a kernel raised,
/// checks that each result's shape equals its tensor's (a dim only the
/// computation determines is checked here), then copies every result into
/// its tensor (at `data + byte_offset`) and gives the kernel's buffers back
/// to the allocator. On failure no tensor is written, every kernel buffer is
/// freed and the status returned.
///
/// Allocation-free, except for a result that is a view of an argument
/// overlapping a result tensor: it is first copied into a buffer of the
/// runtime's allocator (which replaces it in `ret`), so that writing one
/// result cannot change another.
///
/// # Safety
/// `spec` is the signature passed to [`agc_rt_import_into`], `ret` the
/// kernel's (zero-initialised, then filled) result descriptors one after the
/// other, `descs` the parameters' descriptors, `outs` the tensors checked by
/// [`agc_rt_import_into`].
#[no_mangle]
pub unsafe extern "C" fn agc_rt_finish_into(
    spec: *const FuncSpec,
    ret: *mut i64,
    descs: *const i64,
    outs: *const *mut DLTensor,
) -> i32 {
    // SAFETY: the generated code passes its constant signature.
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return fail(Status::Internal, "agc: missing signature");
    };
    // SAFETY: `outs` holds `nresults` tensors checked at import.
    let outs = unsafe { slice(outs, spec.nresults) };
    let mut status = take_pending();
    if status != 0 {
        prefix_message(&spec.name().to_string());
    } else {
        // SAFETY: as this function's.
        status = unsafe { check_result_shapes(spec, ret, outs) };
    }
    if status == 0 {
        // SAFETY: as this function's.
        status = unsafe { set_aside_overlapping(spec, ret, descs, outs) };
    }
    if status == 0 {
        // SAFETY: as this function's; shapes checked, no source overlaps a
        // tensor written before it is read.
        status = unsafe { copy_results(spec, ret, outs) };
    }
    // SAFETY: as this function's.
    for (k, v) in unsafe { views(spec, ret) }.enumerate() {
        // SAFETY: as this function's.
        if unsafe { owns(spec, ret, descs, k, v.allocated) } {
            // SAFETY: a buffer the kernel (or the set-aside) allocated, owned by nobody else.
            unsafe { release(v.allocated as *mut c_void) };
        }
    }
    crate::device::release_copies();
    status
}

/// Bytes per element of result `k`.
fn elem_bytes(spec: &FuncSpec, k: usize) -> usize {
    spec.results()
        .get(k)
        .map_or(1, |r| usize::from(r.dtype().bits / 8).max(1))
}

/// The shape of the caller's tensor `out` (checked at import: its rank is
/// the result's, with a shape array).
///
/// # Safety
/// `out` is a tensor checked by [`agc_rt_import_into`].
unsafe fn out_shape<'a>(out: *const DLTensor) -> &'a [i64] {
    // SAFETY: checked at import (caller contract).
    unsafe { slice((*out).shape, i64::from((*out).ndim)) }
}

/// Checks that every result's shape is its tensor's; 0 or a status with the
/// last error set.
///
/// # Safety
/// As [`agc_rt_finish_into`].
unsafe fn check_result_shapes(spec: &FuncSpec, ret: *const i64, outs: &[*mut DLTensor]) -> i32 {
    // SAFETY: as this function's.
    for (k, (v, &out)) in unsafe { views(spec, ret) }.zip(outs).enumerate() {
        // SAFETY: as this function's.
        let shape = unsafe { out_shape(out) };
        if v.sizes != shape {
            let r = &spec.results()[k];
            return fail(
                Status::InvalidArgument,
                format!(
                    "{}: result '{}' has shape {}, but the tensor passed for it has shape {}",
                    spec.name(),
                    r.name(),
                    shape_dtype(v.sizes, r.dtype()),
                    // SAFETY: as above.
                    shape_dtype(shape, unsafe { (*out).dtype })
                ),
            );
        }
    }
    Status::Ok as i32
}

/// The bytes `[lo, hi)` a view of `elem`-byte elements spans (empty: `None`).
fn span_of(v: &View, elem: usize) -> Option<(usize, usize)> {
    if v.sizes.iter().any(|&n| n <= 0) {
        return None;
    }
    let (mut lo, mut hi) = (0i64, 0i64);
    for (&n, &s) in v.sizes.iter().zip(v.strides) {
        let reach = s.saturating_mul(n - 1);
        if reach < 0 {
            lo = lo.saturating_add(reach);
        } else {
            hi = hi.saturating_add(reach);
        }
    }
    let first = v.first(elem) as i64;
    let e = elem as i64;
    Some((
        first.saturating_add(lo.saturating_mul(e)) as usize,
        first.saturating_add(hi.saturating_add(1).saturating_mul(e)) as usize,
    ))
}

/// The bytes a caller's tensor of `elem`-byte elements spans (empty: `None`).
///
/// # Safety
/// `out` is a tensor checked by [`agc_rt_import_into`].
unsafe fn span_of_out(out: *const DLTensor, elem: usize) -> Option<(usize, usize)> {
    // SAFETY: as this function's.
    let shape = unsafe { out_shape(out) };
    let numel: i64 = shape.iter().product();
    // SAFETY: as above.
    let first = first_element(unsafe { &*out }) as usize;
    (numel > 0).then(|| (first, first.saturating_add(numel as usize * elem)))
}

/// Copies aside each result the kernel does not own (a view of an argument
/// or of a constant) whose bytes overlap a result tensor, replacing its
/// descriptor in `ret` by a compact one of a fresh buffer (which the caller
/// then frees with the kernel's). 0, or [`Status::OutOfMemory`] with the
/// last error set.
///
/// # Safety
/// As [`agc_rt_finish_into`], shapes checked.
unsafe fn set_aside_overlapping(
    spec: &FuncSpec,
    ret: *mut i64,
    descs: *const i64,
    outs: &[*mut DLTensor],
) -> i32 {
    let mut off = 0usize;
    for (k, r) in spec.results().iter().enumerate() {
        let rank = r.rank();
        let words = descriptor_words(rank);
        let elem = elem_bytes(spec, k);
        let overlaps = |span: (usize, usize)| {
            outs.iter().enumerate().any(|(j, &out)| {
                // SAFETY: as this function's.
                let o = unsafe { span_of_out(out, elem_bytes(spec, j)) };
                o.is_some_and(|(lo, hi)| lo < span.1 && span.0 < hi)
            })
        };
        // The copy, made while the view (which borrows `ret`) is alive.
        let copy = {
            // SAFETY: descriptor `k` of `ret` (caller contract).
            let Some(v) = (unsafe { views(spec, ret) }).nth(k) else {
                break;
            };
            // SAFETY: as this function's.
            let owned = unsafe { owns(spec, ret, descs, k, v.allocated) };
            if owned || !span_of(&v, elem).is_some_and(overlaps) {
                None
            } else {
                let numel: i64 = v.sizes.iter().product();
                let bytes = numel as usize * elem;
                let buf = allocate(bytes) as *mut u8;
                if buf.is_null() {
                    return fail(
                        Status::OutOfMemory,
                        format!("{}: out of memory allocating {bytes} bytes", spec.name()),
                    );
                }
                // SAFETY: the view's elements are readable; `buf` holds them all.
                unsafe { copy_strided(v.first(elem), v.sizes, v.strides, elem, buf) };
                Some(buf)
            }
        };
        if let Some(buf) = copy {
            // SAFETY: descriptor `k` of `ret` (`words` words, owned by the
            // entry point, no view of it alive): a compact view of `buf`.
            unsafe {
                let d = ret.add(off);
                *d = buf as i64;
                *d.add(1) = buf as i64;
                *d.add(2) = 0;
                let mut stride = 1i64;
                for i in (0..rank).rev() {
                    *d.add(3 + rank + i) = stride;
                    stride = stride.wrapping_mul(*d.add(3 + i));
                }
            }
        }
        off += words;
    }
    Status::Ok as i32
}

/// Copies every result into its tensor; 0 or a status with the last error
/// set (a device copy that failed).
///
/// # Safety
/// As [`agc_rt_finish_into`], shapes checked and overlapping views set aside.
unsafe fn copy_results(spec: &FuncSpec, ret: *const i64, outs: &[*mut DLTensor]) -> i32 {
    // SAFETY: as this function's.
    for (k, (v, &out)) in unsafe { views(spec, ret) }.zip(outs).enumerate() {
        let elem = elem_bytes(spec, k);
        let numel: i64 = v.sizes.iter().product();
        if numel <= 0 {
            continue;
        }
        // SAFETY: a checked tensor of the result's shape.
        let dst = first_element(unsafe { &*out });
        if crate::device::kind() != crate::device::Kind::Cpu {
            // SAFETY: as this function's.
            if let Err(e) = unsafe { copy_to_device(&v, elem, numel as usize, dst) } {
                return fail(Status::DeviceError, format!("{}: {e}", spec.name()));
            }
        } else if is_compact(v.sizes, v.strides) {
            // SAFETY: `numel` elements each; memmove in case a view of an
            // argument is exactly its result tensor.
            unsafe { std::ptr::copy(v.first(elem), dst, numel as usize * elem) };
        } else {
            // SAFETY: the view's elements; the tensor holds as many, disjoint.
            unsafe { copy_strided(v.first(elem), v.sizes, v.strides, elem, dst) };
        }
    }
    Status::Ok as i32
}

/// Copies the result view `v` (library memory) into the caller's device
/// tensor at `dst`: directly when compact, else through a compact buffer.
///
/// # Safety
/// `v` is a live view of `numel` elements of `elem` bytes; `dst` holds as many.
unsafe fn copy_to_device(
    v: &crate::export::View,
    elem: usize,
    numel: usize,
    dst: *mut u8,
) -> Result<(), String> {
    let bytes = numel * elem;
    if is_compact(v.sizes, v.strides) {
        // SAFETY: caller contract.
        return unsafe { crate::device::copy(dst, v.first(elem), bytes) };
    }
    let staging = crate::alloc::allocate(bytes);
    if staging.is_null() {
        return Err(format!(
            "out of memory: cannot stage a result of {bytes} bytes"
        ));
    }
    // SAFETY: the view's elements into a fresh block of as many.
    unsafe { copy_strided(v.first(elem), v.sizes, v.strides, elem, staging as *mut u8) };
    // SAFETY: the staged bytes into the caller's tensor.
    let copied = unsafe { crate::device::copy(dst, staging as *const u8, bytes) };
    // SAFETY: the block just allocated.
    unsafe { release(staging) };
    copied
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dlpack::{DLDataType, DLDevice};
    use crate::spec::tests::{make, OwnedSpec};
    use crate::spec::DIM_UNKNOWN;
    use std::ffi::CStr;

    const F32: DLDataType = DLDataType {
        code: 2,
        bits: 32,
        lanes: 1,
    };

    fn tensor(data: &mut [f32], shape: &mut [i64]) -> DLTensor {
        DLTensor {
            data: data.as_mut_ptr() as *mut c_void,
            device: DLDevice {
                device_type: 1,
                device_id: 0,
            },
            ndim: shape.len() as i32,
            dtype: F32,
            shape: shape.as_mut_ptr(),
            strides: std::ptr::null_mut(),
            byte_offset: 0,
        }
    }

    fn last() -> String {
        // SAFETY: a valid C string.
        unsafe { CStr::from_ptr(crate::error::agc_rt_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    /// f(x: f32[B, 2]) -> (out0: f32[B, 2], out1: f32[unknown]).
    fn spec() -> OwnedSpec {
        make(
            "f",
            &["B"],
            &[("x", (2, 32), vec![-1, 2])],
            &[
                ("out0", (2, 32), vec![-1, 2]),
                ("out1", (2, 32), vec![DIM_UNKNOWN]),
            ],
        )
    }

    /// `agc_rt_import_into` for x and the outs; (status, message, descs).
    fn import(x: &DLTensor, outs: [*mut DLTensor; 2]) -> (i32, String, Vec<i64>) {
        let s = spec();
        let mut descs = vec![0i64; 7];
        let mut syms = [0i64];
        let args = [x as *const DLTensor];
        // SAFETY: buffers sized for the spec.
        let st = unsafe {
            agc_rt_import_into(
                &*s.spec,
                args.as_ptr(),
                outs.as_ptr(),
                descs.as_mut_ptr(),
                syms.as_mut_ptr(),
            )
        };
        (st, last(), descs)
    }

    #[test]
    fn result_tensors_are_checked_before_the_kernel_runs() {
        let (mut xd, mut xs) = (vec![0f32; 6], [3i64, 2]);
        let x = tensor(&mut xd, &mut xs);
        let (mut d0, mut d1) = (vec![0f32; 8], vec![0f32; 5]);
        let (mut s0, mut s1) = ([3i64, 2], [5i64]);
        let mut o0 = tensor(&mut d0, &mut s0);
        let mut o1 = tensor(&mut d1, &mut s1);
        assert_eq!(import(&x, [&mut o0, &mut o1]).0, 0, "{}", last());
        let mut bad = [4i64, 2];
        o0.shape = bad.as_mut_ptr();
        assert_eq!(
            import(&x, [&mut o0, &mut o1]).1,
            "f: result tensor 'out0' expects shape (3, 2) float32, got (4, 2) float32"
        );
        o0.shape = s0.as_mut_ptr();
        o0.dtype.bits = 64;
        assert_eq!(
            import(&x, [&mut o0, &mut o1]).1,
            "f: result tensor 'out0' expects shape (3, 2) float32, got (3, 2) float64"
        );
        o0.dtype.bits = 32;
        let mut strides = [1i64, 3];
        o0.strides = strides.as_mut_ptr();
        assert!(import(&x, [&mut o0, &mut o1])
            .1
            .contains("result tensor 'out0' must be C-contiguous"));
        o0.strides = std::ptr::null_mut();
        o1.data = std::ptr::null_mut();
        assert_eq!(
            import(&x, [&mut o0, &mut o1]).1,
            "f: result tensor 'out1' has NULL data"
        );
        let (st, msg, _) = import(&x, [&mut o0, std::ptr::null_mut()]);
        assert_eq!((st, msg.as_str()), (1, "f: result tensor 'out1' is NULL"));
        o1.device.device_type = 2;
        assert!(import(&x, [&mut o0, &mut o1])
            .1
            .contains("result tensor 'out1' must be a CPU tensor"));
    }

    #[test]
    fn result_tensors_with_a_bad_byte_offset_are_refused() {
        let (mut xd, mut xs) = (vec![0f32; 6], [3i64, 2]);
        let x = tensor(&mut xd, &mut xs);
        let (mut d0, mut d1) = (vec![0f32; 8], vec![0f32; 5]);
        let (mut s0, mut s1) = ([3i64, 2], [5i64]);
        let mut o0 = tensor(&mut d0, &mut s0);
        let mut o1 = tensor(&mut d1, &mut s1);
        o0.byte_offset = 2;
        let (st, msg, _) = import(&x, [&mut o0, &mut o1]);
        assert_eq!(st, 1);
        assert!(
            msg.starts_with("f: result tensor 'out0' is not aligned"),
            "{msg}"
        );
        o0.byte_offset = u64::MAX - 3;
        let (st, msg, _) = import(&x, [&mut o0, &mut o1]);
        assert_eq!(st, 1);
        assert!(
            msg.starts_with(&format!(
                "f: result tensor 'out0' has byte_offset {} beyond the address space",
                u64::MAX - 3
            )),
            "{msg}"
        );
    }

    /// `agc_rt_finish_into` with the result descriptors `ret`.
    fn finish(ret: &mut [i64], descs: &[i64], outs: [*mut DLTensor; 2]) -> i32 {
        let s = spec();
        // SAFETY: buffers sized for the spec.
        unsafe { agc_rt_finish_into(&*s.spec, ret.as_mut_ptr(), descs.as_ptr(), outs.as_ptr()) }
    }

    fn allocated_f32(v: &[f32]) -> i64 {
        let p = allocate(4 * v.len()) as *mut f32;
        // SAFETY: a fresh block of the right size.
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
        p as i64
    }

    #[test]
    fn results_are_copied_into_the_tensors() {
        let (mut xd, mut xs) = (vec![0f32; 4], [2i64, 2]);
        let x = tensor(&mut xd, &mut xs);
        let (mut d0, mut d1) = (vec![0f32; 5], vec![0f32; 3]);
        let (mut s0, mut s1) = ([2i64, 2], [3i64]);
        let mut o0 = tensor(&mut d0, &mut s0);
        o0.byte_offset = 4;
        let mut o1 = tensor(&mut d1, &mut s1);
        let (st, _, descs) = import(&x, [&mut o0, &mut o1]);
        assert_eq!(st, 0);
        // out0 a transposed view of a kernel buffer, out1 a reversed one.
        let a = allocated_f32(&[1.0, 2.0, 3.0, 4.0]);
        let b = allocated_f32(&[5.0, 6.0, 7.0]);
        let mut ret = [a, a, 0, 2, 2, 1, 2, b, b + 8, 0, 3, -1];
        assert_eq!(finish(&mut ret, &descs, [&mut o0, &mut o1]), 0);
        assert_eq!(d0, [0.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!(d1, [7.0, 6.0, 5.0]);
    }

    #[test]
    fn a_wrong_data_dependent_size_writes_nothing() {
        let (mut xd, mut xs) = (vec![0f32; 2], [1i64, 2]);
        let x = tensor(&mut xd, &mut xs);
        let (mut d0, mut d1) = (vec![0f32; 2], vec![0f32; 3]);
        let (mut s0, mut s1) = ([1i64, 2], [3i64]);
        let mut o0 = tensor(&mut d0, &mut s0);
        let mut o1 = tensor(&mut d1, &mut s1);
        let (st, _, descs) = import(&x, [&mut o0, &mut o1]);
        assert_eq!(st, 0);
        let a = allocated_f32(&[1.0, 2.0]);
        let b = allocated_f32(&[5.0, 6.0]);
        let mut ret = [a, a, 0, 1, 2, 2, 1, b, b, 0, 2, 1];
        assert_eq!(finish(&mut ret, &descs, [&mut o0, &mut o1]), 1);
        assert_eq!(
            last(),
            "f: result 'out1' has shape (2,) float32, but the tensor passed for it has shape (3,) float32"
        );
        assert_eq!((d0, d1), (vec![0.0; 2], vec![0.0; 3]));
        // A status the kernel raised wins, and writes nothing either.
        crate::error::begin_call();
        crate::error::raise(Status::IndexOutOfRange, "index 9 is out of bounds".into());
        let a = allocated_f32(&[1.0, 2.0]);
        let mut ret = [a, a, 0, 1, 2, 2, 1, 0, 0, 0, 0, 0];
        assert_eq!(finish(&mut ret, &descs, [&mut o0, &mut o1]), 3);
        assert_eq!(last(), "f: index 9 is out of bounds");
    }

    #[test]
    fn a_result_viewing_an_argument_is_read_before_any_tensor_is_written() {
        // f(x) = (x + 1, x[::-1] flattened) with out0 being x itself.
        let (mut xd, mut xs) = (vec![1f32, 2.0], [1i64, 2]);
        let x = tensor(&mut xd, &mut xs);
        let xp = x.data as i64;
        let mut o0 = DLTensor { ..x };
        let (mut d1, mut s1) = (vec![0f32; 2], [2i64]);
        let mut o1 = tensor(&mut d1, &mut s1);
        let (st, _, descs) = import(&x, [&mut o0, &mut o1]);
        assert_eq!(st, 0);
        let a = allocated_f32(&[2.0, 3.0]);
        let mut ret = [a, a, 0, 1, 2, 2, 1, xp, xp + 4, 0, 2, -1];
        assert_eq!(finish(&mut ret, &descs, [&mut o0, &mut o1]), 0);
        // SAFETY: x's data, still alive.
        let x_now = unsafe { std::slice::from_raw_parts(xp as *const f32, 2) };
        assert_eq!(x_now, [2.0, 3.0]);
        assert_eq!(d1, [2.0, 1.0]);
    }
}
