//! The variables of a context: one compact buffer each, from the runtime's
//! allocator. Created from the library's initialiser, handed to every
//! export as descriptors after its parameters ([`describe`]), replaced by
//! the values an assigning export returns ([`agc_rt_context_commit`]), and
//! written to and read from safetensors files (`<NAME>_save`,
//! `<NAME>_restore`).

use crate::alloc::{allocate, release};
use crate::context::{live, Context, StateSpec};
use crate::error::{begin_call, fail, pending, take_pending, Status};
use crate::export::copy_strided;
use crate::import::{descriptor_words, fill_descriptor, is_compact};
use crate::safetensors::{self, code_of};
use crate::spec::{FuncSpec, TensorSpec};
use std::ffi::{c_char, c_void, CStr};

/// The `allocated` pointer MLIR gives views of constant globals.
const MLIR_GLOBAL_SENTINEL: i64 = 0xdead_beef;

/// One variable's buffer.
pub struct VarBuffer {
    /// What the allocator returned (what is freed).
    allocated: *mut c_void,
    /// The first element.
    data: *mut u8,
}

impl VarBuffer {
    /// Frees the buffer.
    pub fn free(self) {
        // SAFETY: a block of the runtime's allocator owned by this buffer.
        unsafe { release(self.allocated) };
    }

    /// A fresh buffer of `n` bytes (`None`: out of memory).
    fn new(n: usize) -> Option<VarBuffer> {
        let p = allocate(n.max(1));
        (!p.is_null()).then_some(VarBuffer {
            allocated: p,
            data: p as *mut u8,
        })
    }
}

/// Bytes of one element and of the whole tensor of `spec`.
fn sizes(spec: &TensorSpec) -> (usize, usize) {
    let elem = (spec.dtype().bits as usize).div_ceil(8);
    let numel: i64 = spec.dims().iter().product();
    (elem, elem * usize::try_from(numel).unwrap_or(0))
}

/// One descriptor of `ret` at word `off`, for rank `rank`: (allocated,
/// aligned, offset, sizes, strides).
///
/// # Safety
/// `ret` holds the descriptor.
unsafe fn view<'a>(
    ret: *const i64,
    off: usize,
    rank: usize,
) -> (i64, i64, i64, &'a [i64], &'a [i64]) {
    // SAFETY: caller contract.
    let d = unsafe { std::slice::from_raw_parts(ret.add(off), descriptor_words(rank)) };
    (d[0], d[1], d[2], &d[3..3 + rank], &d[3 + rank..])
}

/// A fresh buffer holding the elements of a descriptor's view.
///
/// # Safety
/// The view addresses valid elements of `spec`'s dtype and shape.
unsafe fn copy_of(spec: &TensorSpec, d: (i64, i64, i64, &[i64], &[i64])) -> Option<VarBuffer> {
    let (elem, nbytes) = sizes(spec);
    let buf = VarBuffer::new(nbytes)?;
    if nbytes > 0 {
        let src = (d.1 as *const u8).wrapping_add((d.2 as usize).wrapping_mul(elem));
        if is_compact(d.3, d.4) {
            // SAFETY: `nbytes` bytes of the view into the fresh buffer.
            unsafe { std::ptr::copy_nonoverlapping(src, buf.data, nbytes) };
        } else {
            // SAFETY: as above, element by element.
            unsafe { copy_strided(src, d.3, d.4, elem, buf.data) };
        }
    }
    Some(buf)
}

/// The variables' initial values: the initialiser's results, copied.
pub(crate) fn initial_values(
    spec: &StateSpec,
    table: &[*const u8],
) -> Result<Vec<VarBuffer>, (Status, String)> {
    let vars = spec.vars();
    let Some(init) = spec.init.filter(|_| !vars.is_empty()) else {
        return Ok(Vec::new());
    };
    let words: usize = vars.iter().map(|v| descriptor_words(v.rank())).sum();
    let mut ret = vec![0i64; words.max(1)];
    let table_ptr = if table.is_empty() {
        std::ptr::NonNull::dangling().as_ptr()
    } else {
        table.as_ptr()
    };
    take_pending();
    // SAFETY: the library's initialiser, given its weight table and a result buffer of the right size.
    unsafe { init(table_ptr, ret.as_mut_ptr()) };
    let status = take_pending();
    let mut out = Vec::with_capacity(vars.len());
    let mut off = 0;
    let mut seen: Vec<i64> = Vec::new();
    let mut oom = false;
    for v in vars {
        // SAFETY: the initialiser wrote one descriptor per variable.
        let d = unsafe { view(ret.as_ptr(), off, v.rank()) };
        off += descriptor_words(v.rank());
        if status == 0 && !oom {
            // SAFETY: a result of the initialiser, of the variable's type.
            match unsafe { copy_of(v, d) } {
                Some(b) => out.push(b),
                None => oom = true,
            }
        }
        if d.0 != 0 && d.0 != MLIR_GLOBAL_SENTINEL && !seen.contains(&d.0) {
            seen.push(d.0);
            // SAFETY: a buffer the initialiser allocated, freed once.
            unsafe { release(d.0 as *mut c_void) };
        }
    }
    if status != 0 || oom {
        out.into_iter().for_each(VarBuffer::free);
        let why = if oom {
            "out of memory"
        } else {
            "the variables' initial values failed"
        };
        return Err((
            if oom {
                Status::OutOfMemory
            } else {
                Status::Internal
            },
            why.into(),
        ));
    }
    Ok(out)
}

/// Writes the descriptors of `ctx`'s variables into `descs` after `spec`'s parameters'.
///
/// # Safety
/// The context's lock is held; `descs` holds every parameter's and variable's descriptor.
pub(crate) unsafe fn describe(ctx: &Context, spec: &FuncSpec, descs: *mut i64) {
    let mut off: usize = spec
        .params()
        .iter()
        .map(|p| descriptor_words(p.rank()))
        .sum();
    // SAFETY: the lock is held: no exclusive call replaces the buffers meanwhile.
    let vars = unsafe { &*ctx.vars.get() };
    for (v, b) in spec.state().iter().zip(vars) {
        let words = descriptor_words(v.rank());
        // SAFETY: within `descs` (caller contract).
        let d = unsafe { std::slice::from_raw_parts_mut(descs.add(off), words) };
        fill_descriptor(d, b.data as *mut c_void, v.dims());
        d[0] = b.allocated as i64;
        off += words;
    }
}

/// After the kernel of an assigning export ran: makes the values it
/// returned for the variables (after its results in `ret`) theirs. A
/// buffer only the variable's result holds is adopted; one shared with a
/// parameter, a variable, a result or another variable is copied. When the
/// kernel failed, the variables keep their values. The buffers replaced are
/// freed when the call leaves the context.
///
/// # Safety
/// `ctx` holds the exclusive lock of this call; `spec`, `ret` and `descs`
/// are the export's signature, result and parameter descriptors.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_context_commit(
    ctx: *mut Context,
    spec: *const FuncSpec,
    ret: *const i64,
    descs: *const i64,
) -> i32 {
    // SAFETY: the export's constant signature (caller contract).
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return fail(Status::Internal, "agc: commit without a signature");
    };
    // SAFETY: caller contract.
    let Some(c) = (unsafe { live(ctx, spec.context_spec) }) else {
        return fail(Status::Internal, "agc: commit without a context");
    };
    let state = spec.state();
    let first: usize = spec
        .results()
        .iter()
        .map(|r| descriptor_words(r.rank()))
        .sum();
    // The assigned variables' (index, spec, descriptor), found again on each
    // use: the call allocates nothing (CONTRACT section 6).
    let assigned = || {
        spec.assigns().iter().scan(first, |off, &k| {
            let v = state.get(k as usize)?;
            // SAFETY: the kernel's descriptors of the assigned variables follow its results.
            let d = unsafe { view(ret, *off, v.rank()) };
            *off += descriptor_words(v.rank());
            Some((k as usize, v, d))
        })
    };
    let is_result = |a: i64| {
        spec.results()
            .iter()
            .scan(0usize, |off, r| {
                // SAFETY: `ret` holds the results' descriptors.
                let x = unsafe { *ret.add(*off) };
                *off += descriptor_words(r.rank());
                Some(x)
            })
            .any(|x| x == a)
    };
    // SAFETY: `descs` holds the parameters' and variables' descriptors.
    let is_param = |a: i64| unsafe { spec.param_buffers(descs) }.any(|x| x == a);
    let kernel_owned =
        |a: i64| a != 0 && a != MLIR_GLOBAL_SENTINEL && !is_param(a) && !is_result(a);
    let holders = |a: i64| assigned().filter(|(_, _, d)| d.0 == a).count();
    let failed = pending() != 0;
    // SAFETY: the exclusive lock is held: the context's buffers are this call's.
    let (vars, retired, fresh) = unsafe {
        (
            &mut *c.vars.get(),
            &mut *c.retired.get(),
            &mut *c.fresh.get(),
        )
    };
    let mut oom = false;
    for (k, v, d) in assigned() {
        if failed || oom {
            break;
        }
        let adopt = kernel_owned(d.0)
            && holders(d.0) == 1
            && d.1 == d.0
            && d.2 == 0
            && is_compact(d.3, d.4);
        let buf = if adopt {
            Some(VarBuffer {
                allocated: d.0 as *mut c_void,
                data: d.1 as *mut u8,
            })
        } else {
            // SAFETY: the kernel's view of the variable's new value.
            unsafe { copy_of(v, d) }
        };
        match buf {
            Some(b) => fresh.push((k, b)),
            None => oom = true,
        }
    }
    // Kernel buffers no variable adopted are freed, once each.
    for (i, (_, _, d)) in assigned().enumerate() {
        let adopted = fresh.iter().any(|(_, b)| b.allocated as i64 == d.0);
        let seen = assigned().take(i).any(|(_, _, e)| e.0 == d.0);
        if kernel_owned(d.0) && !adopted && !seen {
            // SAFETY: a kernel buffer nobody else holds.
            unsafe { release(d.0 as *mut c_void) };
        }
    }
    if oom {
        // Adopted kernel buffers and copies alike are this call's alone.
        fresh.drain(..).for_each(|(_, b)| b.free());
        // Raised, so that finishing the call frees the results and reports it.
        crate::error::raise(Status::OutOfMemory, "out of memory".into());
        return Status::OutOfMemory as i32;
    }
    for (k, b) in fresh.drain(..) {
        retired.push(std::mem::replace(&mut vars[k], b));
    }
    0
}

/// The live context `ctx` of the library `spec` describes and the path
/// `path` of its `what` function (`save`, `restore`), or the failed status.
///
/// # Safety
/// As [`agc_rt_context_save`].
unsafe fn context_and_path<'a>(
    spec: *const StateSpec,
    ctx: *mut Context,
    path: *const c_char,
    what: &str,
) -> Result<(&'a Context, &'a StateSpec, String), i32> {
    // SAFETY: the library's constant spec (caller contract).
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return Err(fail(Status::Internal, "agc: missing state spec"));
    };
    let library = crate::spec::SpecName(spec.library);
    // SAFETY: caller contract.
    let Some(c) = (unsafe { live(ctx, spec) }) else {
        return Err(fail(
            Status::InvalidArgument,
            format!("{library}_{what}: ctx is not a live context of this library"),
        ));
    };
    if path.is_null() {
        return Err(fail(
            Status::InvalidArgument,
            format!("{library}_{what}: path is NULL"),
        ));
    }
    // SAFETY: NUL-terminated (caller contract).
    let path = unsafe { CStr::from_ptr(path) }
        .to_string_lossy()
        .into_owned();
    Ok((c, spec, path))
}

/// A temporary file name next to `path`, unique to this call.
fn temporary_name(path: &str) -> String {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{path}.tmp{}.{n}", std::process::id())
}

/// Writes `ctx`'s variables to the safetensors file `path` (replacing it
/// atomically: a temporary file in the same folder, then a rename).
///
/// # Safety
/// `ctx` is NULL or from `<NAME>_create`; `path` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_context_save(
    spec: *const StateSpec,
    ctx: *mut Context,
    path: *const c_char,
) -> i32 {
    begin_call();
    // SAFETY: caller contract.
    let (c, spec, path) = match unsafe { context_and_path(spec, ctx, path, "save") } {
        Ok(x) => x,
        Err(status) => return status,
    };
    let library = crate::spec::SpecName(spec.library);
    c.enter(false);
    let bytes = {
        // SAFETY: the shared lock is held.
        let vars = unsafe { &*c.vars.get() };
        let names: Vec<String> = spec.vars().iter().map(|v| v.name().to_string()).collect();
        let tensors: Vec<(&str, crate::dlpack::DLDataType, &[i64], &[u8])> = spec
            .vars()
            .iter()
            .zip(vars)
            .zip(&names)
            .map(|((v, b), name)| {
                // SAFETY: the variable's buffer holds its bytes.
                let data = unsafe { std::slice::from_raw_parts(b.data, sizes(v).1) };
                (name.as_str(), v.dtype(), v.dims(), data)
            })
            .collect();
        safetensors::encode(&tensors)
    };
    c.leave(false);
    let tmp = temporary_name(&path);
    match std::fs::write(&tmp, &bytes).and_then(|_| std::fs::rename(&tmp, &path)) {
        Ok(()) => 0,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            fail(
                Status::InvalidArgument,
                format!("{library}_save: cannot write '{path}': {e}"),
            )
        }
    }
}

/// Replaces `ctx`'s variables with the tensors of the same names in the
/// safetensors file `path`: all of them or, on any error, none.
///
/// # Safety
/// As [`agc_rt_context_save`].
#[no_mangle]
pub unsafe extern "C" fn agc_rt_context_restore(
    spec: *const StateSpec,
    ctx: *mut Context,
    path: *const c_char,
) -> i32 {
    begin_call();
    // SAFETY: caller contract.
    let (c, spec, path) = match unsafe { context_and_path(spec, ctx, path, "restore") } {
        Ok(x) => x,
        Err(status) => return status,
    };
    let library = crate::spec::SpecName(spec.library);
    let fresh = match read_variables(spec, &path) {
        Ok(v) => v,
        Err((status, e)) => return fail(status, format!("{library}_restore: {e}")),
    };
    c.enter(true);
    // SAFETY: the exclusive lock is held.
    let retired = unsafe { &mut *c.retired.get() };
    // SAFETY: as above.
    for (slot, b) in unsafe { &mut *c.vars.get() }.iter_mut().zip(fresh) {
        retired.push(std::mem::replace(slot, b));
    }
    c.leave(true);
    0
}

/// Fresh buffers holding the variables of `spec` read from the safetensors file `path`.
fn read_variables(spec: &StateSpec, path: &str) -> Result<Vec<VarBuffer>, (Status, String)> {
    let malformed = |e: String| {
        (
            Status::InvalidArgument,
            format!("'{path}' is not a valid safetensors file: {e}"),
        )
    };
    let bad = |e: String| (Status::InvalidArgument, format!("'{path}': {e}"));
    let bytes = std::fs::read(path).map_err(|e| {
        (
            Status::InvalidArgument,
            format!("cannot read '{path}': {e}"),
        )
    })?;
    let n = safetensors::header_len(&bytes, bytes.len() as u64).map_err(malformed)? as usize;
    let tensors =
        safetensors::parse_header(&bytes[8..8 + n], bytes.len() as u64).map_err(malformed)?;
    let mut out: Vec<VarBuffer> = Vec::new();
    for v in spec.vars() {
        let name = v.name().to_string();
        let dims: Vec<u64> = v.dims().iter().map(|&d| d as u64).collect();
        let found = tensors.iter().find(|t| t.name == name);
        let checked = match found {
            None => Err(format!("no tensor '{name}'")),
            Some(t) if t.dtype != code_of(v.dtype()) || t.shape != dims => Err(format!(
                "tensor '{name}' is {} {:?}; the variable is {} {:?}",
                t.dtype,
                t.shape,
                code_of(v.dtype()),
                dims
            )),
            Some(t) => Ok(t),
        };
        let t = match checked {
            Ok(t) => t,
            Err(e) => {
                out.into_iter().for_each(VarBuffer::free);
                return Err(bad(e));
            }
        };
        let Some(b) = VarBuffer::new(t.nbytes as usize) else {
            out.into_iter().for_each(VarBuffer::free);
            return Err((Status::OutOfMemory, "out of memory".into()));
        };
        let src = &bytes[t.offset as usize..][..t.nbytes as usize];
        // SAFETY: the fresh buffer holds `nbytes` bytes.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), b.data, src.len()) };
        out.push(b);
    }
    Ok(out)
}
