//! Integer indexing with run-time indices: `dyn_index` (`x[i, j]`) and
//! `dyn_update` (`x[i, j] = v`, `x[i, j] += v`), bounds-checked.
//!
//! numpy semantics: an index `i` into an axis of size `n` is valid for
//! `-n <= i < n`, a negative one counting from the end once. Each index is
//! checked once, outside any loop; an index out of range calls the runtime's
//! `agc_rt_raise_index(index, size, axis, line)` (status
//! `INDEX_OUT_OF_RANGE`, numpy's message) and the code goes on with a safe
//! substitute, so no memory outside a tensor is ever touched: `dyn_index`
//! yields zeros, `dyn_update` leaves the tensor unchanged. The exported
//! function then returns the status and frees its results.
//!
//! `dyn_index` is a gather `linalg.generic` over the result; `dyn_update`
//! writes the sub-tensor with `tensor.insert` in a nest of `scf.for` loops
//! (which bufferization turns into an in-place update when the old tensor
//! is dead, as in a loop that appends to a staged list). In a loop body of
//! more than [`MAX_LOOPED_UPDATES`] updates, a write of a whole sub-tensor
//! is a `tensor.insert_slice` instead (a strided copy through the runtime's
//! `memrefCopy`, slower for small rows but cheap to analyse).

use super::emitter::FnEmitter;
use super::types;
use crate::BackendError;
use agc_ir::{DType, Dim, Function, OpData, OpKind, RegionId, Value};
use std::collections::HashSet;

/// The symbol of the runtime's index error (`(index, size, axis, line)`, all `i64`).
pub const RAISE_INDEX: &str = "agc_rt_raise_index";

/// The most `dyn_update`s a staged loop's body writes with loops. Inside a
/// loop body, each loop threading a tensor derived from the loop's state
/// doubles the time MLIR's one-shot bufferization spends on the updates
/// after it (a chain of n takes 2^n: 24 list appends in one staged loop
/// took minutes), so beyond this many, every update of that body that
/// writes a whole sub-tensor is a `tensor.insert_slice`, whose analysis
/// cost stays polynomial. The loops stay elsewhere: they run faster (small
/// rows and elements are written without a call of the runtime's
/// `memrefCopy` or, for an element, a one-element buffer), and outside a
/// loop body (a function's top level, where an unrolled loop appends
/// hundreds of times) they are also cheaper to analyse than slices.
const MAX_LOOPED_UPDATES: usize = 8;

/// The results of the `dyn_update`s of `f` to write as slices: those of
/// each staged loop body (and the branches inside it, not the bodies of
/// loops nested in it) that holds more than [`MAX_LOOPED_UPDATES`].
pub(super) fn sliced_updates(f: &Function) -> HashSet<Value> {
    let mut sliced = HashSet::new();
    for op in f.ops_within(f.body) {
        let od = f.op(op);
        if od.kind != OpKind::While {
            continue;
        }
        let mut updates = Vec::new();
        let mut stack: Vec<RegionId> = od.regions.clone();
        while let Some(r) = stack.pop() {
            for &inner in &f.region(r).ops {
                let id = f.op(inner);
                match id.kind {
                    OpKind::DynUpdate { .. } => updates.push(id.results[0]),
                    OpKind::While => {}
                    _ => stack.extend(id.regions.iter().copied()),
                }
            }
        }
        if updates.len() > MAX_LOOPED_UPDATES {
            sliced.extend(updates);
        }
    }
    sliced
}

/// A checked index: the normalised index clamped into range (0 when out of
/// range) as an `index`, and the `i1` that says it was in range.
struct Checked {
    at: String,
    ok: String,
}

/// Normalises the `i64` index `x` into an axis of `n64` (an `i64`) elements:
/// returns the index counted from the front and the `i1` that says it is
/// in range.
pub(super) fn normalise(e: &mut FnEmitter, x: &str, n64: &str) -> (String, String) {
    let zero = e.constant("0", "i64");
    let neg = e.cmpi("slt", x, &zero, "i64");
    let wrapped = e.arith("addi", x, n64, "i64");
    let j = e.select(&neg, &wrapped, x, "i64");
    // Unsigned: a still negative index is huge, hence out of range.
    let ok = e.cmpi("ult", &j, n64, "i64");
    (j, ok)
}

/// Calls the runtime's index error for index `x` into axis `axis` of `n64`
/// elements unless the `i1` `ok` holds.
pub(super) fn raise_unless(
    e: &mut FnEmitter,
    ok: &str,
    x: &str,
    n64: &str,
    axis: usize,
    line: u32,
) {
    let t = e.constant("true", "i1");
    let bad = e.arith("xori", ok, &t, "i1");
    let ax = e.constant(&axis.to_string(), "i64");
    let ln = e.constant(&line.to_string(), "i64");
    e.line(&format!("scf.if {bad} {{"));
    e.enter();
    e.line(&format!(
        "func.call @{RAISE_INDEX}({x}, {n64}, {ax}, {ln}) : (i64, i64, i64, i64) -> ()"
    ));
    e.leave();
    e.line("}");
}

/// Checks the rank-0 `i64` tensor `v` as an index into axis `axis` of size
/// `n` (an `index`), raising the runtime's index error when out of range.
fn check_index(e: &mut FnEmitter, v: &str, n: &str, axis: usize, line: u32) -> Checked {
    let x = e.assign(&format!("tensor.extract {v}[] : tensor<i64>"));
    let n64 = e.assign(&format!("arith.index_cast {n} : index to i64"));
    let (j, ok) = normalise(e, &x, &n64);
    raise_unless(e, &ok, &x, &n64, axis, line);
    let zero = e.constant("0", "i64");
    let safe = e.select(&ok, &j, &zero, "i64");
    let at = e.assign(&format!("arith.index_cast {safe} : i64 to index"));
    Checked { at, ok }
}

/// Checks the index operands `od.operands[first..]` against the leading
/// axes of `x`'s type; returns the checked indices and whether all are in
/// range (`None` when every indexed axis has a static non-zero size, where
/// the clamped index is always readable).
fn check_all(
    e: &mut FnEmitter,
    od: &OpData,
    first: usize,
    line: u32,
) -> Result<(Vec<String>, Option<String>), BackendError> {
    let x_ty = e.ty(od.operands[0]);
    let mut at = Vec::new();
    let mut all: Option<String> = None;
    for (axis, &iv) in od.operands[first..].iter().enumerate() {
        let d = &x_ty.dims[axis];
        let n = e.dim_size(d)?;
        let v = e.val(iv)?;
        let c = check_index(e, &v, &n, axis, line);
        at.push(c.at);
        if !matches!(d, Dim::Static(k) if *k > 0) {
            all = Some(match all {
                None => c.ok,
                Some(a) => e.arith("andi", &a, &c.ok, "i1"),
            });
        }
    }
    Ok((at, all))
}

/// The `arith` op that accumulates elements of `dtype` (`or` for bools).
pub(super) fn add_op(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 | DType::F64 => "addf",
        DType::Bool => "ori",
        DType::I32 | DType::I64 => "addi",
    }
}

/// Lowers a `dyn_index`; returns the result tensor.
///
/// When the sub-tensor has a static shape it is a view
/// (`tensor.extract_slice`; after bufferization a subview with static
/// row-major strides, which calls and the GEMM take as it is and which any
/// copy turns into one `memcpy`): `xs[k]` of a batch costs nothing. Where an
/// indexed axis may be empty, the view is taken of a zero tensor with one
/// element on the indexed axes instead (after the raise). Otherwise it is a
/// gather into a fresh tensor (see the `gather` module for why).
pub fn dyn_index(e: &mut FnEmitter, od: &OpData, line: u32) -> Result<String, BackendError> {
    let (x_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let x = e.val(od.operands[0])?;
    let (at, all_ok) = check_all(e, od, 1, line)?;
    let x_t = types::tensor(x_ty);
    let out_t = types::tensor(out_ty);
    let el = types::elem(out_ty.dtype);
    let rank = out_ty.rank();
    let lead = &x_ty.dims[..at.len()];
    let static_sizes = out_ty
        .dims
        .iter()
        .map(Dim::as_static)
        .collect::<Option<Vec<i64>>>();
    if let Some(out_sizes) = static_sizes.filter(|_| rank > 0 && !lead.contains(&Dim::Static(0))) {
        if out_sizes.contains(&0) {
            // No element to view (MLIR rejects a slice at offset 0 of an
            // empty axis); the range check has raised already.
            return e.empty(out_ty);
        }
        let src = match all_ok {
            None => x,
            Some(ok) => e.scf_if(
                &ok,
                &x_t,
                |_| Ok(x.clone()),
                |e| {
                    let mut one = x_ty.clone();
                    for d in &mut one.dims[..at.len()] {
                        if matches!(d, Dim::Sym(_)) {
                            *d = Dim::Static(1);
                        }
                    }
                    let z = e.filled(&one, &types::zero_lit(out_ty.dtype))?;
                    Ok(e.assign(&format!(
                        "tensor.cast {z} : {} to {x_t}",
                        types::tensor(&one)
                    )))
                },
            )?,
        };
        let zeros = vec!["0".to_string(); rank];
        let offsets: Vec<String> = at.iter().cloned().chain(zeros).collect();
        let sizes: Vec<String> = lead
            .iter()
            .map(|_| "1".to_string())
            .chain(out_sizes.iter().map(i64::to_string))
            .collect();
        let ones = vec!["1".to_string(); x_ty.rank()];
        return Ok(e.assign(&format!(
            "tensor.extract_slice {src}[{}] [{}] [{}] : {x_t} to {out_t}",
            offsets.join(", "),
            sizes.join(", "),
            ones.join(", ")
        )));
    }
    let gather = |e: &mut FnEmitter| -> Result<String, BackendError> {
        if rank == 0 {
            let v = e.assign(&format!("tensor.extract {x}[{}] : {x_t}", at.join(", ")));
            return Ok(super::rank0::wrap(e, &v, out_ty));
        }
        e.generate(out_ty, |e, rest| {
            let coords: Vec<String> = at.iter().chain(rest).cloned().collect();
            Ok(e.assign(&format!(
                "tensor.extract {x}[{}] : {x_t}",
                coords.join(", ")
            )))
        })
    };
    let Some(ok) = all_ok else {
        return gather(e);
    };
    // An axis of run-time size may be empty: then no index is readable.
    let zero = types::zero_lit(out_ty.dtype);
    if rank == 0 {
        // The element, carried by the `if` as a scalar (a rank-0 tensor
        // yielded by it would be a heap buffer).
        let v = e.scf_if(
            &ok,
            el,
            |e| Ok(e.assign(&format!("tensor.extract {x}[{}] : {x_t}", at.join(", ")))),
            |e| Ok(e.constant(&zero, el)),
        )?;
        return Ok(super::rank0::wrap(e, &v, out_ty));
    }
    e.scf_if(&ok, &out_t, gather, |e| e.filled(out_ty, &zero))
}

/// Lowers a `dyn_update` (overwrite, or add when `accumulate`); returns the
/// result tensor.
pub fn dyn_update(
    e: &mut FnEmitter,
    od: &OpData,
    axes: usize,
    accumulate: bool,
    line: u32,
) -> Result<String, BackendError> {
    let (x_ty, v_ty) = (e.ty(od.operands[0]), e.ty(od.operands[1]));
    let (x, v) = (e.val(od.operands[0])?, e.val(od.operands[1])?);
    let (at, all_ok) = check_all(e, od, 2, line)?;
    let sub = &x_ty.dims[axes..];
    let sizes = sub
        .iter()
        .map(|d| e.dim_size(d))
        .collect::<Result<Vec<_>, _>>()?;
    let (x_t, v_t) = (types::tensor(x_ty), types::tensor(v_ty));
    let dtype = x_ty.dtype;
    let el = types::elem(dtype);
    // In a loop body of many updates, a write of a whole sub-tensor is a
    // slice, not a loop (see `sliced_updates`).
    let whole = !accumulate && v_ty.dims == sub && (all_ok.is_some() || !sub.is_empty());
    if whole && e.sliced_updates.contains(&od.results[0]) {
        return Ok(insert_slice(
            e, &x, &x_t, &v, &v_t, &at, &sizes, all_ok, dtype,
        ));
    }
    // The loop nest over the sub-tensor, threading the tensor through. An
    // index out of range skips the write: the outermost loop runs no trip
    // (one trip of an extra loop for a single element). Not an `scf.if`
    // yielding the old tensor, nor an extra loop level: each loop or branch
    // around the write doubles the times bufferization reaches the old
    // tensor, and a chain of n updates (a loop appending to several lists
    // stages one) is analysed in time exponential in n.
    let mut loops = sizes.clone();
    if let Some(ok) = all_ok {
        let none = e.index_const(0);
        match loops.first_mut() {
            Some(first) => *first = e.select(&ok, first, &none, "index"),
            None => {
                let one = e.index_const(1);
                loops.push(e.select(&ok, &one, &none, "index"));
            }
        }
    }
    let guarded = loops.len() - sizes.len();
    e.threaded_loop_nest(&loops, &x, &x_t, |e, ivs, acc| {
        let ivs = &ivs[guarded..];
        let zero = e.index_const(0);
        let mut coords = at.clone();
        coords.extend(ivs.iter().cloned());
        let lead = sub.len() - v_ty.rank();
        let vc: Vec<String> = v_ty
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if *d == Dim::Static(1) && sub[lead + i] != Dim::Static(1) {
                    zero.clone()
                } else {
                    ivs[lead + i].clone()
                }
            })
            .collect();
        let mut new = e.assign(&format!("tensor.extract {v}[{}] : {v_t}", vc.join(", ")));
        if accumulate {
            let old = e.assign(&format!(
                "tensor.extract {acc}[{}] : {x_t}",
                coords.join(", ")
            ));
            new = e.arith(add_op(dtype), &old, &new, el);
        }
        Ok(e.assign(&format!(
            "tensor.insert {new} into {acc}[{}] : {x_t}",
            coords.join(", ")
        )))
    })
}

/// `x[at] = v` where `v` has the shape of the sub-tensor (`sizes`; none
/// for an element): a `tensor.insert_slice`, which bufferizes into a copy
/// into a view of `x` (in place when `x` is dead) and, unlike a loop
/// threading the tensor, adds nothing to the analysis of later updates of
/// the result. An element is a one-element slice of the last indexed axis.
/// An index out of range (`ok` false) makes the slice's first axis empty.
#[allow(clippy::too_many_arguments)]
fn insert_slice(
    e: &mut FnEmitter,
    x: &str,
    x_t: &str,
    v: &str,
    v_t: &str,
    at: &[String],
    sizes: &[String],
    ok: Option<String>,
    dtype: DType,
) -> String {
    let el = types::elem(dtype);
    let (v, v_t, mut sizes, leading_ones) = if sizes.is_empty() {
        let one_t = format!("tensor<1x{el}>");
        let v = e.assign(&format!(
            "tensor.expand_shape {v} [] output_shape [1] : {v_t} into {one_t}"
        ));
        (v, one_t, vec![e.index_const(1)], at.len() - 1)
    } else {
        (v.to_string(), v_t.to_string(), sizes.to_vec(), at.len())
    };
    if let Some(ok) = ok {
        let none = e.index_const(0);
        sizes[0] = e.select(&ok, &sizes[0], &none, "index");
    }
    let zero = e.index_const(0);
    let ones = |n: usize| vec!["1".to_string(); n];
    let src_t = format!("tensor<{}{el}>", "?x".repeat(sizes.len()));
    let src = e.assign(&format!(
        "tensor.extract_slice {v}[{}] [{}] [{}] : {v_t} to {src_t}",
        vec![zero.clone(); sizes.len()].join(", "),
        sizes.join(", "),
        ones(sizes.len()).join(", ")
    ));
    let rank = leading_ones + sizes.len();
    let mut offsets = at.to_vec();
    offsets.resize(rank, zero);
    let mut dst_sizes = ones(leading_ones);
    dst_sizes.extend(sizes);
    e.assign(&format!(
        "tensor.insert_slice {src} into {x}[{}] [{}] [{}] : {src_t} into {x_t}",
        offsets.join(", "),
        dst_sizes.join(", "),
        ones(rank).join(", ")
    ))
}
