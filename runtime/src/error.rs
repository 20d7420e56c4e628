//! Status codes, the thread-local last error, and the pending kernel status.
//!
//! Every call of an exported function starts by clearing this thread's error
//! state ([`begin_call`]); a failure stores a message that
//! `<NAME>_last_error()` returns until the next call on the same thread.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CStr, CString};

/// The status an exported function returns (the numbering is part of the ABI
/// and mirrored by `AGC_STATUS_*` in every generated header).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// An argument does not match the signature (NULL, dtype, rank, shape,
    /// symbolic dim, strides, device).
    InvalidArgument = 1,
    /// An allocation failed.
    OutOfMemory = 2,
    /// An index was out of range at run time.
    IndexOutOfRange = 3,
    /// A staged recursion went deeper than the library allows.
    RecursionTooDeep = 4,
    /// Anything else: a bug in agc or the library.
    Internal = 5,
    /// The running CPU lacks features the library was compiled for.
    UnsupportedCpu = 6,
}

thread_local! {
    /// `None` means no error (`""`).
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
    /// The status raised by a kernel during the current call, 0 if none.
    static PENDING: Cell<i32> = const { Cell::new(0) };
}

/// Records `message` as this thread's last error and returns `status`.
pub fn fail(status: Status, message: impl Into<String>) -> i32 {
    set_message(message.into());
    status as i32
}

fn set_message(message: String) {
    // Interior NULs cannot appear in a C string: cut the message there.
    let mut bytes = message.into_bytes();
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(nul);
    }
    let c = CString::new(bytes).unwrap_or_default();
    // try_with: during thread teardown the slot may be gone; drop the message.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = Some(c));
}

/// Clears the last error and the pending status at the start of a call.
pub fn begin_call() {
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = None);
    let _ = PENDING.try_with(|p| p.set(0));
}

/// The status a kernel raised during this call (0 if none), left in place.
pub fn pending() -> i32 {
    PENDING.try_with(|p| p.get()).unwrap_or(0)
}

/// Takes the status a kernel raised during this call (0 if none).
pub fn take_pending() -> i32 {
    PENDING.try_with(|p| p.replace(0)).unwrap_or(0)
}

/// This thread's last error message: `""` if the last call succeeded. The
/// pointer stays valid until the next call into the library on this thread.
#[no_mangle]
pub extern "C" fn agc_rt_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_ref().map_or(c"".as_ptr(), |c| c.as_ptr()))
        .unwrap_or(c"agc: error state unavailable during thread exit".as_ptr())
}

/// Called by kernels to report a run-time failure: records `message` and
/// `status` (one of [`Status`]); the first raise of a call wins. The exported
/// function returns `status` once the kernel has returned.
///
/// # Safety
/// `message` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_raise(status: i32, message: *const c_char) {
    let text = if message.is_null() {
        "run-time error".to_string()
    } else {
        // SAFETY: the caller passes a NUL-terminated string.
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    };
    raise_code(status, text);
}

/// Called by kernels when an integer index is out of range: raises
/// [`Status::IndexOutOfRange`] with numpy's message, `index 5 is out of
/// bounds for axis 0 with size 3`, followed by ` (line L)` when `line` > 0.
#[no_mangle]
pub extern "C" fn agc_rt_raise_index(index: i64, size: i64, axis: i64, line: i64) {
    let mut msg = format!("index {index} is out of bounds for axis {axis} with size {size}");
    if line > 0 {
        msg.push_str(&format!(" (line {line})"));
    }
    raise(Status::IndexOutOfRange, msg);
}

/// Called by kernels when `max`, `min`, `argmax` or `argmin` (`kind` 0 to
/// 3) reduce over no elements, which numpy refuses with a `ValueError`:
/// raises [`Status::InvalidArgument`] with numpy's message.
#[no_mangle]
pub extern "C" fn agc_rt_raise_empty(kind: i64) {
    let msg = match kind {
        0 | 1 => format!(
            "zero-size array to reduction operation {} which has no identity",
            if kind == 0 { "maximum" } else { "minimum" }
        ),
        _ => format!(
            "attempt to get {} of an empty sequence",
            if kind == 2 { "argmax" } else { "argmin" }
        ),
    };
    raise(Status::InvalidArgument, msg);
}

/// Called by kernels when a staged check fails (`assert`, `raise`, a numpy
/// error such as stacking an empty list): `len` bytes of UTF-8 at address
/// `addr` say why, `line` is the source line (0: unknown).
#[no_mangle]
pub extern "C" fn agc_rt_raise_message(addr: i64, len: i64, line: i64) {
    let text = if addr == 0 || len <= 0 {
        String::from("a staged check failed")
    } else {
        // SAFETY: the generated code passes a constant global of `len` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(addr as usize as *const u8, len as usize) };
        String::from_utf8_lossy(bytes).into_owned()
    };
    let msg = if line > 0 {
        format!("line {line}: {text}")
    } else {
        text
    };
    raise(Status::InvalidArgument, msg);
}

/// Called by kernels when a tensor's run-time size on `axis` is `got`
/// where the IR's types promise `expected` (a bug in agc): raises
/// [`Status::Internal`].
#[no_mangle]
pub extern "C" fn agc_rt_raise_size(got: i64, expected: i64, axis: i64) {
    raise(
        Status::Internal,
        format!(
            "internal error: inconsistent run-time sizes (axis {axis} has size {got} where {expected} was expected); please report this bug"
        ),
    );
}

/// [`agc_rt_raise`] from Rust: the first raise of a call wins.
pub fn raise(status: Status, message: String) {
    raise_code(status as i32, message);
}

fn raise_code(status: i32, message: String) {
    let status = if status == 0 {
        Status::Internal as i32
    } else {
        status
    };
    let first = PENDING.try_with(|p| {
        if p.get() == 0 {
            p.set(status);
            true
        } else {
            false
        }
    });
    if first == Ok(true) {
        set_message(message);
    }
}

/// True while no error was raised during the current call (kernels stop
/// loops and skip calls once this is false).
#[no_mangle]
pub extern "C" fn agc_rt_ok() -> i32 {
    PENDING.try_with(|p| i32::from(p.get() == 0)).unwrap_or(1)
}

/// Takes the status raised during this call (0 if none), as
/// [`take_pending`] does: for host code that calls kernels directly (the
/// backend's kernel tests) rather than through an exported function.
#[no_mangle]
pub extern "C" fn agc_rt_take_status() -> i32 {
    take_pending()
}

/// Prefixes the pending message with `name: ` (the exported function's
/// name), once the call has failed.
pub fn prefix_message(name: &str) {
    let _ = LAST_ERROR.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        let text = slot
            .as_ref()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !text.starts_with(&format!("{name}: ")) {
            *slot = CString::new(format!("{name}: {text}")).ok();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        // SAFETY: agc_rt_last_error returns a valid C string.
        unsafe { CStr::from_ptr(agc_rt_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn fail_sets_and_begin_clears() {
        assert_eq!(fail(Status::InvalidArgument, "bad\0tail"), 1);
        assert_eq!(last(), "bad");
        begin_call();
        assert_eq!(last(), "");
    }

    #[test]
    fn first_raise_wins() {
        begin_call();
        // SAFETY: literal C strings.
        unsafe {
            agc_rt_raise(3, c"index 9 out of range".as_ptr());
            agc_rt_raise(4, c"later".as_ptr());
        }
        assert_eq!(take_pending(), 3);
        assert_eq!(take_pending(), 0);
        assert_eq!(last(), "index 9 out of range");
    }

    #[test]
    fn index_errors_read_like_numpy_and_get_the_function_name() {
        begin_call();
        assert_eq!(agc_rt_ok(), 1);
        agc_rt_raise_index(-5, 4, 1, 0);
        assert_eq!(agc_rt_ok(), 0);
        agc_rt_raise_index(9, 4, 0, 12);
        prefix_message("f");
        prefix_message("f");
        assert_eq!(agc_rt_take_status(), 3);
        assert_eq!(
            last(),
            "f: index -5 is out of bounds for axis 1 with size 4"
        );
        begin_call();
        agc_rt_raise_index(9, 4, 0, 12);
        assert_eq!(
            last(),
            "index 9 is out of bounds for axis 0 with size 4 (line 12)"
        );
        assert_eq!(take_pending(), 3);
    }

    #[test]
    fn errors_are_per_thread() {
        fail(Status::Internal, "main");
        std::thread::spawn(|| assert_eq!(last(), ""))
            .join()
            .unwrap();
        assert_eq!(last(), "main");
    }
}
