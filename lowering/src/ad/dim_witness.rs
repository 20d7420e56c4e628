//! Symbolic dims a generated continuation needs but its parameters do not
//! bind.
//!
//! The backend learns the run-time size of a symbolic dim from a tensor
//! parameter or an op result whose type names it. A continuation `K` made
//! for the rest of an op list may create a tensor of a size that nothing it
//! receives names: the rest of a branch that returns `np.zeros(x.shape[0])`
//! after the value it was computed from is dead, for example. Such a `K`
//! also captures a *witness*: a visible value whose type names the dim, so
//! the size travels with the closure.

use agc_ir::{Dim, Function, OpId, RegionId, Value};
use std::collections::BTreeSet;

/// Source values to capture beside `bound` (the values whose types the
/// continuation's parameters will have) so that every symbolic dim named by
/// the types of `ops` (results and region parameters, at any depth) is
/// bound: for each dim that no bound value's type names, the first value of
/// `visible` whose type names it; for a derived size (`(B+3)`, `A[1::2]`)
/// with no such value, the same for each name it is computed from.
pub(crate) fn dim_witnesses(
    f: &Function,
    ops: &[OpId],
    bound: &[Value],
    visible: &[Value],
) -> Vec<Value> {
    let mut have: BTreeSet<String> = bound.iter().flat_map(|&v| syms_of(f, v)).collect();
    let mut witnesses = Vec::new();
    for name in needed_syms(f, ops) {
        if have.contains(&name) {
            continue;
        }
        let mut wanted = vec![name.clone()];
        if !visible.iter().any(|&v| syms_of(f, v).contains(&name)) {
            wanted = atoms(&name);
        }
        for want in wanted {
            if have.contains(&want) {
                continue;
            }
            if let Some(&w) = visible.iter().find(|&&v| syms_of(f, v).contains(&want)) {
                have.extend(syms_of(f, w));
                witnesses.push(w);
            }
        }
    }
    witnesses
}

/// The source values defined before `op` on its way from the function body
/// (parameters, results of earlier ops of `op`'s region and of the regions
/// around it): those a continuation made at `op` may capture.
pub(crate) fn dominating_values(f: &Function, op: OpId) -> Vec<Value> {
    let mut out = Vec::new();
    collect_dominating(f, f.body, op, &mut out);
    out
}

/// Appends to `out` the values of `region` (and of the region on the way
/// down) defined before `target`; true if `target` is inside `region`.
fn collect_dominating(f: &Function, region: RegionId, target: OpId, out: &mut Vec<Value>) -> bool {
    let mark = out.len();
    out.extend(f.region(region).params.iter().copied());
    for &o in &f.region(region).ops {
        if o == target {
            return true;
        }
        let od = f.op(o);
        for &r in &od.regions {
            if collect_dominating(f, r, target, out) {
                return true;
            }
        }
        out.extend(od.results.iter().copied());
    }
    out.truncate(mark);
    false
}

/// The symbolic dim names of `v`'s type (none for a non-tensor).
fn syms_of(f: &Function, v: Value) -> Vec<String> {
    f.ty(v)
        .as_tensor()
        .map(|t| {
            t.dims
                .iter()
                .filter_map(|d| match d {
                    Dim::Sym(s) => Some(s.clone()),
                    Dim::Static(_) => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The symbolic dims named by the results and region parameters of `ops`.
fn needed_syms(f: &Function, ops: &[OpId]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = ops.to_vec();
    while let Some(op) = stack.pop() {
        let od = f.op(op);
        let mut values = od.results.clone();
        for &r in &od.regions {
            values.extend(f.region(r).params.iter().copied());
            stack.extend(f.region(r).ops.iter().copied());
        }
        for v in values {
            out.extend(syms_of(f, v));
        }
    }
    out
}

/// The symbol names a derived size is computed from: its identifiers
/// (`(B*T+3)` → `B`, `T`; `A[1::2]` → `A`).
fn atoms(name: &str) -> Vec<String> {
    name.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|s| s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::atoms;

    #[test]
    fn atoms_of_derived_sizes() {
        assert_eq!(atoms("(B*T+3)"), vec!["B", "T"]);
        assert_eq!(atoms("A[1::2]"), vec!["A"]);
        assert_eq!(atoms("_n7"), vec!["_n7"]);
        assert!(atoms("12").is_empty());
    }
}
