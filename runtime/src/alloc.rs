//! The buffer allocator of generated code.
//!
//! MLIR's memref lowering calls [`_mlir_memref_to_llvm_alloc`],
//! [`_mlir_memref_to_llvm_aligned_alloc`] and [`_mlir_memref_to_llvm_free`]
//! (the backend's pipeline asks for these generic names), and the exporter
//! frees result buffers with [`release`]; every buffer of a generated library
//! comes from here.
//!
//! Each thread keeps the blocks it frees, by size class, for its next
//! allocation of that class: the temporaries of one loop step or one call are
//! those of the next. Handing a large block back to glibc returns its pages to
//! the kernel (mmap threshold, heap trimming), and the next use faults them in
//! again, zeroed: that was most of the kernel time of a training loop. Small
//! blocks are kept too, as many as a call had alive at once: a recursion's
//! gradient keeps a few per node until its backward pass, and a cache that
//! kept only some sent the rest through glibc's slow paths at every call (a
//! quarter of the time per node of a 16k-node tree). The cache is bounded by
//! [`CACHE_BYTES`] per thread, headers included; a block that does not fit
//! goes back to libc, and a thread's cache is freed when the thread exits, so
//! memory does not grow with the number of calls.
//!
//! Blocks come from `malloc` (CUDA managed memory in a `--target cuda`
//! library: [`crate::device::raw_alloc`]), over-allocated by [`OVERHEAD`] bytes and aligned
//! by hand: `posix_memalign` splits a larger chunk and frees its ends, and
//! with the thousands of small buffers a deep recursion keeps alive the
//! heap's fragments cost more than the work (`unlink_chunk`, consolidation).
//!
//! While a kernel call runs ([`begin_call`] to [`end_call`]), the blocks it
//! allocates are kept in a list (two words of each block's header): a call
//! abandoned because an allocation failed ([`crate::abandon`]) frees the
//! blocks it still held, and a call that returns detaches the blocks that
//! outlive it (its results).

use crate::abandon::abandon;
use crate::error::Status;
use std::cell::{Cell, RefCell};
use std::ffi::c_void;

extern "C" {
    /// libc's `malloc` (the blocks of a CPU library).
    pub(crate) fn malloc(size: usize) -> *mut c_void;
    /// libc's `free`.
    pub(crate) fn free(p: *mut c_void);
}

/// Bytes of freed blocks one thread keeps at most, their headers included.
pub const CACHE_BYTES: usize = 64 << 20;
/// The payload's alignment.
const ALIGN: usize = 64;
/// The bytes a block holds beyond its payload: the payload starts 32 to 80
/// bytes into the `malloc`ed block (which is 16-byte aligned), after the
/// links of the call's list (at `payload - 32` and `payload - 24`, see
/// [`Links`]), the block's class (`u64` at `payload - 16`) and its `malloc`
/// address (at `payload - 8`).
const OVERHEAD: usize = 80;
/// The class of a block that is never cached.
const UNCACHED: u64 = u64::MAX;
/// Set in the class word of a block while it waits in a cache: releasing
/// it again is a double free, which [`release`] reports instead of
/// corrupting the cache and the call's block list.
const IN_CACHE: u64 = 1 << 62;
/// Classes: multiples of 32 bytes up to 256, then four per power of two up
/// to 2^41 bytes.
const SMALL_CLASSES: usize = 8;
const NCLASSES: usize = SMALL_CLASSES + 4 * 33;

/// The size class of a request of `n` bytes and the bytes the class holds;
/// `None` above the largest class.
fn class_of(n: usize) -> Option<(usize, usize)> {
    if n <= 256 {
        let k = n.max(1).div_ceil(32);
        return Some((k - 1, k * 32));
    }
    // 2^p < n <= 2^(p+1): four classes 2^p * (1 + q/4), q = 1..=4.
    let p = (usize::BITS - 1 - (n - 1).leading_zeros()) as usize;
    if p > 40 {
        return None;
    }
    let quarter = 1usize << (p - 2);
    let q = (n - (1 << p)).div_ceil(quarter);
    let index = SMALL_CLASSES + 4 * (p - 8) + (q - 1);
    (index < NCLASSES).then_some((index, (1 << p) + q * quarter))
}

/// One thread's freed blocks (their payloads), by class.
struct Cache {
    free: Vec<Vec<usize>>,
    bytes: usize,
}

impl Drop for Cache {
    fn drop(&mut self) {
        for &payload in self.free.iter().flatten() {
            // SAFETY: payloads of blocks owned by the cache alone.
            unsafe { crate::device::raw_free(base_of(payload)) };
        }
    }
}

thread_local! {
    static CACHE: RefCell<Cache> = const {
        RefCell::new(Cache { free: Vec::new(), bytes: 0 })
    };
}

/// Bytes a cached block of `class` holds: its payload and header.
fn block_bytes(class: usize) -> usize {
    class_bytes(class) + OVERHEAD
}

/// Class bytes of `class` (inverse of [`class_of`]).
fn class_bytes(class: usize) -> usize {
    if class < SMALL_CLASSES {
        return (class + 1) * 32;
    }
    let c = class - SMALL_CLASSES;
    let p = 8 + c / 4;
    (1 << p) + (c % 4 + 1) * (1 << (p - 2))
}

/// A payload of at least `size` bytes aligned to 64, or NULL when out of
/// memory.
pub fn allocate(size: usize) -> *mut c_void {
    let class = class_of(size);
    if let Some((c, _)) = class {
        let reused = CACHE
            .try_with(|cache| {
                let mut cache = cache.try_borrow_mut().ok()?;
                let free = cache.free.get_mut(c)?;
                let payload = free.pop()?;
                if let Some(&next) = free.last() {
                    prefetch_block(next);
                }
                cache.bytes -= block_bytes(c);
                Some(payload)
            })
            .ok()
            .flatten();
        if let Some(payload) = reused {
            // SAFETY: a cached block's header, written by this allocator.
            unsafe {
                *((payload - 16) as *mut u64) &= !IN_CACHE;
                track(payload);
            }
            return payload as *mut c_void;
        }
    }
    let (tag, bytes) = match class {
        Some((c, b)) => (c as u64, b),
        None => (UNCACHED, size),
    };
    let Some(total) = bytes.checked_add(OVERHEAD) else {
        return std::ptr::null_mut();
    };
    let base = crate::device::raw_alloc(total);
    if base.is_null() {
        return std::ptr::null_mut();
    }
    // malloc's 16-byte alignment puts this 32 to 80 bytes into the block,
    // leaving at least `bytes` after it.
    let payload = (base as usize + 32).next_multiple_of(ALIGN);
    // SAFETY: the header words lie inside the block just allocated.
    unsafe {
        *((payload - 16) as *mut u64) = tag;
        *((payload - 8) as *mut usize) = base as usize;
        track(payload);
    }
    payload as *mut c_void
}

/// Brings the header and the first payload line of the cached block at
/// `payload` into the cache: the next allocation of its class returns it and
/// writes both, and a call with many blocks alive (a deep recursion's) finds
/// them in memory, not in the cache.
fn prefetch_block(payload: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint; it never faults.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>((payload - 32) as *const i8);
            _mm_prefetch::<_MM_HINT_T0>(payload as *const i8);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = payload;
}

/// The `malloc` address of the block holding `payload`.
///
/// # Safety
/// `payload` is a live payload returned by [`allocate`].
unsafe fn base_of(payload: usize) -> *mut c_void {
    // SAFETY: the header word written by `allocate` (caller contract).
    unsafe { *((payload - 8) as *const usize) as *mut c_void }
}

/// The two link words of a block in the running call's list, at
/// `payload - 32`: both 0 when the block is in no list. The list is circular
/// through this thread's [`CALL`] sentinel.
#[repr(C)]
struct Links {
    prev: Cell<usize>,
    next: Cell<usize>,
}

thread_local! {
    /// The sentinel of the running call's block list (links 0: no call runs).
    static CALL: Links = const { Links { prev: Cell::new(0), next: Cell::new(0) } };
}

/// The links of the block holding `payload`.
///
/// # Safety
/// `payload` is a payload of this allocator, live or cached.
unsafe fn links<'a>(payload: usize) -> &'a Links {
    // SAFETY: the header words at `payload - 32` (caller contract).
    unsafe { &*((payload - 32) as *const Links) }
}

/// Puts a block just handed out into the running call's list (or marks it
/// in none when no call runs).
///
/// # Safety
/// `payload` is a payload of this allocator, in no list.
unsafe fn track(payload: usize) {
    // SAFETY: caller contract.
    let node = unsafe { links(payload) };
    let linked = CALL.try_with(|head| {
        let first = head.next.get();
        if first == 0 {
            return false;
        }
        let me = node as *const Links as usize;
        node.prev.set(head as *const Links as usize);
        node.next.set(first);
        // SAFETY: `first` is the sentinel or a block of the list.
        unsafe { (*(first as *const Links)).prev.set(me) };
        head.next.set(me);
        true
    });
    if linked != Ok(true) {
        node.prev.set(0);
        node.next.set(0);
    }
}

/// Takes a block out of the call list it is in, if any.
///
/// # Safety
/// `payload` is a live payload of this allocator.
unsafe fn untrack(payload: usize) {
    // SAFETY: caller contract.
    let node = unsafe { links(payload) };
    let (prev, next) = (node.prev.get(), node.next.get());
    if prev != 0 {
        // SAFETY: the neighbours of a listed block are listed blocks or the
        // sentinel, all on this thread.
        unsafe {
            (*(prev as *const Links)).next.set(next);
            (*(next as *const Links)).prev.set(prev);
        }
        node.prev.set(0);
        node.next.set(0);
    }
}

/// Starts listing the blocks this thread allocates, for [`end_call`].
pub fn begin_call() {
    let _ = CALL.try_with(|head| {
        let me = head as *const Links as usize;
        head.prev.set(me);
        head.next.set(me);
    });
}

/// Ends the list started by [`begin_call`]: the blocks still in it are
/// freed when the call was `abandoned`, and otherwise left to their owners
/// (the results the exported function hands out).
pub fn end_call(abandoned: bool) {
    let _ = CALL.try_with(|head| {
        let me = head as *const Links as usize;
        let mut at = head.next.get();
        while at != 0 && at != me {
            // SAFETY: a block of the list: its links are at `at`, its
            // payload 32 bytes after them.
            let node = unsafe { &*(at as *const Links) };
            let next = node.next.get();
            node.prev.set(0);
            node.next.set(0);
            if abandoned {
                // SAFETY: a block the abandoned call allocated and nobody
                // else can reach any more.
                unsafe { release((at + 32) as *mut c_void) };
            }
            at = next;
        }
        head.prev.set(0);
        head.next.set(0);
    });
}

/// Frees a payload from [`allocate`] (NULL is ignored): into this thread's
/// cache when it has room, else back to libc.
///
/// # Safety
/// `p` is NULL or a live payload returned by [`allocate`].
pub unsafe fn release(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: the header written by `allocate` (caller contract).
    let (tag, base) = unsafe {
        (
            *((p as usize - 16) as *const u64),
            base_of(p as usize) as usize,
        )
    };
    let payload = p as usize;
    let bad_base = !(32..=OVERHEAD).contains(&payload.wrapping_sub(base));
    if bad_base || !payload.is_multiple_of(ALIGN) || (tag != UNCACHED && tag as usize >= NCLASSES) {
        let what = if bad_base || !payload.is_multiple_of(ALIGN) {
            "a pointer that is no buffer of the library was freed"
        } else if tag & IN_CACHE != 0 {
            "a buffer was freed twice"
        } else {
            "a buffer's header was overwritten"
        };
        crate::error::raise_fmt(
            Status::Internal,
            format_args!("internal error: {what} ({p:p}); please report this bug"),
        );
        return;
    }
    // SAFETY: the header written by `allocate` (caller contract).
    unsafe { untrack(p as usize) };
    if tag != UNCACHED {
        let c = tag as usize;
        let bytes = block_bytes(c);
        let kept = CACHE
            .try_with(|cache| {
                let Ok(mut cache) = cache.try_borrow_mut() else {
                    return false;
                };
                if cache.bytes + bytes > CACHE_BYTES {
                    return false;
                }
                // The cache's own vectors grow fallibly: when even they
                // cannot, the block goes back to libc.
                if cache.free.is_empty() {
                    if cache.free.try_reserve_exact(NCLASSES).is_err() {
                        return false;
                    }
                    cache.free.resize_with(NCLASSES, Vec::new);
                }
                if cache.free[c].try_reserve(1).is_err() {
                    return false;
                }
                cache.free[c].push(p as usize);
                cache.bytes += bytes;
                // SAFETY: the block's own class word.
                unsafe { *((p as usize - 16) as *mut u64) = tag | IN_CACHE };
                true
            })
            .unwrap_or(false);
        if kept {
            return;
        }
    }
    // SAFETY: a live payload (caller contract); its block from raw_alloc.
    unsafe { crate::device::raw_free(base_of(p as usize)) };
}

/// `memref.alloc` in generated code: `size` bytes.
#[no_mangle]
pub extern "C" fn _mlir_memref_to_llvm_alloc(size: usize) -> *mut c_void {
    let p = allocate(size);
    if p.is_null() {
        out_of_memory(size);
    }
    p
}

/// Abandons the running kernel call: `size` bytes could not be allocated.
fn out_of_memory(size: usize) {
    abandon(
        Status::OutOfMemory,
        format_args!(
            "out of memory: cannot allocate {size} bytes ({:.1} GiB)",
            size as f64 / f64::from(1u32 << 30)
        ),
    );
}

/// `memref.alloc` with an alignment in generated code: `size` bytes aligned
/// to `align` (a power of two; payloads are 64-byte aligned, a larger
/// alignment is served by over-allocating).
#[no_mangle]
pub extern "C" fn _mlir_memref_to_llvm_aligned_alloc(align: usize, size: usize) -> *mut c_void {
    // Generated code aligns within the block itself (its `aligned` pointer);
    // `allocated` must be what `allocate` returned.
    let extra = if align <= ALIGN { 0 } else { align };
    let p = allocate(size.saturating_add(extra));
    if p.is_null() {
        out_of_memory(size);
    }
    p
}

/// A zeroed buffer of `count` elements of `size` bytes for generated code
/// (the result of a continuation that never ran): a block of this
/// allocator, since the code frees it like any other buffer. Abandons the
/// call when it cannot be had.
#[no_mangle]
pub extern "C" fn agc_rt_zeros(count: usize, size: usize) -> *mut c_void {
    let bytes = count.saturating_mul(size);
    let p = _mlir_memref_to_llvm_alloc(bytes);
    if !p.is_null() {
        // SAFETY: a fresh block of at least `bytes` bytes.
        unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
    }
    p
}

/// `memref.dealloc` in generated code.
///
/// # Safety
/// `p` is NULL or a live buffer of generated code.
#[no_mangle]
pub unsafe extern "C" fn _mlir_memref_to_llvm_free(p: *mut c_void) {
    // SAFETY: forwarded caller contract.
    unsafe { release(p) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_their_requests_and_invert() {
        let mut last = 0;
        for n in (1..5000).chain([1 << 20, (1 << 20) + 1, 3 << 30, 1 << 41]) {
            let (c, bytes) = class_of(n).unwrap();
            assert!(bytes >= n && bytes < n + n / 4 + 32, "{n} -> {bytes}");
            assert_eq!(class_bytes(c), bytes);
            assert!(c >= last, "classes grow with the request");
            last = c;
        }
        assert!(class_of((1 << 41) + 1).is_none());
        assert!(class_of(usize::MAX).is_none());
    }

    #[test]
    fn freed_blocks_are_reused_and_aligned() {
        let a = allocate(100_000);
        assert!(!a.is_null() && (a as usize).is_multiple_of(64));
        // SAFETY: a live block of at least 100 000 bytes.
        unsafe {
            std::ptr::write_bytes(a as *mut u8, 7, 100_000);
            release(a);
        }
        let b = allocate(99_000);
        assert_eq!(a, b, "same class, reused");
        let huge = allocate(CACHE_BYTES + 1);
        // SAFETY: live blocks.
        unsafe {
            release(b);
            release(huge);
            release(std::ptr::null_mut());
        }
    }

    #[test]
    fn double_and_foreign_frees_are_reported_not_followed() {
        crate::error::begin_call();
        let a = allocate(1000);
        // SAFETY: a live block, released twice on purpose (the second is refused).
        unsafe {
            release(a);
            release(a);
        }
        assert_eq!(crate::error::take_pending(), Status::Internal as i32);
        let b = allocate(1000);
        let c = allocate(1000);
        assert_ne!(b, c, "the block was cached once");
        let mut foreign = vec![0u64; 16];
        // SAFETY: 16 bytes before the pointer are inside the vector.
        unsafe { release(foreign.as_mut_ptr().add(8) as *mut c_void) };
        assert_eq!(crate::error::take_pending(), Status::Internal as i32);
        // SAFETY: live blocks.
        unsafe {
            release(b);
            release(c);
        }
        crate::error::begin_call();
    }

    /// Allocates `n` blocks of `size` bytes, then releases them all.
    fn allocate_then_release(n: usize, size: usize) {
        let blocks: Vec<_> = (0..n).map(|_| allocate(size)).collect();
        for &b in &blocks {
            assert!(!b.is_null());
            // SAFETY: live blocks.
            unsafe { release(b) };
        }
    }

    /// Blocks of `class` in this thread's cache, and the bytes it holds.
    fn cached(class: usize) -> (usize, usize) {
        CACHE.with(|c| {
            let c = c.borrow();
            (c.free[class].len(), c.bytes)
        })
    }

    #[test]
    fn the_cache_is_bounded() {
        let (class, _) = class_of(1 << 20).unwrap();
        let fit = CACHE_BYTES / block_bytes(class);
        allocate_then_release(fit + 8, 1 << 20);
        let (kept, bytes) = cached(class);
        assert_eq!(kept, fit);
        assert!(bytes <= CACHE_BYTES);
    }

    #[test]
    fn every_small_block_of_a_call_is_kept() {
        // Many more than the 1 MiB a class once kept: a deep recursion's.
        let (class, _) = class_of(160).unwrap();
        allocate_then_release(50_000, 160);
        assert_eq!(cached(class).0, 50_000);
        allocate_then_release(50_000, 160);
        assert_eq!(cached(class).0, 50_000);
    }
}
