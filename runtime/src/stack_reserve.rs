//! How much address space the dedicated stack of [`crate::stack`] reserves.
//!
//! The reverse pass of a staged loop keeps one continuation frame per
//! iteration on that stack (about 1 KiB for a small loop body), so its size
//! is the limit on the trip count of a differentiated loop. The mapping is
//! `MAP_NORESERVE`: only the pages a call touches cost memory, so a large
//! reservation is free until a deep call uses it. The size is, in order:
//! - `AGC_STACK_MIB` (MiB, read once per process), when set to a number;
//! - else [`DEFAULT_RESERVE`] (64 GiB: 10^7 iterations of a loop gradient
//!   need about 7 GiB), capped at a quarter of the address-space limit
//!   (`RLIMIT_AS`) when the process has one, and at [`STRICT_RESERVE`] when
//!   the kernel counts reserved memory against a commit limit
//!   (`vm.overcommit_memory = 2`, where `MAP_NORESERVE` is ignored) or
//!   the library runs under valgrind (whose tools shadow the whole range).
//!
//! [`crate::stack`] halves the size while the mapping fails, down to
//! [`MIN_RESERVE`].

use std::sync::OnceLock;

/// The default reservation.
pub const DEFAULT_RESERVE: usize = 64 << 30;
/// The reservation under strict overcommit accounting or valgrind.
pub const STRICT_RESERVE: usize = 1 << 30;
/// The smallest reservation tried; below it the thread's own stack is used.
pub const MIN_RESERVE: usize = 64 << 20;
/// The largest reservation `AGC_STACK_MIB` may ask for (1 TiB).
const MAX_RESERVE: usize = 1 << 40;

#[repr(C)]
struct Rlimit {
    current: u64,
    max: u64,
}

extern "C" {
    fn getrlimit(resource: i32, limit: *mut Rlimit) -> i32;
}

/// `RLIMIT_AS` on Linux.
const RLIMIT_AS: i32 = 9;

/// The bytes of address space a thread's dedicated stack reserves.
pub fn reserve_bytes() -> usize {
    static SIZE: OnceLock<usize> = OnceLock::new();
    *SIZE.get_or_init(|| {
        let asked = std::env::var("AGC_STACK_MIB").ok();
        // Valgrind's tools shadow a registered stack's whole range (helgrind
        // was killed for memory with 64 GiB): there, the limited size.
        let limited = crate::stack::running_on_valgrind() || strict_overcommit();
        choose(asked.as_deref(), address_space_limit(), limited)
    })
}

/// The reservation for an `AGC_STACK_MIB` value, an address-space limit
/// and whether reservations are limited (strict overcommit, valgrind: the
/// policy of the module doc).
fn choose(asked: Option<&str>, as_limit: Option<usize>, limited: bool) -> usize {
    if let Some(mib) = asked.and_then(|s| s.trim().parse::<usize>().ok()) {
        return mib.saturating_mul(1 << 20).clamp(MIN_RESERVE, MAX_RESERVE);
    }
    let mut size = DEFAULT_RESERVE;
    if let Some(limit) = as_limit {
        size = size.min(limit / 4);
    }
    if limited {
        size = size.min(STRICT_RESERVE);
    }
    size.max(MIN_RESERVE) & !(4095)
}

/// The process's address-space limit, if it has one.
fn address_space_limit() -> Option<usize> {
    let mut limit = Rlimit { current: 0, max: 0 };
    // SAFETY: a plain libc call with a valid out-pointer.
    let ok = unsafe { getrlimit(RLIMIT_AS, &mut limit) } == 0;
    (ok && limit.current != u64::MAX).then(|| usize::try_from(limit.current).unwrap_or(usize::MAX))
}

/// Whether the kernel accounts every mapping against a commit limit.
fn strict_overcommit() -> bool {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|s| s.trim() == "2")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_wins_within_bounds() {
        assert_eq!(choose(Some("256"), None, false), 256 << 20);
        assert_eq!(choose(Some(" 2048\n"), Some(1 << 30), true), 2 << 30);
        assert_eq!(choose(Some("1"), None, false), MIN_RESERVE);
        assert_eq!(choose(Some("99999999999"), None, false), MAX_RESERVE);
    }

    #[test]
    fn the_default_respects_the_limits_of_the_process() {
        assert_eq!(choose(None, None, false), DEFAULT_RESERVE);
        assert_eq!(choose(Some("lots"), None, false), DEFAULT_RESERVE);
        assert_eq!(choose(None, Some(6 << 30), false), 3 << 29);
        assert_eq!(choose(None, None, true), STRICT_RESERVE);
        assert_eq!(choose(None, Some(100 << 20), false), MIN_RESERVE);
    }
}
