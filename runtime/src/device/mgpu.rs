//! The GPU runtime functions that MLIR's `gpu-to-llvm` lowering calls
//! (the ABI of MLIR's `CudaRuntimeWrappers`), over [`super::driver`]:
//!
//! - each kernel module's PTX is registered by a constructor of the library
//!   (`mgpuModuleLoadJIT`), which here only records it: the driver is
//!   loaded, and the PTX JIT-compiled for the GPU, at the first launch;
//! - a launch (`mgpuModuleGetFunction`, `mgpuLaunchKernel`,
//!   `mgpuStreamSynchronize`) runs on the calling thread's default stream;
//!   an empty grid launches nothing;
//! - a driver failure abandons the running call with `DEVICE_ERROR` and the
//!   driver's message (never an abort).

use super::driver::{self, Handle};
use crate::abandon::abandon;
use crate::error::Status;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Mutex, OnceLock};

/// A kernel module: its PTX, loaded into the context on first use, and the
/// functions looked up so far.
struct Module {
    /// NUL-terminated PTX, a constant of the library.
    ptx: *const c_void,
    /// The driver's module, once loaded (or why it could not be).
    loaded: OnceLock<Result<usize, String>>,
    /// Kernel name → `CUfunction`.
    functions: Mutex<Vec<(String, usize)>>,
}

/// Records a kernel module's PTX (called by the library's constructors).
///
/// # Safety
/// `ptx` is a NUL-terminated constant that outlives the library.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleLoadJIT(ptx: *mut c_void, _opt_level: i32) -> *mut c_void {
    let m = Box::new(Module {
        ptx,
        loaded: OnceLock::new(),
        functions: Mutex::new(Vec::new()),
    });
    Box::into_raw(m) as *mut c_void
}

/// As [`mgpuModuleLoadJIT`], for a binary image (cubin).
///
/// # Safety
/// As [`mgpuModuleLoadJIT`].
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleLoad(image: *mut c_void, _size: usize) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { mgpuModuleLoadJIT(image, 0) }
}

/// Forgets a module at unload (the driver's copy goes with the context
/// when the process exits).
///
/// # Safety
/// `m` is NULL or a handle of [`mgpuModuleLoadJIT`], unloaded once.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleUnload(m: *mut c_void) {
    if !m.is_null() {
        // SAFETY: caller contract.
        drop(unsafe { Box::from_raw(m as *mut Module) });
    }
}

/// The kernel `name` of module `m`, or NULL after abandoning the call.
///
/// # Safety
/// `m` is a handle of [`mgpuModuleLoadJIT`]; `name` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleGetFunction(m: *mut c_void, name: *const c_char) -> *mut c_void {
    // SAFETY: caller contract.
    let (m, name) = unsafe { (&*(m as *const Module), CStr::from_ptr(name)) };
    match function(m, name) {
        Ok(f) => f as *mut c_void,
        Err(msg) => {
            abandon(Status::DeviceError, format_args!("{msg}"));
            std::ptr::null_mut()
        }
    }
}

/// Looks `name` up in `m`, loading the module first if needed.
fn function(m: &Module, name: &CStr) -> Result<usize, String> {
    let d = driver::current()?;
    let module = m
        .loaded
        .get_or_init(|| {
            let mut h: Handle = std::ptr::null_mut();
            // SAFETY: NUL-terminated PTX (see `mgpuModuleLoadJIT`).
            let code = unsafe { (d.api.module_load_data)(&mut h, m.ptx) };
            driver::check(
                &d.api,
                code,
                "cannot load the library's GPU kernels (cuModuleLoadData)",
            )
            .map(|()| h as usize)
        })
        .clone()?;
    let key = name.to_string_lossy();
    let mut fns = m
        .functions
        .lock()
        .map_err(|_| "kernel table poisoned".to_string())?;
    if let Some(&(_, f)) = fns.iter().find(|(n, _)| *n == key) {
        return Ok(f);
    }
    let mut f: Handle = std::ptr::null_mut();
    // SAFETY: a loaded module and a NUL-terminated name.
    let code = unsafe { (d.api.module_get_function)(&mut f, module as Handle, name.as_ptr()) };
    driver::check(&d.api, code, &format!("kernel {key}"))?;
    fns.push((key.into_owned(), f as usize));
    Ok(f as usize)
}

/// The stream launches run on: the calling thread's default stream.
#[no_mangle]
pub extern "C" fn mgpuStreamCreate() -> *mut c_void {
    driver::STREAM_PER_THREAD
}

/// Streams are the threads' own: nothing to destroy.
#[no_mangle]
pub extern "C" fn mgpuStreamDestroy(_stream: *mut c_void) {}

/// Waits for the work on `stream`; a failure (a kernel fault) abandons the call.
///
/// # Safety
/// `stream` is a handle of [`mgpuStreamCreate`].
#[no_mangle]
pub unsafe extern "C" fn mgpuStreamSynchronize(stream: *mut c_void) {
    let result = driver::current().and_then(|d| {
        // SAFETY: caller contract.
        let code = unsafe { (d.api.stream_synchronize)(stream) };
        driver::check(&d.api, code, "a GPU kernel failed")
    });
    if let Err(msg) = result {
        abandon(Status::DeviceError, format_args!("{msg}"));
    }
}

/// Launches `function` on a grid of `grid` blocks of `block` threads; an
/// empty grid or block launches nothing, a dimension beyond the GPU's range
/// or a driver failure abandons the call.
///
/// # Safety
/// `function` is NULL or from [`mgpuModuleGetFunction`]; `params` holds the
/// kernel's parameter pointers.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mgpuLaunchKernel(
    function: *mut c_void,
    grid_x: isize,
    grid_y: isize,
    grid_z: isize,
    block_x: isize,
    block_y: isize,
    block_z: isize,
    shared_bytes: i32,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    _nparams: usize,
) {
    if function.is_null() {
        return;
    }
    let dims = [grid_x, grid_y, grid_z, block_x, block_y, block_z];
    if dims.contains(&0) {
        return;
    }
    let Ok(d) = dims
        .iter()
        .map(|&n| u32::try_from(n))
        .collect::<Result<Vec<u32>, _>>()
    else {
        abandon(
            Status::DeviceError,
            format_args!("a GPU launch of grid {grid_x}x{grid_y}x{grid_z} and blocks {block_x}x{block_y}x{block_z} is out of range"),
        );
        return;
    };
    let result = driver::current().and_then(|drv| {
        // SAFETY: caller contract; dims checked above.
        let code = unsafe {
            (drv.api.launch_kernel)(
                function,
                d[0],
                d[1],
                d[2],
                d[3],
                d[4],
                d[5],
                shared_bytes.max(0) as u32,
                stream,
                params,
                extra,
            )
        };
        driver::check(
            &drv.api,
            code,
            &format!(
                "launching a GPU kernel (grid {}x{}x{}, blocks {}x{}x{})",
                d[0], d[1], d[2], d[3], d[4], d[5]
            ),
        )
    });
    if let Err(msg) = result {
        abandon(Status::DeviceError, format_args!("{msg}"));
    }
}
