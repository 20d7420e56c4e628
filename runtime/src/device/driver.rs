//! The CUDA driver, loaded at run time: `dlopen("libcuda.so.1")` on the
//! first call of a `--target cuda` library, the driver functions the
//! library uses looked up by name, the primary context of device 0 made
//! current on each calling thread.
//!
//! Nothing links against CUDA: a library built for CUDA loads on any
//! machine, and on one without a driver or a GPU every call returns
//! `DEVICE_UNAVAILABLE` with the reason ([`driver`]).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

/// `CUresult`.
pub type CuResult = c_int;
/// `CUdevice`.
type CuDevice = c_int;
/// `CUcontext`, `CUmodule`, `CUfunction`, `CUstream`, `CUdeviceptr` (as an address).
pub type Handle = *mut c_void;

/// `CU_MEM_ATTACH_GLOBAL`: managed memory any stream may access.
pub const MEM_ATTACH_GLOBAL: c_uint = 1;
/// `CU_STREAM_PER_THREAD`: the calling thread's default stream.
pub const STREAM_PER_THREAD: Handle = 2 as Handle;
/// `CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP`.
pub const HOST_REGISTER_MAPPED: c_uint = 0x1 | 0x2;
/// `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`: the pages are registered already.
pub const ERROR_ALREADY_REGISTERED: CuResult = 712;

macro_rules! driver_api {
    ($($field:ident = $symbol:literal : fn($($arg:ty),*);)*) => {
        /// The driver functions a library calls, resolved from `libcuda.so.1`.
        pub struct Driver {
            $(
                #[doc = concat!("`", $symbol, "`.")]
                pub $field: unsafe extern "C" fn($($arg),*) -> CuResult,
            )*
        }

        impl Driver {
            /// Resolves every function from the driver library `lib`.
            ///
            /// # Safety
            /// `lib` is a handle from `dlopen`.
            unsafe fn resolve(lib: *mut c_void) -> Result<Driver, String> {
                Ok(Driver {
                    $(
                        // SAFETY: the symbol has this signature in every CUDA
                        // 11/12 driver (cuda.h), under this versioned name.
                        $field: unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) -> CuResult>(symbol(lib, concat!($symbol, "\0"))?) },
                    )*
                })
            }
        }
    };
}

driver_api! {
    init = "cuInit": fn(c_uint);
    device_get_count = "cuDeviceGetCount": fn(*mut c_int);
    device_get = "cuDeviceGet": fn(*mut CuDevice, c_int);
    primary_ctx_retain = "cuDevicePrimaryCtxRetain": fn(*mut Handle, CuDevice);
    ctx_set_current = "cuCtxSetCurrent": fn(Handle);
    module_load_data = "cuModuleLoadData": fn(*mut Handle, *const c_void);
    module_get_function = "cuModuleGetFunction": fn(*mut Handle, Handle, *const c_char);
    launch_kernel = "cuLaunchKernel": fn(Handle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Handle, *mut *mut c_void, *mut *mut c_void);
    stream_synchronize = "cuStreamSynchronize": fn(Handle);
    mem_alloc_managed = "cuMemAllocManaged": fn(*mut usize, usize, c_uint);
    mem_free = "cuMemFree_v2": fn(usize);
    memcpy = "cuMemcpy": fn(usize, usize, usize);
    mem_host_register = "cuMemHostRegister_v2": fn(*mut c_void, usize, c_uint);
    get_error_string = "cuGetErrorString": fn(CuResult, *mut *const c_char);
}

extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}

/// `RTLD_NOW | RTLD_LOCAL`.
const RTLD_NOW: c_int = 2;

/// The text of the last `dlerror`, or `fallback`.
fn dl_error(fallback: &str) -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string.
    let e = unsafe { dlerror() };
    if e.is_null() {
        fallback.to_string()
    } else {
        // SAFETY: as above.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// `name` (NUL-terminated) in `lib`.
///
/// # Safety
/// `lib` is a handle from `dlopen`.
unsafe fn symbol(lib: *mut c_void, name: &str) -> Result<*mut c_void, String> {
    // SAFETY: a live handle and a NUL-terminated name.
    let p = unsafe { dlsym(lib, name.as_ptr() as *const c_char) };
    if p.is_null() {
        let name = name.trim_end_matches('\0');
        return Err(format!(
            "the CUDA driver lacks {name} ({}): it is older than CUDA 11",
            dl_error("not found")
        ));
    }
    Ok(p)
}

/// The loaded driver and the primary context of device 0.
pub struct Loaded {
    /// The driver's functions.
    pub api: Driver,
    /// The primary context of device 0, retained for the life of the process.
    pub context: Handle,
}

// SAFETY: the function pointers and the context handle are valid on every
// thread (the driver API is thread-safe; a context may be current on many).
unsafe impl Send for Loaded {}
// SAFETY: as above.
unsafe impl Sync for Loaded {}

/// The driver's message for `code`.
pub fn message(api: &Driver, code: CuResult) -> String {
    let mut s: *const c_char = std::ptr::null();
    // SAFETY: an out-pointer for a static string.
    let known = unsafe { (api.get_error_string)(code, &mut s) } == 0 && !s.is_null();
    if known {
        // SAFETY: the driver's static NUL-terminated string.
        let text = unsafe { CStr::from_ptr(s) }.to_string_lossy();
        format!("{text} (CUDA error {code})")
    } else {
        format!("CUDA error {code}")
    }
}

/// Fails with the driver's message when `code` is not `CUDA_SUCCESS`.
pub fn check(api: &Driver, code: CuResult, what: &str) -> Result<(), String> {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{what}: {}", message(api, code)))
    }
}

/// Loads the driver and retains device 0's primary context.
fn load() -> Result<Loaded, String> {
    // SAFETY: a NUL-terminated library name.
    let lib = unsafe { dlopen(c"libcuda.so.1".as_ptr(), RTLD_NOW) };
    if lib.is_null() {
        return Err(format!(
            "no CUDA driver: {} (this library was built with --target cuda and needs an NVIDIA GPU and its driver)",
            dl_error("libcuda.so.1 cannot be loaded")
        ));
    }
    // SAFETY: a handle just returned by dlopen.
    let api = unsafe { Driver::resolve(lib)? };
    // SAFETY: plain driver calls with valid out-pointers.
    unsafe {
        check(&api, (api.init)(0), "no usable CUDA driver (cuInit)")?;
        let mut count = 0;
        check(&api, (api.device_get_count)(&mut count), "cuDeviceGetCount")?;
        if count < 1 {
            return Err("no CUDA device: the driver reports no GPU".into());
        }
        let mut dev = 0;
        check(&api, (api.device_get)(&mut dev, 0), "cuDeviceGet")?;
        let mut context = std::ptr::null_mut();
        check(
            &api,
            (api.primary_ctx_retain)(&mut context, dev),
            "cuDevicePrimaryCtxRetain",
        )?;
        Ok(Loaded { api, context })
    }
}

/// The driver, loaded on first use (the outcome, failure included, is kept).
pub fn driver() -> Result<&'static Loaded, &'static str> {
    static DRIVER: OnceLock<Result<Loaded, String>> = OnceLock::new();
    DRIVER.get_or_init(load).as_ref().map_err(String::as_str)
}

thread_local! {
    /// Whether the primary context is current on this thread.
    static CURRENT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The driver, with its context current on the calling thread.
pub fn current() -> Result<&'static Loaded, String> {
    let d = driver().map_err(str::to_string)?;
    if !CURRENT.with(|c| c.get()) {
        // SAFETY: a context retained by `load`.
        check(
            &d.api,
            unsafe { (d.api.ctx_set_current)(d.context) },
            "cuCtxSetCurrent",
        )?;
        CURRENT.with(|c| c.set(true));
    }
    Ok(d)
}
