//! Abandoning a kernel call that cannot go on.
//!
//! When an allocation of generated code fails, or the byte size of a tensor
//! it is about to create does not fit in memory, the kernel cannot continue:
//! it would write through NULL or past a block too small for the tensor.
//! [`agc_rt_run`](crate::stack::agc_rt_run) runs every kernel through
//! [`call_guarded`], which arms a jump point (the stack pointer and callee-saved
//! registers of its own frame, like `setjmp`); [`abandon`] raises the status
//! and jumps back there (like `longjmp`), skipping the kernel's frames. The
//! blocks the call had allocated are freed by the caller
//! ([`alloc::end_call`](crate::alloc::end_call)), the exported function
//! returns the status, and nothing leaks.
//!
//! The frames skipped are generated code and the runtime's `extern "C"`
//! allocation entries, none of which owns anything with a destructor. On an
//! architecture without a guarded call (not x86-64), [`abandon`] raises and
//! returns: the caller then reports the failure as before (a NULL block).

use crate::error::{raise_fmt, Status};
use std::cell::Cell;
use std::ffi::c_void;

thread_local! {
    /// The armed jump point: the saved stack pointer and the resume address
    /// (both 0 while no guarded call runs on this thread).
    static JUMP: [Cell<usize>; 2] = const { [Cell::new(0), Cell::new(0)] };
}

/// True while a guarded call runs on this thread.
pub fn armed() -> bool {
    JUMP.try_with(|j| j[1].get() != 0).unwrap_or(false)
}

/// Calls `f(env)` with a jump point armed, on the stack whose 16-byte
/// aligned top is `top` (0: the current stack). Returns true when the call
/// was abandoned ([`abandon`]) instead of returning.
///
/// # Safety
/// `f` may be called with `env` and does not unwind; `top`, when non-zero,
/// is the top of a writable stack no frame uses.
unsafe fn call_guarded(top: usize, f: unsafe extern "C" fn(*mut c_void), env: *mut c_void) -> bool {
    let Ok(jump) = JUMP.try_with(|j| j.as_ptr() as *mut usize) else {
        // SAFETY: caller contract.
        unsafe { f(env) };
        return false;
    };
    // SAFETY: caller contract; `jump` is this thread's two-word jump point.
    let abandoned = unsafe { switch_and_call(top, f, env, jump) };
    let _ = JUMP.try_with(|j| {
        j[0].set(0);
        j[1].set(0);
    });
    abandoned
}

/// Runs `f(env)` as one kernel call: guarded ([`call_guarded`]) with the
/// blocks it allocates listed, and those freed if the call is abandoned.
/// Inside a running call (a nested run) `f` is called directly. Returns
/// true when the call was abandoned.
///
/// # Safety
/// As [`call_guarded`].
pub unsafe fn run_call(top: usize, f: unsafe extern "C" fn(*mut c_void), env: *mut c_void) -> bool {
    if armed() {
        // SAFETY: caller contract.
        unsafe { f(env) };
        return false;
    }
    crate::alloc::begin_call();
    // SAFETY: caller contract.
    let abandoned = unsafe { call_guarded(top, f, env) };
    crate::alloc::end_call(abandoned);
    abandoned
}

/// Runs a kernel that calls no functions: `f(env)` on the current stack,
/// as one guarded call ([`run_call`]).
///
/// # Safety
/// `f` may be called with `env` and does not unwind.
#[no_mangle]
pub unsafe extern "C" fn agc_rt_guard(f: unsafe extern "C" fn(*mut c_void), env: *mut c_void) {
    // SAFETY: caller contract.
    unsafe { run_call(0, f, env) };
}

/// Raises `status` with `message` and, inside a guarded call, resumes after
/// it (never returning). Outside one (or where guarded calls do not exist)
/// it only raises, and the caller must fail on its own.
pub fn abandon(status: Status, message: std::fmt::Arguments) {
    raise_fmt(status, message);
    let Ok((sp, resume)) = JUMP.try_with(|j| (j[0].get(), j[1].get())) else {
        return;
    };
    if resume != 0 {
        // SAFETY: the jump point armed by the `call_guarded` frame below us on
        // this thread, which is still live: its saved stack and registers are
        // intact, and nothing between it and here owns a destructor.
        unsafe { jump_to(sp, resume) }
    }
}

/// Called by generated code before it creates a tensor of `rank` dims
/// whose bytes (`elem` per element) cannot be allocated: a size is negative
/// (`INVALID_ARGUMENT`, numpy's message) or the byte size leaves the signed
/// 64-bit range (`OUT_OF_MEMORY`). `d0..d3` are the first sizes, for the
/// message. Abandons the call.
#[no_mangle]
pub extern "C" fn agc_rt_fail_shape(elem: i64, rank: i64, d0: i64, d1: i64, d2: i64, d3: i64) {
    let dims = [d0, d1, d2, d3];
    let shown = &dims[..rank.clamp(0, 4) as usize];
    let shape = Shape(shown, rank);
    if shown.iter().any(|&d| d < 0) {
        abandon(
            Status::InvalidArgument,
            format_args!("negative dimensions are not allowed (a tensor of shape {shape})"),
        );
    } else {
        abandon(
            Status::OutOfMemory,
            format_args!(
                "out of memory: a tensor of shape {shape} with {elem}-byte elements needs more than 2^63 bytes"
            ),
        );
    }
}

/// A shape as Python prints a tuple: the sizes shown, `...` for a rank
/// beyond them. Formatting it allocates nothing.
struct Shape<'a>(&'a [i64], i64);

impl std::fmt::Display for Shape<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("(")?;
        for (k, d) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        if self.1 > self.0.len() as i64 {
            f.write_str(", ...")?;
        } else if self.1 == 1 {
            f.write_str(",")?;
        }
        f.write_str(")")
    }
}

/// The guarded call proper: saves rbp and rbx on the current stack, records
/// the stack pointer and the address of the `2:` label in `jump`, switches
/// to `top`, calls `f(env)`. A normal return restores the stack from r12
/// (callee-saved); [`jump_to`] restores it from `jump` and lands on `2:`.
/// The other callee-saved registers are declared clobbered, so the compiler
/// keeps nothing in them across this block.
#[cfg(target_arch = "x86_64")]
unsafe fn switch_and_call(
    top: usize,
    f: unsafe extern "C" fn(*mut c_void),
    env: *mut c_void,
    jump: *mut usize,
) -> bool {
    let abandoned: u64;
    // SAFETY: see the function's doc; `top` is 0 or the aligned top of an
    // unused stack (caller contract), and `jump` is valid for two words.
    unsafe {
        std::arch::asm!(
            "push rbp",
            "push rbx",
            "mov r12, rsp",
            "mov [rsi], rsp",
            "lea rax, [rip + 2f]",
            "mov [rsi + 8], rax",
            "test rdx, rdx",
            "jz 3f",
            "mov rsp, rdx",
            "3:",
            "and rsp, -16",
            "call rcx",
            "mov rsp, r12",
            "xor eax, eax",
            "jmp 4f",
            "2:",
            "mov eax, 1",
            "4:",
            "pop rbx",
            "pop rbp",
            in("rdi") env,
            in("rsi") jump,
            in("rdx") top,
            in("rcx") f,
            lateout("rax") abandoned,
            out("r12") _,
            out("r13") _,
            out("r14") _,
            out("r15") _,
            clobber_abi("C"),
        );
    }
    abandoned != 0
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn switch_and_call(
    _top: usize,
    f: unsafe extern "C" fn(*mut c_void),
    env: *mut c_void,
    _jump: *mut usize,
) -> bool {
    // SAFETY: caller contract.
    unsafe { f(env) };
    false
}

/// Resumes at `resume` with the stack pointer `sp` (the `2:` label of a
/// live [`switch_and_call`]).
#[cfg(target_arch = "x86_64")]
unsafe fn jump_to(sp: usize, resume: usize) -> ! {
    // SAFETY: caller contract.
    unsafe {
        std::arch::asm!(
            "mov rsp, {sp}",
            "jmp {resume}",
            sp = in(reg) sp,
            resume = in(reg) resume,
            options(noreturn),
        )
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn jump_to(_sp: usize, _resume: usize) -> ! {
    unreachable!("no guarded calls on this architecture")
}

#[cfg(test)]
mod tests {
    use crate::alloc::{_mlir_memref_to_llvm_alloc, allocate, release};
    use crate::error::{begin_call, take_pending, Status};
    use crate::stack::agc_rt_run;
    use std::ffi::c_void;

    /// What the test kernel allocated and how far it got.
    struct Trace {
        blocks: [usize; 3],
        fail: bool,
        after_failure: bool,
    }

    /// A kernel that allocates three blocks and then, when asked to fail,
    /// one that cannot exist.
    unsafe extern "C" fn kernel(env: *mut c_void) {
        // SAFETY: the test passes a live Trace.
        let trace = unsafe { &mut *(env as *mut Trace) };
        for b in &mut trace.blocks {
            *b = _mlir_memref_to_llvm_alloc(4096) as usize;
        }
        if trace.fail {
            let p = _mlir_memref_to_llvm_alloc(usize::MAX - 8);
            trace.after_failure = true;
            assert!(p.is_null());
        }
    }

    fn run(fail: bool) -> (Trace, i32) {
        begin_call();
        let mut trace = Trace {
            blocks: [0; 3],
            fail,
            after_failure: false,
        };
        // SAFETY: `kernel` takes a Trace.
        unsafe { agc_rt_run(kernel, &mut trace as *mut Trace as *mut c_void) };
        (trace, take_pending())
    }

    #[test]
    fn a_failed_allocation_abandons_the_call_and_frees_its_blocks() {
        let (trace, status) = run(true);
        assert_eq!(status, Status::OutOfMemory as i32);
        assert!(!trace.after_failure, "the kernel went on after the failure");
        assert!(trace.blocks.iter().all(|&b| b != 0));
        // The three blocks went back to this thread's cache: the next
        // allocations of their class are those blocks.
        let again: Vec<usize> = (0..3).map(|_| allocate(4096) as usize).collect();
        for b in trace.blocks {
            assert!(again.contains(&b), "block {b:#x} was not freed");
        }
        for b in again {
            // SAFETY: live blocks.
            unsafe { release(b as *mut c_void) };
        }
        // The thread still runs calls normally afterwards.
        let (trace, status) = run(false);
        assert_eq!(status, 0);
        for b in trace.blocks {
            // SAFETY: blocks the call left live (its "results").
            unsafe { release(b as *mut c_void) };
        }
    }

    #[test]
    fn blocks_outliving_a_call_are_detached_and_freed_later() {
        let (trace, status) = run(false);
        assert_eq!(status, 0);
        // Released on another thread, as a caller may release results.
        let blocks = trace.blocks;
        std::thread::spawn(move || {
            for b in blocks {
                // SAFETY: live blocks nobody else uses.
                unsafe { release(b as *mut c_void) };
            }
        })
        .join()
        .unwrap();
    }
}
