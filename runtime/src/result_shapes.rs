//! `<NAME>_f_result_shapes(args..., int64_t* out0, ...)`: the shapes of an
//! export's results for arguments of given shapes, so that a caller can
//! allocate the tensors `<NAME>_f_into` writes.
//!
//! Only each argument's dtype, ndim and shape are read (the data may be
//! NULL). A result dim that is static or a parameter's symbolic dim is known
//! from the argument shapes; one that only the computation determines (a
//! data-dependent size) is written as -1, and `_into` checks it once the
//! kernel has run. Allocation-free on success.

use crate::dlpack::DLTensor;
use crate::error::{fail, Status};
use crate::import::{import_params, syms_of};
use crate::spec::{resolve_dim, slice, FuncSpec};

/// Checks the arguments' dtypes, ranks and shapes as a call does (binding
/// the symbolic dims into `syms`), then writes result `k`'s dims into
/// `shapes[k]` (`rank k` words; may be NULL for a rank-0 result), -1 for a
/// dim only the computation determines. Returns 0, or a status with the
/// last error set and nothing written.
///
/// # Safety
/// `spec` is a signature emitted by agc; `args` holds `nparams` pointers
/// (each NULL or a readable `DLTensor`), `shapes` `nresults` pointers (each
/// NULL or writable for the result's rank), `syms` `nsyms` words.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_result_shapes(
    spec: *const FuncSpec,
    args: *const *const DLTensor,
    shapes: *const *mut i64,
    syms: *mut i64,
) -> i32 {
    // SAFETY: the generated code passes its constant signature.
    let spec = match unsafe { crate::spec::begin(spec) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: `syms` holds `nsyms` words (caller contract).
    let syms = unsafe { syms_of(spec, syms) };
    // SAFETY: `args` holds `nparams` pointers (caller contract); no descriptors.
    let status = unsafe { import_params(spec, args, syms, None) };
    if status != 0 {
        return status;
    }
    // SAFETY: `shapes` holds `nresults` pointers (caller contract).
    let shapes = unsafe { slice(shapes, spec.nresults) };
    let results = spec.results();
    if let Some(r) = results
        .iter()
        .zip(shapes)
        .find_map(|(r, p)| (p.is_null() && r.rank() > 0).then_some(r))
    {
        return fail(
            Status::InvalidArgument,
            format!(
                "{}: the shape array for result '{}' (rank {}) is NULL",
                spec.name(),
                r.name(),
                r.rank()
            ),
        );
    }
    for (r, &p) in results.iter().zip(shapes) {
        for (i, &d) in r.dims().iter().enumerate() {
            // SAFETY: a non-NULL array of the result's rank (caller contract).
            unsafe { *p.add(i) = resolve_dim(d, syms).unwrap_or(-1) };
        }
    }
    Status::Ok as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dlpack::{DLDataType, DLDevice};
    use crate::spec::tests::make;
    use crate::spec::DIM_UNKNOWN;
    use std::ffi::CStr;

    fn shape_only(shape: &mut [i64]) -> DLTensor {
        DLTensor {
            data: std::ptr::null_mut(),
            device: DLDevice {
                device_type: 99,
                device_id: 0,
            },
            ndim: shape.len() as i32,
            dtype: DLDataType {
                code: 2,
                bits: 32,
                lanes: 1,
            },
            shape: shape.as_mut_ptr(),
            strides: std::ptr::null_mut(),
            byte_offset: 0,
        }
    }

    #[test]
    fn shapes_from_the_arguments_and_unknown_dims() {
        let s = make(
            "f",
            &["B"],
            &[("x", (2, 32), vec![-1, 4])],
            &[
                ("out0", (2, 32), vec![-1, 3]),
                ("out1", (0, 64), vec![DIM_UNKNOWN]),
                ("out2", (0, 64), vec![]),
            ],
        );
        let mut sx = [7i64, 4];
        let x = shape_only(&mut sx);
        let (mut s0, mut s1) = ([0i64; 2], [0i64; 1]);
        let shapes = [s0.as_mut_ptr(), s1.as_mut_ptr(), std::ptr::null_mut()];
        let mut syms = [0i64];
        let args = [&x as *const DLTensor];
        // SAFETY: buffers sized for the spec.
        let st = unsafe {
            agc_rt_result_shapes(&*s.spec, args.as_ptr(), shapes.as_ptr(), syms.as_mut_ptr())
        };
        assert_eq!(st, 0);
        assert_eq!((s0, s1), ([7, 3], [-1]));

        let bad_shapes = [s0.as_mut_ptr(), std::ptr::null_mut(), std::ptr::null_mut()];
        // SAFETY: x's shape array, `sx`.
        unsafe { *x.shape.add(1) = 5 };
        // SAFETY: as above.
        let st = unsafe {
            agc_rt_result_shapes(
                &*s.spec,
                args.as_ptr(),
                bad_shapes.as_ptr(),
                syms.as_mut_ptr(),
            )
        };
        // SAFETY: a valid C string.
        let msg = unsafe { CStr::from_ptr(crate::error::agc_rt_last_error()) };
        assert_eq!(st, 1);
        assert_eq!(
            msg.to_str().unwrap(),
            "f: parameter 'x' expects shape (B, 4) float32, got (7, 5) float32"
        );
        // SAFETY: as above.
        unsafe { *x.shape.add(1) = 4 };
        // SAFETY: as above.
        let st = unsafe {
            agc_rt_result_shapes(
                &*s.spec,
                args.as_ptr(),
                bad_shapes.as_ptr(),
                syms.as_mut_ptr(),
            )
        };
        // SAFETY: a valid C string.
        let msg = unsafe { CStr::from_ptr(crate::error::agc_rt_last_error()) };
        assert_eq!(st, 1);
        assert_eq!(
            msg.to_str().unwrap(),
            "f: the shape array for result 'out1' (rank 1) is NULL"
        );
    }
}
