//! A readers-writer lock that a call holds across the FFI boundary (no
//! guard object outlives a Rust scope there): POSIX `pthread_rwlock_t`,
//! writer-preferring (a waiting assignment is not starved by a stream of
//! readers), so that thread checkers (helgrind, TSan) see the ordering it
//! gives. The runtime has no dependencies, so the few functions are
//! declared here; the lock object is kept in a 64-byte, 8-aligned block, at
//! least the size of glibc's `pthread_rwlock_t` on every 64-bit target.

use std::cell::UnsafeCell;
use std::ffi::c_void;

extern "C" {
    fn pthread_rwlock_init(lock: *mut c_void, attr: *const c_void) -> i32;
    fn pthread_rwlock_destroy(lock: *mut c_void) -> i32;
    fn pthread_rwlock_rdlock(lock: *mut c_void) -> i32;
    fn pthread_rwlock_wrlock(lock: *mut c_void) -> i32;
    fn pthread_rwlock_unlock(lock: *mut c_void) -> i32;
    fn pthread_rwlockattr_init(attr: *mut c_void) -> i32;
    fn pthread_rwlockattr_destroy(attr: *mut c_void) -> i32;
    fn pthread_rwlockattr_setkind_np(attr: *mut c_void, kind: i32) -> i32;
}

/// glibc's `PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP`.
const PREFER_WRITER_NONRECURSIVE: i32 = 2;

/// Storage for a `pthread_rwlock_t` (56 bytes in glibc on x86-64 and aarch64).
#[repr(C, align(8))]
struct Storage([u8; 64]);

/// The lock. Boxed by its owner: a pthread lock must not move once initialised.
pub struct RwLock {
    raw: UnsafeCell<Storage>,
}

// SAFETY: the pthread lock is made to be shared between threads.
unsafe impl Sync for RwLock {}
// SAFETY: as above.
unsafe impl Send for RwLock {}

impl RwLock {
    /// A new, unlocked lock (boxed: it must not move).
    pub fn new() -> Box<RwLock> {
        let lock = Box::new(RwLock {
            raw: UnsafeCell::new(Storage([0; 64])),
        });
        let mut attr = Storage([0; 64]);
        let attr_ptr = attr.0.as_mut_ptr() as *mut c_void;
        // SAFETY: initialising the attribute and the lock in storage large
        // enough for both; the attribute is destroyed after use.
        unsafe {
            pthread_rwlockattr_init(attr_ptr);
            pthread_rwlockattr_setkind_np(attr_ptr, PREFER_WRITER_NONRECURSIVE);
            pthread_rwlock_init(lock.raw.get() as *mut c_void, attr_ptr);
            pthread_rwlockattr_destroy(attr_ptr);
        }
        lock
    }

    /// Waits for the lock: shared, or exclusive.
    pub fn lock(&self, exclusive: bool) {
        let p = self.raw.get() as *mut c_void;
        // SAFETY: an initialised lock; the caller unlocks it once later.
        unsafe {
            if exclusive {
                pthread_rwlock_wrlock(p);
            } else {
                pthread_rwlock_rdlock(p);
            }
        }
    }

    /// Releases a lock this thread holds.
    pub fn unlock(&self) {
        // SAFETY: held by this thread (caller contract of the context functions).
        unsafe { pthread_rwlock_unlock(self.raw.get() as *mut c_void) };
    }
}

impl Drop for RwLock {
    fn drop(&mut self) {
        // SAFETY: an initialised lock nobody holds (the context is being destroyed).
        unsafe { pthread_rwlock_destroy(self.raw.get() as *mut c_void) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn writers_exclude_readers() {
        let lock: Arc<Box<RwLock>> = Arc::new(RwLock::new());
        let inside = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (lock, inside) = (lock.clone(), inside.clone());
                std::thread::spawn(move || {
                    for _ in 0..2000 {
                        let exclusive = t == 0;
                        lock.lock(exclusive);
                        let before =
                            inside.fetch_add(if exclusive { 1000 } else { 1 }, Ordering::SeqCst);
                        assert!(if exclusive {
                            before == 0
                        } else {
                            before < 1000
                        });
                        inside.fetch_sub(if exclusive { 1000 } else { 1 }, Ordering::SeqCst);
                        lock.unlock();
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
    }
}
