//! Status codes, the thread-local last error, and the pending kernel status.
//!
//! Every call of an exported function starts by clearing this thread's error
//! state ([`begin_call`]); a failure stores a message that
//! `<NAME>_last_error()` returns until the next call on the same thread.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CStr};

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
    /// A `--target cuda` library found no CUDA driver or no GPU.
    DeviceUnavailable = 7,
    /// The CUDA driver failed (a launch, a copy, a kernel fault).
    DeviceError = 8,
}

/// Bytes of a last-error message kept, its NUL included (a longer message is
/// cut, ending in `...`).
const MESSAGE_BYTES: usize = 2048;

/// A thread's last error: a NUL-terminated message in a fixed buffer, so
/// that recording one allocates nothing (an out-of-memory failure must be
/// reportable when no allocation succeeds any more).
struct Message {
    bytes: [u8; MESSAGE_BYTES],
    /// Length of the text; `bytes[len]` is NUL.
    len: usize,
}

impl Message {
    fn clear(&mut self) {
        self.len = 0;
        self.bytes[0] = 0;
    }

    /// Appends `s` up to its first NUL, as much as fits.
    fn push(&mut self, s: &str) {
        let s = s.split('\0').next().unwrap_or("");
        let room = MESSAGE_BYTES - 1 - self.len;
        let take = if s.len() <= room {
            s.len()
        } else {
            let mut cut = room.saturating_sub(3);
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            cut
        };
        self.bytes[self.len..self.len + take].copy_from_slice(&s.as_bytes()[..take]);
        self.len += take;
        if take < s.len() {
            let dots = (MESSAGE_BYTES - 1 - self.len).min(3);
            self.bytes[self.len..self.len + dots].copy_from_slice(&b"..."[..dots]);
            self.len += dots;
        }
        self.bytes[self.len] = 0;
    }

    fn text(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl std::fmt::Write for Message {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push(s);
        Ok(())
    }
}

thread_local! {
    /// Empty means no error (`""`).
    static LAST_ERROR: RefCell<Message> = const {
        RefCell::new(Message { bytes: [0; MESSAGE_BYTES], len: 0 })
    };
    /// The status raised by a kernel during the current call, 0 if none.
    static PENDING: Cell<i32> = const { Cell::new(0) };
}

/// Records `message` as this thread's last error and returns `status`.
pub fn fail(status: Status, message: impl Into<String>) -> i32 {
    set_message(format_args!("{}", message.into()));
    status as i32
}

/// Replaces this thread's last error with `message`, allocating nothing.
fn set_message(message: std::fmt::Arguments) {
    // try_with: during thread teardown the slot may be gone; drop the message.
    let _ = LAST_ERROR.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        slot.clear();
        let _ = std::fmt::Write::write_fmt(&mut *slot, message);
    });
}

/// Clears the last error and the pending status at the start of a call.
pub fn begin_call() {
    let _ = LAST_ERROR.try_with(|slot| slot.borrow_mut().clear());
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
        .try_with(|slot| slot.borrow().bytes.as_ptr() as *const c_char)
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
    raise_code(status, format_args!("{text}"));
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
    raise_code(status as i32, format_args!("{message}"));
}

/// [`raise`] of a message formatted into the last-error buffer: allocates
/// nothing (for out-of-memory failures).
pub fn raise_fmt(status: Status, message: std::fmt::Arguments) {
    raise_code(status as i32, message);
}

fn raise_code(status: i32, message: std::fmt::Arguments) {
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
        let text = slot.text();
        if text
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with(": "))
        {
            return;
        }
        let old = Message {
            bytes: slot.bytes,
            len: slot.len,
        };
        slot.clear();
        slot.push(name);
        slot.push(": ");
        slot.push(old.text());
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
    fn long_messages_are_cut_at_a_character_and_prefixed_once() {
        begin_call();
        let long = "é".repeat(MESSAGE_BYTES);
        fail(Status::Internal, long);
        let got = last();
        assert!(got.len() < MESSAGE_BYTES && got.ends_with("...") && got.starts_with("éé"));
        fail(Status::Internal, "shape mismatch");
        prefix_message("predict");
        prefix_message("predict");
        assert_eq!(last(), "predict: shape mismatch");
        begin_call();
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
