//! A read-only, private mapping of a whole file (`<NAME>.weights`): the
//! pages are read on demand and shared with every other mapping of the file.

use std::ffi::c_void;

/// A read-only mapping of a whole file.
pub struct Mapping {
    base: *mut c_void,
    len: usize,
}

extern "C" {
    fn mmap(
        addr: *mut c_void,
        len: usize,
        prot: i32,
        flags: i32,
        fd: i32,
        offset: i64,
    ) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> i32;
}
const PROT_READ: i32 = 1;
const MAP_PRIVATE: i32 = 2;
const MAP_FAILED: *mut c_void = !0usize as *mut c_void;

impl Mapping {
    /// Maps the file at `path`.
    pub fn open(path: &str) -> Result<Mapping, String> {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open '{path}': {e}"))?;
        let len = file
            .metadata()
            .map_err(|e| format!("cannot read '{path}': {e}"))?
            .len();
        let len = usize::try_from(len).map_err(|_| format!("'{path}' is too large"))?;
        if len == 0 {
            return Err(format!("'{path}' is empty"));
        }
        // SAFETY: a fresh read-only private mapping of an open file.
        let base = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                PROT_READ,
                MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if base == MAP_FAILED {
            return Err(format!(
                "cannot map '{path}': {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(Mapping { base, len })
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is live and `len` bytes long.
        unsafe { std::slice::from_raw_parts(self.base as *const u8, self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping what `open` mapped, once.
        unsafe { munmap(self.base, self.len) };
    }
}
