//! Contexts of libraries with external weights or variables:
//! `<NAME>_create`, `<NAME>_destroy`, and the lock an export holds on its
//! context while it runs.
//!
//! A context maps `<NAME>.weights` (a safetensors file) read-only, checks
//! that it holds every weight the library was built with, by name, dtype and
//! shape, and keeps the address of each weight's data in a table that the
//! generated code reads through a thread-local pointer set by the entry
//! point. It holds one buffer per variable ([`crate::variables`]). Exports
//! that only read state share the context; an export that assigns state
//! holds it alone ([`Lock`]).

use crate::error::{begin_call, fail, Status};
use crate::mapping::Mapping;
use crate::rwlock::RwLock;
use crate::safetensors::{self, code_of, TensorInfo};
use crate::spec::{slice, SpecName, TensorSpec};
use crate::variables::VarBuffer;
use std::cell::UnsafeCell;
use std::ffi::{c_char, c_void, CStr};

/// Marks a live context.
const MAGIC: u64 = 0x6167_635f_6374_7874;

/// The state a library's contexts hold, as constant data emitted by the backend.
#[repr(C)]
#[derive(Debug)]
pub struct StateSpec {
    /// The library's name, for messages.
    pub library: *const c_char,
    /// Size of the weight table.
    pub nweights: i64,
    /// `nweights` specs; a NULL name marks a weight the library never reads.
    pub weights: *const TensorSpec,
    /// Number of variables.
    pub nvars: i64,
    /// `nvars` variable specs (their names are the names `_save` writes).
    pub vars: *const TensorSpec,
    /// Runs the variables' initialiser with the weight table given, writing
    /// one result descriptor per variable into the buffer given.
    pub init: Option<unsafe extern "C" fn(*const *const u8, *mut i64)>,
    /// Number of packed weights: the GEMM panels of weights the code reads
    /// as B, made at creation in table slots `nweights..`.
    pub npacked: i64,
    /// `npacked` pairs (weight index, B is its transpose).
    pub packed: *const i64,
}

impl StateSpec {
    /// The variable specs.
    pub fn vars(&self) -> &[TensorSpec] {
        // SAFETY: the spec is a well-formed constant.
        unsafe { slice(self.vars, self.nvars) }
    }
}

/// A context: the mapped weights and their addresses, the variables.
pub struct Context {
    magic: u64,
    /// The library's state spec.
    pub(crate) spec: *const StateSpec,
    /// The address of each weight's data (NULL for weights never read),
    /// then of each packed weight's panels.
    table: Vec<*const u8>,
    /// The packed panels, and a CUDA library's copy of the weights (the
    /// runtime allocator's blocks).
    panels: Vec<*mut c_void>,
    _weights: Option<Mapping>,
    lock: Box<RwLock>,
    /// The variables' buffers; written only by the holder of the exclusive lock.
    pub(crate) vars: UnsafeCell<Vec<VarBuffer>>,
    /// Buffers replaced during the current exclusive call, freed when it ends.
    pub(crate) retired: UnsafeCell<Vec<VarBuffer>>,
    /// The new buffers of an assigning call before they replace the
    /// variables' (kept, empty, so that calls allocate nothing).
    pub(crate) fresh: UnsafeCell<Vec<(usize, VarBuffer)>>,
}

impl Drop for Context {
    fn drop(&mut self) {
        for p in self.panels.drain(..) {
            // SAFETY: blocks `pack_weights` allocated, freed once.
            unsafe { crate::alloc::release(p) };
        }
        for b in self
            .vars
            .get_mut()
            .drain(..)
            .chain(self.retired.get_mut().drain(..))
        {
            b.free();
        }
    }
}

/// The tensors of the mapped file `path`, checked against `spec`: the table of addresses.
fn weight_table(spec: &StateSpec, map: &Mapping, path: &str) -> Result<Vec<*const u8>, String> {
    let bytes = map.bytes();
    let n =
        safetensors::header_len(bytes, bytes.len() as u64).map_err(|e| format!("'{path}': {e}"))?;
    let header = &bytes[8..8 + n as usize];
    let tensors = safetensors::parse_header(header, bytes.len() as u64)
        .map_err(|e| format!("'{path}': {e}"))?;
    // SAFETY: the spec is a well-formed constant.
    let wanted = unsafe { slice(spec.weights, spec.nweights) };
    let mut table = Vec::with_capacity(wanted.len());
    for w in wanted {
        if w.name.is_null() {
            table.push(std::ptr::null());
            continue;
        }
        let name = w.name().to_string();
        let t: &TensorInfo = tensors
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| format!("'{path}' has no tensor '{name}'"))?;
        let dims: Vec<u64> = w.dims().iter().map(|&d| d as u64).collect();
        if t.dtype != code_of(w.dtype()) || t.shape != dims {
            return Err(format!(
                "tensor '{name}' of '{path}' is {} {:?}; the library was built for {} {:?}",
                t.dtype,
                t.shape,
                code_of(w.dtype()),
                dims
            ));
        }
        table.push(bytes[t.offset as usize..].as_ptr());
    }
    Ok(table)
}

/// `table` with the GEMM panels of the packed weights of `spec` appended,
/// and the blocks holding them.
fn pack_weights(
    spec: &StateSpec,
    mut table: Vec<*const u8>,
) -> Result<(Vec<*const u8>, Vec<*mut c_void>), String> {
    // SAFETY: the spec is a well-formed constant.
    let pairs = unsafe { slice(spec.packed, spec.npacked.saturating_mul(2)) };
    // SAFETY: as above.
    let weights = unsafe { slice(spec.weights, spec.nweights) };
    let mut blocks = Vec::with_capacity(pairs.len() / 2);
    for pair in pairs.chunks_exact(2) {
        let (w, transposed) = (pair[0] as usize, pair[1] != 0);
        let (Some(spec_w), Some(&src)) = (weights.get(w), table.get(w)) else {
            return Err("a packed weight without its weight".into());
        };
        let dims = spec_w.dims();
        let (k, n) = match (dims, transposed) {
            ([k, n], false) | ([n, k], true) => (*k as usize, *n as usize),
            _ => return Err("a packed weight that is not a matrix".into()),
        };
        let len = crate::panels::panels_len(k, n);
        let block = crate::alloc::allocate(len * 4);
        if block.is_null() {
            blocks
                .into_iter()
                .for_each(|b| unsafe { crate::alloc::release(b) });
            return Err("out of memory".into());
        }
        // SAFETY: a fresh block of `len` floats (the allocator aligns to 64).
        let out = unsafe { std::slice::from_raw_parts_mut(block as *mut f32, len) };
        // SAFETY: the weight's `k * n` floats, mapped; maybe unaligned.
        let at = |i: usize| unsafe { (src as *const f32).add(i).read_unaligned() };
        crate::panels::pack(at, k, n, transposed, out);
        blocks.push(block);
        table.push(block as *const u8);
    }
    Ok((table, blocks))
}

/// Whether the library reads any weight from its weights file.
fn wanted_weights(spec: &StateSpec) -> bool {
    // SAFETY: the spec is a well-formed constant.
    unsafe { slice(spec.weights, spec.nweights) }
        .iter()
        .any(|w| !w.name.is_null())
}

/// `<NAME>_create`: a new context in `*out`, its weights mapped from
/// `weights_path` (NULL: the library has no external weights).
///
/// # Safety
/// `spec` is the library's constant state spec; `out` is NULL or writable;
/// `weights_path` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_context_create(
    spec: *const StateSpec,
    out: *mut *mut Context,
    weights_path: *const c_char,
) -> i32 {
    begin_call();
    // SAFETY: the generated code passes its constant spec.
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return fail(Status::Internal, "agc: missing state spec");
    };
    let library = SpecName(spec.library);
    if out.is_null() {
        return fail(
            Status::InvalidArgument,
            format!("{library}_create: ctx is NULL"),
        );
    }
    // SAFETY: checked non-NULL; the caller's slot.
    unsafe { *out = std::ptr::null_mut() };
    let needs_weights = spec.nweights > 0 && wanted_weights(spec);
    let weights = match (needs_weights, weights_path.is_null()) {
        (false, true) => None,
        (false, false) => {
            return fail(
                Status::InvalidArgument,
                format!("{library}_create: the library reads no weights file (its weights are embedded, or it has none): pass NULL"),
            )
        }
        (true, true) => {
            return fail(
                Status::InvalidArgument,
                format!("{library}_create: the library's weights are external: pass the path of {library}.weights"),
            )
        }
        (true, false) => {
            // SAFETY: a NUL-terminated string (caller contract).
            let path = unsafe { CStr::from_ptr(weights_path) }.to_string_lossy().into_owned();
            if crate::device::kind() == crate::device::Kind::Cuda {
                if let Err(e) = crate::device::driver::current() {
                    return fail(Status::DeviceUnavailable, format!("{library}_create: {e}"));
                }
            }
            match Mapping::open(&path) {
                Ok(m) => Some((m, path)),
                Err(e) => return fail(Status::InvalidArgument, format!("{library}_create: {e}")),
            }
        }
    };
    let mut table = match &weights {
        Some((map, path)) => match weight_table(spec, map, path) {
            Ok(t) => t,
            Err(e) => return fail(Status::InvalidArgument, format!("{library}_create: {e}")),
        },
        None => Vec::new(),
    };
    // A CUDA library's kernels read the weights from a managed copy (an
    // emulated one makes the same copy, in host memory).
    let mut device_copy = None;
    let on_device = crate::device::kind() != crate::device::Kind::Cpu;
    if let (Some((map, _)), true) = (&weights, on_device) {
        match crate::device::copy_weights(map.bytes(), &mut table) {
            Ok(block) => device_copy = Some(block),
            Err(e) => return fail(Status::DeviceError, format!("{library}_create: {e}")),
        }
    }
    let (table, mut panels) = match pack_weights(spec, table) {
        Ok(t) => t,
        Err(e) => {
            if let Some(block) = device_copy {
                // SAFETY: the copy made above, owned by nobody else.
                unsafe { crate::alloc::release(block) };
            }
            return fail(Status::OutOfMemory, format!("{library}_create: {e}"));
        }
    };
    panels.extend(device_copy);
    let vars = match crate::variables::initial_values(spec, &table) {
        Ok(v) => v,
        Err((status, e)) => return fail(status, format!("{library}_create: {e}")),
    };
    let ctx = Box::new(Context {
        magic: MAGIC,
        spec,
        table,
        panels,
        _weights: weights.map(|(m, _)| m),
        lock: RwLock::new(),
        retired: UnsafeCell::new(Vec::with_capacity(vars.len())),
        fresh: UnsafeCell::new(Vec::with_capacity(vars.len())),
        vars: UnsafeCell::new(vars),
    });
    // SAFETY: checked non-NULL above.
    unsafe { *out = Box::into_raw(ctx) };
    0
}

/// `<NAME>_destroy`: frees a context (NULL is ignored, and so is anything
/// that is not a live context of the library `spec` describes).
///
/// # Safety
/// `ctx` is NULL or a context from [`agc_rt_context_create`] that no call is using.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_context_destroy(spec: *const StateSpec, ctx: *mut Context) {
    // SAFETY: NULL or a context of this library (caller contract); the marker
    // catches a double destroy where the memory was not reused.
    if unsafe { live(ctx, spec) }.is_some() {
        // SAFETY: a live context made by Box::into_raw in create.
        let mut c = unsafe { Box::from_raw(ctx) };
        c.magic = 0;
    }
}

/// The live context `ctx` points to, if it does.
///
/// # Safety
/// `ctx` is NULL or a pointer the caller got from `<NAME>_create`.
pub(crate) unsafe fn live<'a>(ctx: *mut Context, spec: *const StateSpec) -> Option<&'a Context> {
    // SAFETY: NULL or a context pointer (caller contract).
    unsafe { ctx.as_ref() }.filter(|c| c.magic == MAGIC && std::ptr::eq(c.spec, spec))
}

impl Context {
    /// Waits for the lock (`exclusive` for a call that assigns state).
    pub(crate) fn enter(&self, exclusive: bool) {
        self.lock.lock(exclusive);
    }

    /// Releases the lock; an exclusive call frees the buffers it replaced.
    pub(crate) fn leave(&self, exclusive: bool) {
        if exclusive {
            // SAFETY: the exclusive lock is held.
            for b in unsafe { &mut *self.retired.get() }.drain(..) {
                b.free();
            }
        }
        self.lock.unlock();
    }
}

/// Starts a call of export `spec` on `ctx`: waits for the lock (exclusive
/// when the export assigns variables), writes the variables' descriptors
/// into `descs` after the parameters', and returns the weight table (a
/// non-NULL pointer even when empty); NULL with an error message when
/// `ctx` is not a live context.
///
/// # Safety
/// `ctx` is NULL or a pointer the caller got from `<NAME>_create`; `spec`
/// is the export's signature and `descs` its descriptor buffer.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_context_enter(
    ctx: *mut Context,
    spec: *const crate::spec::FuncSpec,
    descs: *mut i64,
) -> *const *const u8 {
    // SAFETY: the generated code passes its constant signature.
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        fail(Status::Internal, "agc: missing signature");
        return std::ptr::null();
    };
    // SAFETY: as this function's.
    match unsafe { live(ctx, spec.context_spec) } {
        Some(c) => {
            c.enter(spec.nassigns > 0);
            // SAFETY: the lock is held; `descs` is the export's buffer.
            unsafe { crate::variables::describe(c, spec, descs) };
            if c.table.is_empty() {
                std::ptr::NonNull::dangling().as_ptr()
            } else {
                c.table.as_ptr()
            }
        }
        None => {
            fail(
                Status::InvalidArgument,
                format!("{}: ctx is not a live context of this library", spec.name()),
            );
            std::ptr::null()
        }
    }
}

/// Ends a call of export `spec` begun by [`agc_rt_context_enter`].
///
/// # Safety
/// `ctx` is the context a successful `agc_rt_context_enter` returned for.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_context_leave(
    ctx: *mut Context,
    spec: *const crate::spec::FuncSpec,
) {
    // SAFETY: a live context and the export's signature (caller contract).
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return;
    };
    // SAFETY: as above.
    if let Some(c) = unsafe { live(ctx, spec.context_spec) } {
        c.leave(spec.nassigns > 0);
    }
}
