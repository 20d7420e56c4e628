//! Stack safety for staged recursion.
//!
//! - [`agc_rt_enter`] is called at the entry of every IR function that is
//!   the target of a call: it compares the current stack pointer with this
//!   thread's stack limit (minus a safety margin) and, when the stack is
//!   nearly exhausted, raises `RECURSION_TOO_DEEP` and tells the function to
//!   skip its body (it then returns placeholder results, and so does every
//!   call after an error, so the recursion unwinds at once). The process
//!   never crashes on a deep recursion.
//! - [`agc_rt_run`] runs a kernel on a large dedicated stack (64 GiB of
//!   address space per thread by default, see [`crate::stack_reserve`];
//!   mapped lazily with `MAP_NORESERVE` and reused by every call on the
//!   thread, unmapped when the thread exits), so that deep recursions (and
//!   the recursive backward passes of AD through long loops) succeed. The switch is part of the guarded call
//!   of [`crate::abandon`] (inline assembly on x86-64, which also lets a
//!   call that runs out of memory be abandoned); the stack is registered with valgrind
//!   (a client request, a no-op outside valgrind). Where the mapping fails
//!   or on another architecture the kernel runs on the caller's stack, and
//!   the limit comes from `pthread_getattr_np`.
//!
//! Pages a deep call touched are given back (`MADV_DONTNEED`) when the call
//! returns, beyond the first [`KEEP`] bytes.

use crate::error::{agc_rt_ok, raise, Status};
use crate::stack_reserve::{reserve_bytes, MIN_RESERVE};
use std::cell::Cell;
use std::ffi::c_void;

/// Bytes kept free below the limit: room for the frames between two checks
/// (one function's own frame and the runtime or libc functions it calls).
const MARGIN: usize = 256 << 10;
/// An inaccessible guard region at the bottom of the dedicated stack.
const GUARD: usize = 64 << 10;
/// Touched pages of the dedicated stack kept mapped between calls: the
/// backward pass of a recursion keeps a few KiB per node here, and a page
/// given back is faulted in, zeroed, by the next call (at 16 MiB, 20% of the
/// time per node of a 16k-node tree gradient).
const KEEP: usize = 128 << 20;

#[repr(C, align(16))]
struct PthreadAttr([u8; 64]);

extern "C" {
    fn pthread_self() -> usize;
    fn pthread_getattr_np(thread: usize, attr: *mut PthreadAttr) -> i32;
    fn pthread_attr_getstack(
        attr: *const PthreadAttr,
        addr: *mut *mut c_void,
        size: *mut usize,
    ) -> i32;
    fn pthread_attr_destroy(attr: *mut PthreadAttr) -> i32;
    fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64)
        -> *mut c_void;
    fn mprotect(addr: *mut c_void, len: usize, prot: i32) -> i32;
    fn munmap(addr: *mut c_void, len: usize) -> i32;
    fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
}

const PROT_NONE: i32 = 0;
const PROT_READ_WRITE: i32 = 3;
const MAP_PRIVATE: i32 = 0x02;
const MAP_ANONYMOUS: i32 = 0x20;
const MAP_NORESERVE: i32 = 0x4000;
const MAP_STACK: i32 = 0x20000;
const MADV_DONTNEED: i32 = 4;
const PAGE: usize = 4096;

/// This thread's dedicated stack, unmapped when the thread exits.
struct BigStack {
    /// Lowest address of the mapping (0: not mapped; 1: mapping failed).
    base: Cell<usize>,
    /// Bytes of the mapping.
    size: Cell<usize>,
    /// Valgrind's id for the registered stack.
    valgrind_id: Cell<usize>,
}

impl Drop for BigStack {
    fn drop(&mut self) {
        let base = self.base.get();
        if base > 1 {
            valgrind_request(0x1502, self.valgrind_id.get(), 0);
            // SAFETY: our own mapping; no frame lives on it once the thread exits.
            unsafe { munmap(base as *mut c_void, self.size.get()) };
        }
    }
}

thread_local! {
    /// The lowest stack address a check accepts (0: not known yet).
    static LIMIT: Cell<usize> = const { Cell::new(0) };
    /// The size of the stack in use, for the message.
    static STACK_SIZE: Cell<usize> = const { Cell::new(0) };
    /// The lowest stack address a check saw on the dedicated stack.
    static LOWEST: Cell<usize> = const { Cell::new(usize::MAX) };
    static BIG: BigStack = const {
        BigStack {
            base: Cell::new(0),
            size: Cell::new(0),
            valgrind_id: Cell::new(0),
        }
    };
}

/// A valgrind client request with two arguments (a no-op outside valgrind);
/// returns its result, 0 outside valgrind.
#[allow(unused_variables)]
fn valgrind_request(request: usize, a1: usize, a2: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let args: [usize; 6] = [request, a1, a2, 0, 0, 0];
        let mut result: usize = 0;
        // SAFETY: valgrind's documented client-request sequence: the rotations
        // of rdi add up to 128 bits (rdi is unchanged) and `xchg rbx, rbx` is
        // a no-op; under valgrind rdx receives the result.
        unsafe {
            std::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                inout("rdx") result,
                in("rax") args.as_ptr(),
                options(nostack)
            );
        }
        result
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Whether the process runs under valgrind (its `RUNNING_ON_VALGRIND`).
pub(crate) fn running_on_valgrind() -> bool {
    valgrind_request(0x1001, 0, 0) != 0
}

/// The address of a local: the current stack depth.
#[inline(always)]
fn stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// The limit for the thread's own stack, from `pthread_getattr_np`.
fn thread_stack_limit() -> (usize, usize) {
    let mut attr = PthreadAttr([0; 64]);
    let mut addr: *mut c_void = std::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: plain pthread calls on this thread with valid out-pointers.
    let ok = unsafe {
        pthread_getattr_np(pthread_self(), &mut attr) == 0 && {
            let got = pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
            pthread_attr_destroy(&mut attr);
            got
        }
    };
    if !ok || size == 0 {
        // Unknown: assume the usual 8 MiB below the current frame.
        let sp = stack_pointer();
        let size = 8 << 20;
        return (sp.saturating_sub(size - MARGIN), size);
    }
    ((addr as usize).saturating_add(MARGIN), size)
}

/// Checks the stack at the entry of a function that may recurse: 1 to run
/// its body, 0 to skip it (returning placeholders), either because the
/// stack is nearly exhausted (this raises `RECURSION_TOO_DEEP`) or because
/// the call already failed.
#[no_mangle]
pub extern "C" fn agc_rt_enter() -> i32 {
    let sp = stack_pointer();
    let limit = LIMIT.try_with(|l| {
        if l.get() == 0 {
            let (limit, size) = thread_stack_limit();
            l.set(limit);
            let _ = STACK_SIZE.try_with(|s| s.set(size));
        }
        l.get()
    });
    let Ok(limit) = limit else {
        return 0;
    };
    if sp < limit {
        let mib = STACK_SIZE.try_with(|s| s.get()).unwrap_or(0) >> 20;
        raise(
            Status::RecursionTooDeep,
            format!("recursion too deep: a staged recursion exhausted the {mib} MiB stack"),
        );
        return 0;
    }
    let _ = LOWEST.try_with(|l| {
        let lowest = l.get();
        if sp < lowest {
            prefetch_below(sp, lowest);
            l.set(sp);
        }
    });
    agc_rt_ok()
}

/// Bytes of stack below the deepest frame so far that are brought into the
/// cache ahead of use.
const PREFETCH_AHEAD: usize = 4 << 10;
/// Most cache lines one check prefetches.
const PREFETCH_LINES: usize = 64;

/// Prefetches the stack lines the next frames will write as the stack grows
/// from `lowest` (the deepest frame so far) to `sp`: a deep recursion (a
/// gradient's continuations, a chain of frames per node) walks down tens of
/// MiB that the previous call left in memory, and each first write of a
/// line otherwise waits for it.
fn prefetch_below(sp: usize, lowest: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let to = sp.saturating_sub(PREFETCH_AHEAD) & !63;
        let from = lowest.saturating_sub(PREFETCH_AHEAD).min(sp) & !63;
        let lines = (from.saturating_sub(to) / 64).min(PREFETCH_LINES);
        for i in 0..lines {
            // SAFETY: a prefetch is a hint; it never faults, whatever the
            // address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((from - 64 * (i + 1)) as *const i8) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (sp, lowest);
}

/// An anonymous lazily-backed mapping of `size` bytes for a stack, or None.
fn map_stack(size: usize) -> Option<usize> {
    // SAFETY: a fresh anonymous mapping.
    let p = unsafe {
        mmap(
            std::ptr::null_mut(),
            size,
            PROT_READ_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
            -1,
            0,
        )
    };
    (p as isize != -1 && !p.is_null()).then_some(p as usize)
}

/// Maps this thread's dedicated stack if needed (the reservation of
/// [`crate::stack_reserve`], halved while the mapping fails); its base and
/// size, or None.
fn big_stack() -> Option<(usize, usize)> {
    BIG.try_with(|b| {
        if b.base.get() == 0 {
            let mut size = reserve_bytes();
            let mapped = loop {
                match map_stack(size) {
                    Some(base) => break Some(base),
                    None if size / 2 >= MIN_RESERVE => size /= 2,
                    None => break None,
                }
            };
            match mapped {
                None => b.base.set(1),
                Some(base) => {
                    // SAFETY: the bottom of our own mapping.
                    unsafe { mprotect(base as *mut c_void, GUARD, PROT_NONE) };
                    b.base.set(base);
                    b.size.set(size);
                    b.valgrind_id
                        .set(valgrind_request(0x1501, base + GUARD, base + size - 1));
                }
            }
        }
        (b.base.get(), b.size.get())
    })
    .ok()
    .filter(|&(base, _)| base > 1)
}

/// Calls `f(env)` on this thread's dedicated stack (on the current one if
/// that cannot be had), guarded: a call abandoned for lack of memory
/// ([`crate::abandon`]) returns here with its blocks freed. Inside a running
/// call (a nested run) `f` is called directly.
///
/// # Safety
/// `f` is a function that may be called with `env`; it must not unwind.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_run(f: unsafe extern "C" fn(*mut c_void), env: *mut c_void) {
    if crate::abandon::armed() {
        // SAFETY: caller contract.
        unsafe { f(env) };
        return;
    }
    let stack = big_stack();
    let top = stack.map_or(0, |(base, size)| base + size);
    let saved = stack.map(|(base, size)| {
        let limit = LIMIT
            .try_with(|l| l.replace(base + GUARD + MARGIN))
            .unwrap_or(0);
        let size = STACK_SIZE.try_with(|s| s.replace(size)).unwrap_or(0);
        let _ = LOWEST.try_with(|l| l.set(usize::MAX));
        (limit, size)
    });
    // SAFETY: `top` is 0 or the 16-byte aligned end of a writable mapping
    // that no frame uses; caller contract for `f`.
    unsafe { crate::abandon::run_call(top, f, env) };
    let (Some((base, _)), Some((limit, size))) = (stack, saved) else {
        return;
    };
    let _ = LIMIT.try_with(|l| l.set(limit));
    let _ = STACK_SIZE.try_with(|s| s.set(size));
    let lowest = LOWEST
        .try_with(|l| l.replace(usize::MAX))
        .unwrap_or(usize::MAX);
    if lowest < top - KEEP {
        let from = (lowest.saturating_sub(MARGIN) & !(PAGE - 1)).max(base + GUARD);
        // SAFETY: pages of our own mapping that no frame uses any more.
        unsafe { madvise(from as *mut c_void, top - KEEP - from, MADV_DONTNEED) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{begin_call, take_pending};

    /// Recurses `n` deep through `agc_rt_enter` with ~1 KiB frames; returns
    /// the depth reached.
    #[inline(never)]
    fn recurse(n: u64) -> u64 {
        let pad = std::hint::black_box([0u8; 1024]);
        if n == 0 || agc_rt_enter() == 0 {
            return u64::from(pad[0]);
        }
        1 + recurse(n - 1)
    }

    unsafe extern "C" fn deep(env: *mut c_void) {
        // SAFETY: env points at the u64 below.
        unsafe { *(env as *mut u64) = recurse(*(env as *mut u64)) };
    }

    #[test]
    fn deep_recursion_succeeds_on_the_dedicated_stack_and_stops_on_the_own() {
        std::thread::spawn(|| {
            begin_call();
            let mut n = 200_000u64;
            // SAFETY: `deep` takes the u64.
            unsafe { agc_rt_run(deep, &mut n as *mut u64 as *mut c_void) };
            assert_eq!(n, 200_000);
            assert_eq!(take_pending(), 0);
            // On the thread's own (2 MiB) stack the check stops early.
            begin_call();
            assert!(recurse(100_000) < 2_100);
            assert_eq!(take_pending(), Status::RecursionTooDeep as i32);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn threads_have_their_own_stacks() {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(256 << 10)
                    .spawn(|| {
                        for _ in 0..3 {
                            begin_call();
                            let mut n = 50_000u64;
                            // SAFETY: `deep` takes the u64.
                            unsafe { agc_rt_run(deep, &mut n as *mut u64 as *mut c_void) };
                            assert_eq!(n, 50_000);
                            assert_eq!(take_pending(), 0);
                        }
                    })
                    .unwrap()
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    }
}
