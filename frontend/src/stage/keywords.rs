//! Calls checked against numpy's own signatures ([`super::numpy_signatures`]):
//! a keyword numpy does not know, or more positional arguments than it
//! takes, raises `TypeError` as numpy would, with a suggestion for a near
//! miss, instead of being staged with the argument ignored. A keyword numpy
//! knows but agc does not implement (`out=`, `where=`, `initial=`, ...) is
//! "not supported" unless it has its default value.

use super::args::Args;
use super::numpy_signatures::{self, Signature};
use super::value::Value;
use super::R;
use crate::diagnostics::Diagnostic;

/// ndarray methods whose parameters are their function's without the array.
const METHODS_LIKE_FUNCTIONS: &[&str] = &[
    "sum", "mean", "max", "min", "prod", "any", "all", "var", "std", "argmax", "argmin",
];

/// Checks the arguments of `np.<name>(..)`.
pub fn check_function(name: &str, args: &Args) -> R<()> {
    match numpy_signatures::of(name) {
        Some(sig) => check(&format!("{name}()"), sig, 0, args),
        None => Ok(()),
    }
}

/// Checks the arguments of the method call `x.<name>(..)`.
pub fn check_method(name: &str, args: &Args) -> R<()> {
    match numpy_signatures::of(name).filter(|_| METHODS_LIKE_FUNCTIONS.contains(&name)) {
        Some(sig) => check(&format!("ndarray.{name}()"), sig, 1, args),
        None => Ok(()),
    }
}

/// Checks `args` against `sig` whose first `bound` parameters are already
/// bound (the receiver of a method).
fn check(func: &str, sig: &Signature, bound: usize, args: &Args) -> R<()> {
    if let Some(max) = sig.max_positional {
        let max = max.saturating_sub(bound);
        if args.pos.len() > max {
            let message = format!(
                "{func} takes at most {max} positional arguments but {} were given",
                args.pos.len()
            );
            return Err(Diagnostic::raises(args.span, "TypeError", message));
        }
    }
    if sig.any_keyword {
        return Ok(());
    }
    let params = &sig.params[bound.min(sig.params.len())..];
    for (k, _) in &args.kw {
        if params.contains(&k.as_str()) {
            continue;
        }
        let message = format!("{func} got an unexpected keyword argument '{k}'");
        return Err(
            Diagnostic::raises(args.span, "TypeError", message).with_suggestion(closest(k, params))
        );
    }
    for (k, v) in &args.kw {
        if !has_default(k, v) {
            return Err(Diagnostic::unsupported(
                args.span,
                format!("{func} with {k}= other than its default is not supported by agc"),
            ));
        }
    }
    Ok(())
}

/// False for a keyword agc does not implement given a value that changes
/// the result; true for every other keyword.
fn has_default(keyword: &str, v: &Value) -> bool {
    let is_str =
        |v: &Value, allowed: &[&str]| matches!(v, Value::Str(s) if allowed.contains(&&**s));
    match keyword {
        "out" | "initial" | "signature" | "like" | "correction" | "mean" => {
            matches!(v, Value::None)
        }
        "where" | "subok" => matches!(v, Value::Bool(true)),
        "device" => matches!(v, Value::None) || is_str(v, &["cpu"]),
        "order" => matches!(v, Value::None) || is_str(v, &["C", "K", "A"]),
        _ => true,
    }
}

/// The candidate within two edits of `word` (the nearest; the first on a tie).
pub fn closest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance over characters (optimal string alignment: insertions,
/// deletions, substitutions and swaps of two neighbours each cost 1, so
/// `lne` is one edit from `len`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows i-2, i-1 and i of the table.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j - 1] + cost).min(prev[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_are_suggested() {
        assert_eq!(edit_distance("keepdim", "keepdims"), 1);
        assert_eq!(edit_distance("axes", "axis"), 1);
        assert_eq!(closest("keepdim", &["axis", "keepdims"]), Some("keepdims"));
        assert_eq!(closest("foo", &["axis", "keepdims"]), None);
        assert_eq!(edit_distance("lne", "len"), 1, "a swap is one edit");
        assert_eq!(edit_distance("itmes", "items"), 1);
        assert_eq!(closest("lne", &["np", "len"]), Some("len"));
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
