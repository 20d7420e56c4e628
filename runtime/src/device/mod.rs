//! The device of a `--target cuda` library: which one (the GPU through the
//! CUDA driver, or the same library with its kernels emulated on the host
//! for testing), its memory, and the copies between the caller's tensors
//! and the library's buffers.
//!
//! Memory model: every buffer of a CUDA library is CUDA managed memory
//! (`cuMemAllocManaged`), so that kernels launched on the GPU and the host
//! code around them (staged control flow, recursion, continuations, runtime
//! helpers) read the same buffers; every launch is synchronised before host
//! code runs on. The caller's arguments (`kDLCUDA` device memory, which host
//! code cannot read) are copied into managed buffers when a call starts
//! ([`import_copy`]) and freed when it ends ([`release_copies`]); results
//! are managed buffers handed out as `kDLCUDA` tensors. Host data that
//! kernels read in place (constants, embedded weights) is registered with
//! the driver once ([`DeviceSpec::data_begin`]); a context copies the
//! weights file it maps into managed memory ([`copy_weights`]).
//!
//! A CPU library never calls into this module beyond [`kind`], which is
//! [`Kind::Cpu`] there.

pub mod driver;
pub mod mgpu;

use crate::error::{fail, Status};
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// `kDLCUDA`: the device type of a CUDA library's tensors.
pub const DEVICE_CUDA: i32 = 2;

/// Where a library's kernels run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The host CPU.
    Cpu = 0,
    /// An NVIDIA GPU through the CUDA driver.
    Cuda = 1,
    /// The CUDA library's host code with its kernels compiled for the host
    /// (a test build: tensors are tagged `kDLCUDA` but live in host memory).
    CudaEmulated = 2,
}

/// The device constant of a CUDA library, emitted by agc.
#[repr(C)]
#[derive(Debug)]
pub struct DeviceSpec {
    /// [`Kind`] as an integer.
    pub kind: i64,
    /// The library's host data that kernels read in place (constants and
    /// embedded weights, one linker section): `[data_begin, data_end)`.
    pub data_begin: *const u8,
    /// End of that data.
    pub data_end: *const u8,
}

/// The library's device kind, set once by [`agc_rt_device_init`] when the
/// library is loaded (0 in CPU libraries, which never call it).
static KIND: AtomicU8 = AtomicU8::new(Kind::Cpu as u8);

impl Kind {
    /// The kind numbered `code` (as in [`DeviceSpec::kind`]); the CPU for any other number.
    fn from_code(code: i64) -> Kind {
        match code {
            1 => Kind::Cuda,
            2 => Kind::CudaEmulated,
            _ => Kind::Cpu,
        }
    }
}

/// The library's device kind.
pub fn kind() -> Kind {
    Kind::from_code(i64::from(KIND.load(Ordering::Relaxed)))
}

/// The DLPack device type of the library's tensors.
pub fn device_type() -> i32 {
    match kind() {
        Kind::Cpu => crate::dlpack::DEVICE_CPU,
        Kind::Cuda | Kind::CudaEmulated => DEVICE_CUDA,
    }
}

/// Called from the library's constructor (before any allocation): records
/// the device kind. Touches no driver.
///
/// # Safety
/// `spec` is NULL or the library's constant [`DeviceSpec`].
#[no_mangle]
pub unsafe extern "C" fn agc_rt_device_init(spec: *const DeviceSpec) {
    // SAFETY: caller contract.
    if let Some(spec) = unsafe { spec.as_ref() } {
        KIND.store(Kind::from_code(spec.kind) as u8, Ordering::Relaxed);
    }
}

/// Starts a call on the library's device: loads the driver on first use,
/// makes its context current on this thread and registers the library's
/// kernel-read host data. Returns 0, or a status with the last error set
/// (`DEVICE_UNAVAILABLE` without a driver or a GPU).
///
/// # Safety
/// `spec` is NULL or the library's constant [`DeviceSpec`].
pub unsafe fn enter(spec: *const DeviceSpec, name: &dyn std::fmt::Display) -> i32 {
    if kind() != Kind::Cuda {
        return Status::Ok as i32;
    }
    let d = match driver::current() {
        Ok(d) => d,
        Err(m) => return fail(Status::DeviceUnavailable, format!("{name}: {m}")),
    };
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    // SAFETY: caller contract.
    let spec = unsafe { spec.as_ref() };
    let registered = REGISTERED.get_or_init(|| match spec {
        Some(s) if !s.data_begin.is_null() && s.data_end > s.data_begin => {
            register(d, s.data_begin, s.data_end)
        }
        _ => Ok(()),
    });
    if let Err(m) = registered {
        return fail(Status::DeviceError, format!("{name}: {m}"));
    }
    Status::Ok as i32
}

/// Registers the pages of `[begin, end)` with the driver (pinned, mapped at
/// the same address on the device). The section is writable data, so no
/// read-only registration (which not every system supports) is needed.
fn register(d: &driver::Loaded, begin: *const u8, end: *const u8) -> Result<(), String> {
    const PAGE: usize = 4096;
    let first = begin as usize / PAGE * PAGE;
    let last = (end as usize).next_multiple_of(PAGE);
    // SAFETY: whole pages of the library's own mapped data segment.
    let code = unsafe {
        (d.api.mem_host_register)(
            first as *mut c_void,
            last - first,
            driver::HOST_REGISTER_MAPPED,
        )
    };
    if code == driver::ERROR_ALREADY_REGISTERED {
        return Ok(());
    }
    driver::check(
        &d.api,
        code,
        "cannot map the library's constants for the GPU (cuMemHostRegister)",
    )
}

/// A library block (managed memory) holding a copy of the weights file
/// `bytes`, with every entry of `table` that points into `bytes` moved to
/// the same offset in the copy: kernels read the weights from it.
pub fn copy_weights(bytes: &[u8], table: &mut [*const u8]) -> Result<*mut c_void, String> {
    let block = crate::alloc::allocate(bytes.len());
    if block.is_null() {
        return Err(format!(
            "out of memory: cannot copy the weights ({} bytes) for the GPU",
            bytes.len()
        ));
    }
    // SAFETY: a fresh block of `bytes.len()` bytes.
    if let Err(e) = unsafe { copy(block as *mut u8, bytes.as_ptr(), bytes.len()) } {
        // SAFETY: the block just allocated.
        unsafe { crate::alloc::release(block) };
        return Err(e);
    }
    let range = bytes.as_ptr_range();
    for entry in table.iter_mut() {
        if range.contains(entry) {
            let offset = *entry as usize - range.start as usize;
            *entry = (block as *const u8).wrapping_add(offset);
        }
    }
    Ok(block)
}

/// `bytes` of the library's device memory (managed), or NULL.
pub fn raw_alloc(bytes: usize) -> *mut c_void {
    if kind() != Kind::Cuda {
        // SAFETY: a plain allocation.
        return unsafe { crate::alloc::malloc(bytes) };
    }
    let Ok(d) = driver::current() else {
        return std::ptr::null_mut();
    };
    let mut p = 0usize;
    // SAFETY: an out-pointer for the new block.
    let code =
        unsafe { (d.api.mem_alloc_managed)(&mut p, bytes.max(1), driver::MEM_ATTACH_GLOBAL) };
    if code != 0 {
        return std::ptr::null_mut();
    }
    p as *mut c_void
}

/// Frees a block of [`raw_alloc`].
///
/// # Safety
/// `p` came from [`raw_alloc`] and is freed once.
pub unsafe fn raw_free(p: *mut c_void) {
    if kind() != Kind::Cuda {
        // SAFETY: caller contract.
        return unsafe { crate::alloc::free(p) };
    }
    if let Ok(d) = driver::current() {
        // SAFETY: caller contract.
        unsafe { (d.api.mem_free)(p as usize) };
    }
}

/// Copies `bytes` from `src` to `dst`, either of which may be device
/// memory (the driver's unified addressing tells which).
///
/// # Safety
/// Both ranges are valid for `bytes` bytes and do not overlap.
pub unsafe fn copy(dst: *mut u8, src: *const u8, bytes: usize) -> Result<(), String> {
    if kind() != Kind::Cuda {
        // SAFETY: caller contract.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes) };
        return Ok(());
    }
    let d = driver::current()?;
    // SAFETY: caller contract.
    let code = unsafe { (d.api.memcpy)(dst as usize, src as usize, bytes) };
    driver::check(&d.api, code, "cuMemcpy")
}

thread_local! {
    /// The library's copies of the running call's arguments.
    static ARG_COPIES: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// A library buffer holding a copy of the `bytes` at `src` (a caller's
/// device tensor), freed by [`release_copies`] when the call ends.
///
/// # Safety
/// `src` is valid for `bytes` bytes.
pub unsafe fn import_copy(src: *const u8, bytes: usize) -> Result<*mut c_void, String> {
    let p = crate::alloc::allocate(bytes);
    if p.is_null() {
        return Err(format!(
            "out of memory: cannot copy an argument of {bytes} bytes"
        ));
    }
    let listed = ARG_COPIES.with(|c| {
        let mut c = c.borrow_mut();
        c.try_reserve(1).map(|()| c.push(p as usize)).is_ok()
    });
    if !listed {
        // SAFETY: the block just allocated.
        unsafe { crate::alloc::release(p) };
        return Err("out of memory: cannot record an argument copy".into());
    }
    // SAFETY: a fresh block of `bytes` bytes; `src` per caller contract.
    unsafe { copy(p as *mut u8, src, bytes)? };
    Ok(p)
}

/// Frees the running call's argument copies ([`import_copy`]); nothing
/// (not even a thread-local access) in a CPU library, which makes none.
pub fn release_copies() {
    if kind() == Kind::Cpu {
        return;
    }
    ARG_COPIES.with(|c| {
        for p in c.borrow_mut().drain(..) {
            // SAFETY: blocks of `import_copy`, each listed once (release
            // does not touch this list).
            unsafe { crate::alloc::release(p as *mut c_void) };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weights_copy_moves_the_entries_into_it() {
        let file: Vec<u8> = (0..64u8).collect();
        let outside = 7u8;
        let mut table = [
            file.as_ptr().wrapping_add(8),
            std::ptr::null(),
            &outside as *const u8,
            file.as_ptr().wrapping_add(63),
        ];
        let block = copy_weights(&file, &mut table).unwrap() as *const u8;
        assert_eq!(table[0], block.wrapping_add(8));
        assert!(table[1].is_null());
        assert_eq!(table[2], &outside as *const u8);
        assert_eq!(table[3], block.wrapping_add(63));
        // SAFETY: the copy holds the file's 64 bytes.
        assert_eq!(unsafe { std::slice::from_raw_parts(block, 64) }, &file[..]);
        // SAFETY: the block copy_weights allocated.
        unsafe { crate::alloc::release(block as *mut c_void) };
    }
}
