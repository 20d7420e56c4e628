//! Limits on compile-time Python values.
//!
//! Compile-time values live in the compiler's memory while the model is
//! staged. CPython would build a list of 10^12 zeros (and run out of memory
//! doing it); agc refuses a compile-time sequence beyond these sizes with an
//! error at the expression that names the limit and how to stage the value
//! instead, rather than letting the compiler abort.

use super::R;
use crate::diagnostics::Diagnostic;
use agc_ir::Span;

/// Items of one compile-time list or tuple, and characters of a string.
pub const MAX_ITEMS: usize = 10_000_000;

/// Checks that a compile-time `what` (`"list"`, `"tuple"`, `"str"`, `"range"`) of `n`
/// items (`None`: more than 64 bits count) is within [`MAX_ITEMS`].
pub fn check_items(what: &str, n: Option<usize>, span: Span) -> R<usize> {
    match n {
        Some(n) if n <= MAX_ITEMS => Ok(n),
        _ => {
            let count = n.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string());
            let hint = if what == "str" {
                "build the text from smaller pieces"
            } else if what == "np.eye" {
                "compute it in the library: np.arange(n)[:, None] == np.arange(n)"
            } else if what == "range" {
                "give the loop a run-time bound (a tensor's size or a staged integer) so that it is staged"
            } else {
                "make it an array (np.zeros(n), np.arange(n), np.full(n, v)) so that it is staged"
            };
            Err(Diagnostic::error(
                span,
                format!(
                    "a compile-time {what} of {count} items exceeds agc's limit of {MAX_ITEMS} items: {hint}"
                ),
            ))
        }
    }
}
