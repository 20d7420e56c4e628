//! Argument import: validate each `const DLTensor*` against the signature and
//! fill the MLIR memref descriptor the kernel entry takes.
//!
//! A rank-`r` descriptor is `r * 2 + 3` words: `allocated`, `aligned`,
//! `offset`, `sizes[r]`, `strides[r]`. The descriptors of all parameters are
//! laid out one after the other in one buffer owned by the caller's frame.

use crate::dlpack::{dtype_matches, dtype_string, DLDataType, DLTensor, DEVICE_CPU};
use crate::error::{fail, Status};
use crate::spec::{slice, tuple_string, FuncSpec, SpecName};
use std::ffi::c_void;

/// The largest `ndim` a tensor may have (numpy's limit): a larger one is a
/// corrupt tensor, whose shape array is not read.
const MAX_NDIM: usize = 64;

/// Words in the memref descriptor of a rank-`rank` tensor.
pub fn descriptor_words(rank: usize) -> usize {
    3 + 2 * rank
}

/// Starts a call of the function described by `spec`: clears this thread's
/// error, sets every `*outs[k]` to NULL, checks every argument and writes the
/// parameters' descriptors one after the other into `descs`. `syms` is
/// scratch for the symbolic dims' values (`spec.nsyms` words). Returns 0, or
/// a status with the last error set.
///
/// # Safety
/// `spec` is a signature emitted by agc; `args` holds `nparams` pointers and
/// `outs` `nresults` pointers (each may be NULL: that is reported);
/// `descs` and `syms` are large enough for the signature.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_import_args(
    spec: *const FuncSpec,
    args: *const *const DLTensor,
    outs: *const *mut *mut DLTensor,
    descs: *mut i64,
    syms: *mut i64,
) -> i32 {
    // SAFETY: the generated code passes its constant signature.
    let spec = match unsafe { crate::spec::begin_run(spec) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    let name = spec.name();
    // SAFETY: `outs` holds `nresults` slots (caller contract).
    let out_slots = unsafe { slice(outs, spec.nresults) };
    let mut null_out = None;
    for (k, &slot) in out_slots.iter().enumerate() {
        if slot.is_null() {
            null_out = null_out.or(Some(k));
        } else {
            // SAFETY: a non-NULL result slot is writable (caller contract).
            unsafe { *slot = std::ptr::null_mut() };
        }
    }
    if let Some(k) = null_out {
        let rname = spec
            .results()
            .get(k)
            .map_or_else(|| format!("out{k}"), |r| r.name().to_string());
        return fail(
            Status::InvalidArgument,
            format!("{name}: result pointer '{rname}' is NULL"),
        );
    }
    // SAFETY: `args`, `syms` and `descs` are sized for the signature (caller contract).
    unsafe { import_params(spec, args, syms_of(spec, syms), Some(descs)) }
}

/// The symbolic dims' scratch `syms` (`spec.nsyms` words) as a slice.
///
/// # Safety
/// `syms` holds `spec.nsyms` words, or `nsyms` is 0.
pub(crate) unsafe fn syms_of<'a>(spec: &FuncSpec, syms: *mut i64) -> &'a mut [i64] {
    match usize::try_from(spec.nsyms) {
        // SAFETY: `syms` holds `nsyms` words (caller contract).
        Ok(n) if n > 0 && !syms.is_null() => unsafe { std::slice::from_raw_parts_mut(syms, n) },
        _ => &mut [],
    }
}

/// Checks every argument of a call of `spec`, binding the symbolic dims in
/// `syms` (filled with -1 first). With `descs`, also each argument's device,
/// data and strides, writing the parameters' descriptors one after the
/// other into `descs`; without, only dtypes, ranks and shapes are read (the
/// data may be NULL). Returns 0, or a status with the last error set.
///
/// # Safety
/// `args` holds `nparams` pointers, each NULL or a readable `DLTensor`;
/// `descs` is sized for every parameter's descriptor.
pub(crate) unsafe fn import_params(
    spec: &FuncSpec,
    args: *const *const DLTensor,
    syms: &mut [i64],
    descs: Option<*mut i64>,
) -> i32 {
    syms.fill(-1);
    // SAFETY: `args` holds `nparams` pointers (caller contract).
    let args = unsafe { slice(args, spec.nparams) };
    let mut offset = 0usize;
    for (i, p) in spec.params().iter().enumerate() {
        let words = descriptor_words(p.rank());
        // SAFETY: `descs` is sized for all parameters' descriptors.
        let desc = descs.map(|d| unsafe { std::slice::from_raw_parts_mut(d.add(offset), words) });
        offset += words;
        // SAFETY: each argument is NULL or a readable DLTensor (caller contract).
        let t = unsafe { args.get(i).and_then(|&a| a.as_ref()) };
        if let Err(msg) = import_one(spec, i, t, syms, desc) {
            crate::device::release_copies();
            return fail(Status::InvalidArgument, format!("{}: {msg}", spec.name()));
        }
    }
    Status::Ok as i32
}

/// What a check reads of a tensor.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    /// The dtype, ndim and shape only (`_result_shapes`: data may be NULL).
    Shape,
    /// Also the device, the data pointer and the strides (a call).
    All,
}

/// A tensor of a call as messages name it (`parameter 'x'`, `result
/// 'out0'`), formatted only when a message is written.
pub(crate) struct Named(pub &'static str, pub SpecName);

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} '{}'", self.0, self.1)
    }
}

/// `(2, 5) float32`: a tensor's shape and dtype, for messages.
pub(crate) fn shape_dtype(shape: &[i64], dtype: DLDataType) -> String {
    format!(
        "{} {}",
        tuple_string(&shape.iter().map(i64::to_string).collect::<Vec<_>>()),
        dtype_string(dtype)
    )
}

/// The checks every tensor of a call passes, arguments and caller-owned
/// results alike: on the CPU (when `reads` is [`Reads::All`]), of `dtype`
/// and rank `rank`, with a shape array whose dim `d` is non-negative and
/// equals `want(d)` where that is known, and a byte size that fits in an
/// `i64`. `what` names the tensor (`parameter 'x'`); `expected` words the
/// declaration (`parameter 'x' expects shape (B, 4) float32`). Returns the
/// shape and the number of elements.
pub(crate) fn check_shape<'t>(
    t: &'t DLTensor,
    reads: Reads,
    what: &dyn std::fmt::Display,
    expected: &dyn Fn() -> String,
    (dtype, rank): (DLDataType, usize),
    want: &dyn Fn(usize) -> Option<i64>,
) -> Result<(&'t [i64], i64), String> {
    let device = crate::device::device_type();
    if reads == Reads::All && t.device.device_type != device {
        let want = if device == DEVICE_CPU {
            "a CPU tensor (kDLCPU)"
        } else {
            "a CUDA tensor (kDLCUDA): the library was built with --target cuda"
        };
        return Err(format!(
            "{what} must be {want}, got device_type {}",
            t.device.device_type
        ));
    }
    let ndim =
        usize::try_from(t.ndim).map_err(|_| format!("{}, got ndim {}", expected(), t.ndim))?;
    if ndim > MAX_NDIM {
        return Err(format!("{}, got a tensor of ndim {ndim}", expected()));
    }
    if ndim > 0 && t.shape.is_null() {
        return Err(format!("{what} has ndim {ndim} but a NULL shape array"));
    }
    // SAFETY: a non-NULL shape holds `ndim` sizes (DLPack contract).
    let shape = unsafe { slice(t.shape, ndim as i64) };
    let dims_ok = shape
        .iter()
        .enumerate()
        .all(|(d, &s)| s >= 0 && want(d).is_none_or(|w| w == s));
    if ndim != rank || !dtype_matches(dtype, t.dtype) || !dims_ok {
        return Err(format!(
            "{}, got {}",
            expected(),
            shape_dtype(shape, t.dtype)
        ));
    }
    let numel = shape.iter().try_fold(1i64, |acc, &s| acc.checked_mul(s));
    let bytes = numel.and_then(|n| n.checked_mul(i64::from(t.dtype.bits / 8).max(1)));
    match bytes.and(numel) {
        Some(numel) => Ok((shape, numel)),
        None => Err(format!(
            "{what} is too large: got {}",
            shape_dtype(shape, t.dtype)
        )),
    }
}

/// The layout checks of a tensor whose data a call reads or writes: data
/// not NULL unless it has no elements; the first element (`data +
/// byte_offset`) aligned to the element size, and the tensor's bytes within
/// the address space (a `byte_offset` that wraps around or reaches beyond
/// `isize::MAX` would have the kernel read or write elsewhere); C-contiguous
/// strides.
pub(crate) fn check_layout(
    t: &DLTensor,
    shape: &[i64],
    numel: i64,
    what: &dyn std::fmt::Display,
) -> Result<(), String> {
    if numel > 0 && t.data.is_null() {
        return Err(format!("{what} has NULL data"));
    }
    if numel > 0 {
        let elem = usize::from(t.dtype.bits / 8).max(1);
        // `numel * elem` fits in an i64 (check_shape).
        let bytes = usize::try_from(numel)
            .unwrap_or(usize::MAX)
            .saturating_mul(elem);
        let first = usize::try_from(t.byte_offset)
            .ok()
            .and_then(|off| (t.data as usize).checked_add(off));
        let end = first.and_then(|f| f.checked_add(bytes));
        match (first, end) {
            (Some(first), Some(end)) if end <= isize::MAX as usize => {
                if first % elem != 0 {
                    return Err(format!(
                        "{what} is not aligned: its first element (data + byte_offset = {first:#x}) \
                         is not a multiple of its element size ({elem} bytes)"
                    ));
                }
            }
            _ => {
                return Err(format!(
                    "{what} has byte_offset {} beyond the address space (data {:p}, {bytes} bytes)",
                    t.byte_offset, t.data
                ))
            }
        }
    }
    if numel > 0 && !t.strides.is_null() {
        // SAFETY: non-NULL strides hold `ndim` entries (DLPack contract).
        let strides = unsafe { slice(t.strides, shape.len() as i64) };
        if !is_compact(shape, strides) {
            let st = tuple_string(&strides.iter().map(i64::to_string).collect::<Vec<_>>());
            let sh = tuple_string(&shape.iter().map(i64::to_string).collect::<Vec<_>>());
            return Err(format!(
                "{what} must be C-contiguous (compact row-major), got strides {st} for shape {sh}"
            ));
        }
    }
    Ok(())
}

/// The address of a tensor's first element (`data + byte_offset`).
pub(crate) fn first_element(t: &DLTensor) -> *mut u8 {
    (t.data as *mut u8).wrapping_add(t.byte_offset as usize)
}

/// Checks parameter `i`, binds its symbolic dims and, given a descriptor,
/// checks its layout and fills the descriptor; the error omits the
/// function-name prefix.
fn import_one(
    spec: &FuncSpec,
    i: usize,
    t: Option<&DLTensor>,
    syms: &mut [i64],
    desc: Option<&mut [i64]>,
) -> Result<(), String> {
    let p = &spec.params()[i];
    let pname = p.name();
    let t = t.ok_or_else(|| format!("parameter '{pname}' is NULL"))?;
    let what = Named("parameter", pname);
    let expected = || {
        format!(
            "parameter '{pname}' expects shape {} {}",
            p.shape_string(spec),
            dtype_string(p.dtype())
        )
    };
    let dims = p.dims();
    let reads = if desc.is_some() {
        Reads::All
    } else {
        Reads::Shape
    };
    let static_dim = |d: usize| dims.get(d).copied().filter(|&s| s >= 0);
    let (shape, numel) = check_shape(
        t,
        reads,
        &what,
        &expected,
        (p.dtype(), dims.len()),
        &static_dim,
    )?;
    for (&d, &s) in dims.iter().zip(shape) {
        if d >= 0 {
            continue;
        }
        let k = (-1 - d) as usize;
        let Some(slot) = syms.get_mut(k) else {
            return Err(format!("{}: bad symbolic dim {k}", expected()));
        };
        if *slot < 0 {
            *slot = s;
        } else if *slot != s {
            let first = first_binding(spec, k).unwrap_or_else(|| pname.to_string());
            return Err(format!(
                "symbolic dim {} is {} in '{first}' but {s} in '{pname}'",
                spec.sym_name(k),
                *slot
            ));
        }
    }
    if let Some(desc) = desc {
        check_layout(t, shape, numel, &what)?;
        let mut data = first_element(t) as *mut c_void;
        if crate::device::kind() != crate::device::Kind::Cpu && numel > 0 {
            // numel * elem fits in an i64 (check_shape).
            let bytes = numel as usize * usize::from(t.dtype.bits / 8).max(1);
            // SAFETY: the caller's tensor holds `bytes` bytes (check_layout).
            data = unsafe { crate::device::import_copy(data as *const u8, bytes) }
                .map_err(|e| format!("{what}: {e}"))?;
        }
        fill_descriptor(desc, data, shape);
    }
    Ok(())
}

/// The first parameter that uses symbolic dim `k` (where it was bound).
fn first_binding(spec: &FuncSpec, k: usize) -> Option<String> {
    spec.params()
        .iter()
        .find(|p| p.dims().contains(&(-1 - k as i64)))
        .map(|p| p.name().to_string())
}

/// Row-major compactness; dims of size 1 may have any stride.
pub fn is_compact(shape: &[i64], strides: &[i64]) -> bool {
    let mut expected = 1i64;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n != 1 && s != expected {
            return false;
        }
        expected = expected.saturating_mul(n);
    }
    true
}

/// Writes an identity-layout descriptor of `data` with sizes `shape`.
pub fn fill_descriptor(desc: &mut [i64], data: *mut c_void, shape: &[i64]) {
    let r = shape.len();
    if desc.len() < descriptor_words(r) {
        return;
    }
    desc[0] = data as i64;
    desc[1] = data as i64;
    desc[2] = 0;
    let mut stride = 1i64;
    for d in (0..r).rev() {
        desc[3 + d] = shape[d];
        desc[3 + r + d] = stride;
        stride = stride.wrapping_mul(shape[d]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dlpack::{DLDataType, DLDevice};
    use crate::spec::tests::make;
    use std::ffi::CStr;

    pub(crate) fn tensor(data: &mut [f32], shape: &mut [i64], dtype: DLDataType) -> DLTensor {
        DLTensor {
            data: data.as_mut_ptr() as *mut c_void,
            device: DLDevice {
                device_type: 1,
                device_id: 0,
            },
            ndim: shape.len() as i32,
            dtype,
            shape: shape.as_mut_ptr(),
            strides: std::ptr::null_mut(),
            byte_offset: 0,
        }
    }

    const F32: DLDataType = DLDataType {
        code: 2,
        bits: 32,
        lanes: 1,
    };

    fn run(args: &[*const DLTensor]) -> (i32, String, Vec<i64>) {
        let s = make(
            "predict",
            &["B"],
            &[("x", (2, 32), vec![-1, 4]), ("y", (2, 32), vec![-1])],
            &[("out0", (2, 32), vec![-1])],
        );
        let mut out: *mut DLTensor = std::ptr::null_mut();
        let outs = [&mut out as *mut *mut DLTensor];
        let mut descs = vec![0i64; 11 + 5];
        let mut syms = [0i64; 1];
        // SAFETY: everything is sized for the spec.
        let st = unsafe {
            agc_rt_import_args(
                &*s.spec,
                args.as_ptr(),
                outs.as_ptr(),
                descs.as_mut_ptr(),
                syms.as_mut_ptr(),
            )
        };
        // SAFETY: valid C string.
        let msg = unsafe { CStr::from_ptr(crate::error::agc_rt_last_error()) }
            .to_string_lossy()
            .into_owned();
        (st, msg, descs)
    }

    #[test]
    fn good_arguments_fill_descriptors() {
        let (mut a, mut b) = (vec![0f32; 8], vec![0f32; 2]);
        let (mut sa, mut sb) = ([2i64, 4], [2i64]);
        let (x, y) = (tensor(&mut a, &mut sa, F32), tensor(&mut b, &mut sb, F32));
        let (st, msg, d) = run(&[&x, &y]);
        assert_eq!((st, msg.as_str()), (0, ""));
        assert_eq!(d[0], a.as_ptr() as i64);
        assert_eq!(&d[2..7], &[0, 2, 4, 4, 1]);
        assert_eq!(&d[9..12], &[0, 2, 1]);
    }

    #[test]
    fn messages_name_parameter_and_shapes() {
        let (mut a, mut b) = (vec![0f32; 10], vec![0f32; 3]);
        let (mut sa, mut sb) = ([2i64, 5], [2i64]);
        let x = tensor(&mut a, &mut sa, F32);
        let y = tensor(&mut b, &mut sb, F32);
        let (st, msg, _) = run(&[&x, &y]);
        assert_eq!(st, 1);
        assert_eq!(
            msg,
            "predict: parameter 'x' expects shape (B, 4) float32, got (2, 5) float32"
        );
        let mut sa2 = [2i64, 4];
        let x = tensor(&mut a, &mut sa2, F32);
        let mut sb2 = [3i64];
        let y = tensor(&mut b, &mut sb2, F32);
        assert_eq!(
            run(&[&x, &y]).1,
            "predict: symbolic dim B is 2 in 'x' but 3 in 'y'"
        );
        let y = tensor(
            &mut b,
            &mut sb,
            DLDataType {
                code: 2,
                bits: 64,
                lanes: 1,
            },
        );
        assert_eq!(
            run(&[&x, &y]).1,
            "predict: parameter 'y' expects shape (B,) float32, got (2,) float64"
        );
        assert_eq!(
            run(&[&x, std::ptr::null()]).1,
            "predict: parameter 'y' is NULL"
        );
    }

    #[test]
    fn strides_and_null_data() {
        let (mut a, mut b) = (vec![0f32; 8], vec![0f32; 2]);
        let (mut sa, mut sb) = ([2i64, 4], [2i64]);
        let mut x = tensor(&mut a, &mut sa, F32);
        let y = tensor(&mut b, &mut sb, F32);
        let mut st = [1i64, 2];
        x.strides = st.as_mut_ptr();
        assert!(run(&[&x, &y])
            .1
            .contains("must be C-contiguous (compact row-major), got strides (1, 2)"));
        let mut good = [4i64, 1];
        x.strides = good.as_mut_ptr();
        assert_eq!(run(&[&x, &y]).0, 0);
        x.data = std::ptr::null_mut();
        assert_eq!(run(&[&x, &y]).1, "predict: parameter 'x' has NULL data");
    }

    #[test]
    fn byte_offset_must_be_aligned_and_within_the_address_space() {
        let (mut a, mut b) = (vec![0f32; 9], vec![0f32; 2]);
        let (mut sa, mut sb) = ([2i64, 4], [2i64]);
        let mut x = tensor(&mut a, &mut sa, F32);
        let y = tensor(&mut b, &mut sb, F32);
        x.byte_offset = 4;
        let (st, _, d) = run(&[&x, &y]);
        assert_eq!((st, d[0]), (0, a.as_ptr() as i64 + 4));
        for off in [1u64, 2, 6] {
            x.byte_offset = off;
            let (st, msg, _) = run(&[&x, &y]);
            assert_eq!(st, 1, "byte_offset {off}");
            assert!(
                msg.starts_with("predict: parameter 'x' is not aligned: its first element"),
                "{msg}"
            );
            assert!(msg.ends_with("element size (4 bytes)"), "{msg}");
        }
        for off in [u64::MAX - 3, u64::MAX, 1 << 63, i64::MAX as u64] {
            x.byte_offset = off;
            let (st, msg, _) = run(&[&x, &y]);
            assert_eq!(st, 1, "byte_offset {off}");
            assert!(
                msg.starts_with(&format!(
                    "predict: parameter 'x' has byte_offset {off} beyond the address space"
                )),
                "{msg}"
            );
        }
        // No elements: the data is never read, so neither is checked.
        let mut empty = [0i64, 4];
        x.shape = empty.as_mut_ptr();
        x.byte_offset = u64::MAX;
        let mut e = [0i64];
        let y = tensor(&mut b, &mut e, F32);
        assert_eq!(run(&[&x, &y]).0, 0);
    }

    #[test]
    fn compactness() {
        assert!(is_compact(&[2, 1, 3], &[3, 99, 1]));
        assert!(!is_compact(&[2, 3], &[1, 2]));
    }
}
