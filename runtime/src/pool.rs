//! The runtime's thread pool: kernels split their outer loops into tasks
//! that the calling thread and up to `threads - 1` workers run.
//!
//! Workers are started on first use and then wait on a condition variable
//! for the next job; the caller runs tasks too and returns when every task
//! is done. One job runs at a time: a call that finds the pool busy (another
//! host thread's kernel) runs its tasks itself, so concurrent calls of
//! exported functions stay correct. The thread count comes from
//! `AGC_NUM_THREADS`, else the number of CPUs the process may use, and can
//! be changed with [`agc_rt_set_num_threads`]; 1 means no extra threads.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// The threads a job may use, the caller included (0: not read yet).
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// A job: `n` tasks of one closure, claimed one at a time.
struct Job {
    /// The closure, borrowed from the caller, which waits for every task.
    run: *const (dyn Fn(usize) + Sync),
    n: usize,
    next: AtomicUsize,
    done: AtomicUsize,
    /// Workers with an index below this take part.
    workers: usize,
}

// SAFETY: `run` points at a `Sync` closure that outlives every use (the
// caller waits until `done == n`, and no task is claimed after that).
unsafe impl Send for Job {}
unsafe impl Sync for Job {}

impl Job {
    /// Claims and runs tasks until none are left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.n {
                return;
            }
            // SAFETY: claimed before `done` reached `n`: the closure is alive.
            unsafe { (*self.run)(i) };
            self.done.fetch_add(1, Ordering::Release);
        }
    }
}

/// The published job, with a generation count that wakes the workers.
struct Shared {
    /// Generation, job, and whether the process is exiting.
    slot: Mutex<(u64, Option<Arc<Job>>, bool)>,
    /// The generation in `slot`, readable without the lock.
    generation: AtomicU64,
    wake: Condvar,
    /// Held by the caller of the running job.
    busy: Mutex<()>,
    /// The workers started, to join at exit.
    started: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| Shared {
        slot: Mutex::new((0, None, false)),
        generation: AtomicU64::new(0),
        wake: Condvar::new(),
        busy: Mutex::new(()),
        started: Mutex::new(Vec::new()),
    })
}

extern "C" {
    /// libc's `atexit`.
    fn atexit(f: extern "C" fn()) -> i32;
}

/// At process exit: wakes every worker to return, and joins them, so that
/// nothing of theirs is left (a leak checker sees no thread still running).
extern "C" fn stop_workers() {
    let s = shared();
    if let Ok(mut slot) = s.slot.lock() {
        slot.0 += 1;
        slot.2 = true;
        s.generation.store(slot.0, Ordering::Release);
        s.wake.notify_all();
    }
    if let Ok(mut started) = s.started.lock() {
        for w in started.drain(..) {
            let _ = w.join();
        }
    }
}

/// The thread count jobs use now.
pub fn threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => {
            let n = std::env::var("AGC_NUM_THREADS")
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|&n| n > 0)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            THREADS.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// Sets the number of threads kernels use (the caller included; 1 runs
/// every kernel on the calling thread). Values below 1 mean 1.
#[no_mangle]
pub extern "C" fn agc_rt_set_num_threads(n: i32) {
    THREADS.store(n.max(1) as usize, Ordering::Relaxed);
}

/// Starts workers up to `want` (the caller is not one); returns how many run.
fn ensure_workers(s: &'static Shared, want: usize) -> usize {
    let Ok(mut started) = s.started.lock() else {
        return 0;
    };
    if started.is_empty() && want > 0 {
        // SAFETY: registers a plain function with libc.
        unsafe { atexit(stop_workers) };
    }
    while started.len() < want {
        let index = started.len();
        let spawned = std::thread::Builder::new()
            .name(format!("agc-worker-{index}"))
            .spawn(move || worker(s, index));
        match spawned {
            Ok(handle) => started.push(handle),
            Err(_) => break,
        }
    }
    started.len()
}

/// How long a worker polls for the next job before it sleeps: a kernel's
/// jobs come in quick succession (one per matmul of a loop step), and a
/// wake-up through the condition variable costs tens of microseconds.
const SPINS_BEFORE_SLEEP: u32 = 1 << 14;

fn worker(s: &'static Shared, index: usize) {
    let mut seen = 0u64;
    loop {
        for _ in 0..SPINS_BEFORE_SLEEP {
            if s.generation.load(Ordering::Acquire) != seen {
                break;
            }
            std::hint::spin_loop();
        }
        let job = {
            let Ok(mut slot) = s.slot.lock() else { return };
            while slot.0 == seen {
                slot = match s.wake.wait(slot) {
                    Ok(g) => g,
                    Err(_) => return,
                };
            }
            if slot.2 {
                return;
            }
            seen = slot.0;
            slot.1.clone()
        };
        if let Some(job) = job {
            if index < job.workers {
                job.work();
            }
        }
    }
}

/// Runs `run(0) .. run(n - 1)`, spread over the pool's threads and the
/// caller; returns when all have run.
pub fn parallel_for(n: usize, run: &(dyn Fn(usize) + Sync)) {
    let threads = threads().min(n);
    let s = shared();
    let guard = if threads > 1 {
        s.busy.try_lock().ok()
    } else {
        None
    };
    let Some(_guard) = guard else {
        (0..n).for_each(run);
        return;
    };
    let workers = ensure_workers(s, threads - 1).min(threads - 1);
    // SAFETY (lifetime erased): this function waits below until every task
    // has finished, and workers claim none after that.
    let run: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(run) };
    let job = Arc::new(Job {
        run,
        n,
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        workers,
    });
    if let Ok(mut slot) = s.slot.lock() {
        slot.0 += 1;
        slot.1 = Some(job.clone());
        s.generation.store(slot.0, Ordering::Release);
        s.wake.notify_all();
    }
    job.work();
    let mut spins = 0u32;
    while job.done.load(Ordering::Acquire) < n {
        spins += 1;
        if spins < 1 << 12 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    if let Ok(mut slot) = s.slot.lock() {
        slot.1 = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_once_with_any_thread_count() {
        for threads in [1, 2, 4] {
            agc_rt_set_num_threads(threads);
            let hits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
            parallel_for(hits.len(), &|i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn concurrent_callers_both_finish() {
        agc_rt_set_num_threads(2);
        let total = AtomicUsize::new(0);
        std::thread::scope(|sc| {
            for _ in 0..4 {
                sc.spawn(|| {
                    for _ in 0..50 {
                        parallel_for(64, &|i| {
                            total.fetch_add(i, Ordering::Relaxed);
                        });
                    }
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 4 * 50 * (63 * 64 / 2));
    }
}
