//! Slice, dyn_slice and concat as gather-style `linalg.generic`s: the body computes
//! source coordinates from `linalg.index` and reads with `tensor.extract`.
//!
//! Why not `tensor.extract_slice`/`insert_slice`: after bufferization those
//! are strided views, and materialising a strided view into an identity
//! buffer (returning it, reshaping it, inserting into it) becomes a
//! `memref.copy` that lowers to a call to `memrefCopy` from MLIR's runtime
//! library, which agc's libraries must not need. A gather always writes a
//! fresh identity-layout tensor. (Since then the runtime defines
//! `memrefCopy`, and a unit-step slice of static axes to a static shape
//! that no fused loop reads in place is a view, as `dyn_index` makes one:
//! [`static_slice`].)
//!
//! Slice bounds follow Python's `slice.indices(n)` (see
//! [`agc_ir::SliceDim::bounds_for`]): computed at compile time for static
//! dims and with `index` arithmetic at run time for symbolic ones, where the
//! result length (a new symbol such as `(B-1)` or `B[::-2]`) is bound too.
//!
//! A slice of a symbolic dim normally has a run-time size. Should one be
//! typed with a static size anyway (the frontend once typed `x[i:i+1]` as a
//! static 1), a read whose coordinate falls outside the run-time size
//! yields 0 instead of touching memory out of bounds. Integer indices are
//! `dyn_index` ops, checked in the `index` module.

use super::emitter::{identity_map, operand, FnEmitter, GenericSpec};
use super::types;
use crate::BackendError;
use agc_ir::{Dim, OpData, SliceDim, TensorType};

/// `min(max(v, lo), hi)` on `index` values.
fn clamp(e: &mut FnEmitter, v: &str, lo: &str, hi: &str) -> String {
    let m = e.arith("maxsi", v, lo, "index");
    e.arith("minsi", &m, hi, "index")
}

/// Run-time `(start, length)` of slicing an axis of size `n` with `s`.
pub(super) fn runtime_bounds(e: &mut FnEmitter, n: &str, s: &SliceDim) -> (String, String) {
    let norm = |e: &mut FnEmitter, v: i64| {
        let c = e.index_const(v);
        if v < 0 {
            e.arith("addi", n, &c, "index")
        } else {
            c
        }
    };
    let (start, stop, lo, hi) = if s.step > 0 {
        let (lo, hi) = (e.index_const(0), n.to_string());
        let start = match s.start {
            Some(v) => {
                let x = norm(e, v);
                clamp(e, &x, &lo, &hi)
            }
            None => lo.clone(),
        };
        (start, s.stop, lo, hi)
    } else {
        let one = e.index_const(1);
        let (lo, hi) = (e.index_const(-1), e.arith("subi", n, &one, "index"));
        let start = match s.start {
            Some(v) => {
                let x = norm(e, v);
                clamp(e, &x, &lo, &hi)
            }
            None => hi.clone(),
        };
        (start, s.stop, lo, hi)
    };
    let stop = match stop {
        Some(v) => {
            let x = norm(e, v);
            clamp(e, &x, &lo, &hi)
        }
        None if s.step > 0 => hi.clone(),
        None => lo.clone(),
    };
    let zero = e.index_const(0);
    let step = s.step.abs();
    let diff = if s.step > 0 {
        e.arith("subi", &stop, &start, "index")
    } else {
        e.arith("subi", &start, &stop, "index")
    };
    let diff = e.arith("maxsi", &diff, &zero, "index");
    let bump = e.index_const(step - 1);
    let num = e.arith("addi", &diff, &bump, "index");
    let st = e.index_const(step);
    let len = e.arith("divui", &num, &st, "index");
    (start, len)
}

/// Whether a slice of `in_ty` by `dims` to the static `sizes` is one
/// contiguous run of the row-major source: every step 1, the axes after the
/// last cut one whole, and the axes before it of extent 1 (`x[2:4]`,
/// `x[3, 1:5]`, not the column `x[:, 1:2]`). Called functions take static
/// tensors with row-major strides ([`types::param_memref`]), so only such a
/// view can be passed without a copy, which bufferization cannot make at
/// an unknown offset.
fn is_contiguous(in_ty: &TensorType, dims: &[SliceDim], sizes: &[i64]) -> bool {
    let mut cut = false;
    for ((d, s), &n) in in_ty.dims.iter().zip(dims).zip(sizes).rev() {
        if s.step != 1 {
            return false;
        }
        if cut {
            if n != 1 {
                return false;
            }
        } else {
            cut = !(s.is_full() || d.as_static() == Some(n));
        }
    }
    true
}

/// The static result sizes of a slice that [`static_slice`] makes a view:
/// a static slice ([`is_static_slice`]) to a static shape that is
/// [`is_contiguous`]; None for any other slice.
pub(super) fn view_sizes(
    in_ty: &TensorType,
    out_ty: &TensorType,
    dims: &[SliceDim],
) -> Option<Vec<i64>> {
    let sizes: Vec<i64> = out_ty
        .dims
        .iter()
        .map(Dim::as_static)
        .collect::<Option<_>>()?;
    (is_static_slice(in_ty, dims) && is_contiguous(in_ty, dims, &sizes)).then_some(sizes)
}

/// Lowers a static slice ([`is_static_slice`]) that no fused loop reads in
/// place: a view (`tensor.extract_slice`) where the result shape is static
/// and the slice contiguous ([`is_contiguous`]), as `dyn_index` makes one
/// (`x[2]` of a batch is this slice and a reshape); else a gather.
pub(super) fn static_slice(
    e: &mut FnEmitter,
    od: &OpData,
    dims: &[SliceDim],
) -> Result<String, BackendError> {
    let (in_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let Some(sizes) = view_sizes(in_ty, out_ty, dims) else {
        return slice(e, od, dims);
    };
    if sizes.contains(&0) {
        // No element to view (MLIR rejects the offset 0 into an empty axis).
        return e.empty(out_ty);
    }
    let x = e.val(od.operands[0])?;
    let offsets: Vec<String> = in_ty
        .dims
        .iter()
        .zip(dims)
        .map(|(d, s)| static_start(d, s).unwrap_or(0).to_string())
        .collect();
    let sizes: Vec<String> = sizes.iter().map(i64::to_string).collect();
    let steps: Vec<String> = dims.iter().map(|s| s.step.to_string()).collect();
    Ok(e.assign(&format!(
        "tensor.extract_slice {x}[{}] [{}] [{}] : {} to {}",
        offsets.join(", "),
        sizes.join(", "),
        steps.join(", "),
        types::tensor(in_ty),
        types::tensor(out_ty)
    )))
}

/// Lowers a `slice`; returns the result tensor.
pub fn slice(e: &mut FnEmitter, od: &OpData, dims: &[SliceDim]) -> Result<String, BackendError> {
    let (in_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let x = e.val(od.operands[0])?;
    if dims.iter().all(SliceDim::is_full) {
        return Ok(x);
    }
    // Per axis: the start as an SSA index (None: 0 with step 1, i.e. identity).
    let mut starts: Vec<Option<String>> = Vec::new();
    // Run-time sizes of the axes whose static result size may not fit.
    let mut guards: Vec<(usize, String)> = Vec::new();
    // The result's sizes, as computed here.
    let mut sizes = Vec::new();
    // A result symbol bound before: the result must conform to it.
    let mut prebound = false;
    for (axis, (d, s)) in in_ty.dims.iter().zip(dims).enumerate() {
        match d {
            _ if s.is_full() => {
                starts.push(None);
                sizes.push(e.dim_size(&out_ty.dims[axis])?);
            }
            Dim::Static(n) => {
                let (start, _) = s.bounds_for(*n);
                starts.push(Some(e.index_const(start)));
                sizes.push(e.dim_size(&out_ty.dims[axis])?);
            }
            Dim::Sym(_) => {
                let n = e.dim_size(d)?;
                let (start, len) = runtime_bounds(e, &n, s);
                match &out_ty.dims[axis] {
                    Dim::Sym(name) if e.sym(name).is_none() => e.bind_sym(name, len.clone()),
                    Dim::Sym(_) => prebound = true,
                    Dim::Static(_) => guards.push((axis, n)),
                }
                sizes.push(len);
                starts.push(Some(start));
            }
        }
    }
    let init = e.empty_sized(out_ty, &sizes);
    let spec = GenericSpec {
        iterators: vec!["parallel"; out_ty.rank()],
        ins: vec![],
        outs: vec![operand(&init, out_ty, identity_map(out_ty.rank()))],
    };
    let in_t = types::tensor(in_ty);
    let r = e.generic(&spec, |e, _| {
        let mut coords = Vec::new();
        for (axis, (start, s)) in starts.iter().zip(dims).enumerate() {
            let i = e.assign(&format!("linalg.index {axis} : index"));
            coords.push(source_coord(e, i, start.as_deref(), s.step));
        }
        let read = |e: &mut FnEmitter| {
            Ok(e.assign(&format!(
                "tensor.extract {x}[{}] : {in_t}",
                coords.join(", ")
            )))
        };
        if guards.is_empty() {
            return Ok(vec![read(e)?]);
        }
        let mut ok = e.constant("true", "i1");
        for (axis, n) in &guards {
            let inside = e.cmpi("ult", &coords[*axis], n, "index");
            ok = e.arith("andi", &ok, &inside, "i1");
        }
        let el = types::elem(in_ty.dtype);
        let zero = if in_ty.dtype.is_float() {
            types::scalar_lit(in_ty.dtype, 0.0)
        } else {
            types::int_lit(in_ty.dtype, 0)
        };
        let v = e.scf_if(&ok, el, read, |e| Ok(e.constant(&zero, el)))?;
        Ok(vec![v])
    })?;
    let r = r.into_iter().next().unwrap();
    if prebound {
        return e.conform(&r, out_ty);
    }
    Ok(r)
}

/// The source coordinate `start + i * step` of result coordinate `i`
/// (`i` itself where `start` is None: a whole axis).
fn source_coord(e: &mut FnEmitter, i: String, start: Option<&str>, step: i64) -> String {
    match start {
        None => i,
        Some(start) => {
            let st = e.index_const(step);
            let off = e.arith("muli", &i, &st, "index");
            e.arith("addi", start, &off, "index")
        }
    }
}

/// The first source index a static slice ([`is_static_slice`]) takes along
/// an axis of size `d` that it cuts (None: a whole axis, from 0).
fn static_start(d: &Dim, s: &SliceDim) -> Option<i64> {
    match d {
        Dim::Static(n) if !s.is_full() => Some(s.bounds_for(*n).0),
        _ => None,
    }
}

/// Whether a slice of a `in_ty` tensor by `dims` cuts only axes of static
/// size: its bounds are then constants and no result size is bound, so an
/// element of it is one read of the source ([`slice_element`]) and a fused
/// elementwise body can read the slice without materialising it.
pub(super) fn is_static_slice(in_ty: &TensorType, dims: &[SliceDim]) -> bool {
    !dims.iter().all(SliceDim::is_full)
        && in_ty
            .dims
            .iter()
            .zip(dims)
            .all(|(d, s)| s.is_full() || matches!(d, Dim::Static(_)))
}

/// The element of `x` (of type `in_ty`) that a static slice by `dims`
/// ([`is_static_slice`]) puts at result coordinates `at`.
pub(super) fn slice_element(
    e: &mut FnEmitter,
    x: &str,
    in_ty: &TensorType,
    dims: &[SliceDim],
    at: &[String],
) -> String {
    let mut coords = Vec::with_capacity(at.len());
    for ((d, s), i) in in_ty.dims.iter().zip(dims).zip(at) {
        let start = static_start(d, s).map(|k| e.index_const(k));
        coords.push(source_coord(e, i.clone(), start.as_deref(), s.step));
    }
    e.assign(&format!(
        "tensor.extract {x}[{}] : {}",
        coords.join(", "),
        types::tensor(in_ty)
    ))
}

/// `v` (a rank-0 `i64` tensor) as an `index` normalised against size `n`
/// the Python way (negative counts from the end) and clamped to `[0, n]`.
fn runtime_bound(e: &mut FnEmitter, v: &str, n: &str) -> String {
    let x = e.assign(&format!("tensor.extract {v}[] : tensor<i64>"));
    let x = e.assign(&format!("arith.index_cast {x} : i64 to index"));
    let zero = e.index_const(0);
    let neg = e.cmpi("slt", &x, &zero, "index");
    let from_end = e.arith("addi", &x, n, "index");
    let x = e.select(&neg, &from_end, &x, "index");
    clamp(e, &x, &zero, n)
}

/// Run-time `(start, stop, length)` of `dyn_slice` op `od`, as `index` values.
fn dyn_slice_bounds(
    e: &mut FnEmitter,
    od: &OpData,
) -> Result<(String, String, String), BackendError> {
    let n = e.dim_size(&e.ty(od.operands[0]).dims[0])?;
    let (sv, ev) = (e.val(od.operands[1])?, e.val(od.operands[2])?);
    let start = runtime_bound(e, &sv, &n);
    let stop = runtime_bound(e, &ev, &n);
    let zero = e.index_const(0);
    let diff = e.arith("subi", &stop, &start, "index");
    let len = e.arith("maxsi", &diff, &zero, "index");
    Ok((start, stop, len))
}

/// The size of symbolic dim `name` where the `dyn_slice` that names it (and
/// binds it, inside the region holding it) is out of scope: recomputed from
/// that op's operands when they are values of the function's body, visible
/// everywhere (a placeholder of a staged list's items on a path that
/// returned, fuzz finding O2). `None` when no such op exists.
pub(super) fn dyn_slice_size(e: &mut FnEmitter, name: &str) -> Option<String> {
    let f = e.f;
    let top = |v: agc_ir::Value| match f.value(v).def {
        agc_ir::ValueDef::Param { region, .. } => region == f.body,
        agc_ir::ValueDef::Result { op, .. } => f.region(f.body).ops.contains(&op),
    };
    let od = (0..f.num_ops())
        .map(|i| f.op(agc_ir::OpId(i as u32)))
        .find(|od| {
            matches!(od.kind, agc_ir::OpKind::DynSlice)
                && matches!(&f.ty(od.results[0]).tensor().dims[0], Dim::Sym(s) if s == name)
        })?;
    if !od.operands.iter().all(|&v| top(v)) {
        return None;
    }
    dyn_slice_bounds(e, od).ok().map(|(_, _, len)| len)
}

/// Lowers a `dyn_slice` (`x[start:stop]` on axis 0, bounds known at run
/// time, Python semantics with step 1); returns the result tensor.
pub fn dyn_slice(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let out_ty = e.ty(od.results[0]);
    let x = e.val(od.operands[0])?;
    let in_ty = e.ty(od.operands[0]);
    let (start, stop, len) = dyn_slice_bounds(e, od)?;
    let (guard, prebound) = match &out_ty.dims[0] {
        Dim::Sym(name) if e.sym(name).is_none() => {
            e.bind_sym(name, len.clone());
            (false, false)
        }
        Dim::Sym(_) => (false, true),
        // A static result size the run-time bounds may not honour.
        Dim::Static(_) => (true, false),
    };
    let mut sizes = vec![len];
    for d in &out_ty.dims[1..] {
        sizes.push(e.dim_size(d)?);
    }
    let init = if guard {
        e.empty(out_ty)?
    } else {
        e.empty_sized(out_ty, &sizes)
    };
    let spec = GenericSpec {
        iterators: vec!["parallel"; out_ty.rank()],
        ins: vec![],
        outs: vec![operand(&init, out_ty, identity_map(out_ty.rank()))],
    };
    let in_t = types::tensor(in_ty);
    let rank = out_ty.rank();
    let r = e.generic(&spec, |e, _| {
        let mut coords: Vec<String> = (0..rank)
            .map(|k| e.assign(&format!("linalg.index {k} : index")))
            .collect();
        coords[0] = e.arith("addi", &start, &coords[0], "index");
        let read = |e: &mut FnEmitter| {
            Ok(e.assign(&format!(
                "tensor.extract {x}[{}] : {in_t}",
                coords.join(", ")
            )))
        };
        if !guard {
            return Ok(vec![read(e)?]);
        }
        let ok = e.cmpi("ult", &coords[0], &stop, "index");
        let el = types::elem(in_ty.dtype);
        let zero = if in_ty.dtype.is_float() {
            types::scalar_lit(in_ty.dtype, 0.0)
        } else {
            types::int_lit(in_ty.dtype, 0)
        };
        Ok(vec![e.scf_if(&ok, el, read, |e| Ok(e.constant(&zero, el)))?])
    })?;
    let r = r.into_iter().next().unwrap();
    if prebound {
        return e.conform(&r, out_ty);
    }
    Ok(r)
}

/// The most operands a `concat` reads element by element, in one loop that
/// picks each element's operand through a chain of `scf.if`s (no copy of
/// each operand, but a chain as long as the operands, which MLIR and LLVM
/// take quadratic time over). More operands are copied into their slices of
/// the result by `tensor.concat` (one `memref.copy` each after
/// bufferization): 2,081 one-column operands build in seconds instead of
/// minutes (`tests/fuzz_frontend/FINDINGS.md`, F17).
const PICK_MAX_OPERANDS: usize = 8;

/// Lowers a `concat` along `axis`; returns the result tensor.
pub fn concat(e: &mut FnEmitter, od: &OpData, axis: usize) -> Result<String, BackendError> {
    let out_ty = e.ty(od.results[0]);
    if od.operands.len() == 1 {
        return e.val(od.operands[0]);
    }
    // offsets[j] = where operand j starts along the axis; the last is the total.
    let mut offsets = vec![e.index_const(0)];
    let mut parts = Vec::new();
    for &v in &od.operands {
        let ty = e.ty(v);
        let size = e.dim_size(&ty.dims[axis])?;
        let end = e.arith("addi", offsets.last().unwrap(), &size, "index");
        offsets.push(end);
        parts.push((e.val(v)?, types::tensor(ty)));
    }
    let total = offsets.last().unwrap().clone();
    let prebound = match &out_ty.dims[axis] {
        Dim::Sym(name) if e.sym(name).is_none() => {
            e.bind_sym(name, total.clone());
            false
        }
        Dim::Sym(_) => true,
        Dim::Static(_) => false,
    };
    let r = if parts.len() > PICK_MAX_OPERANDS {
        let (values, types): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
        e.assign(&format!(
            "tensor.concat dim({axis}) {} : ({}) -> {}",
            values.join(", "),
            types.join(", "),
            types::tensor(out_ty)
        ))
    } else {
        concat_by_picking(e, out_ty, axis, &offsets, &parts)?
    };
    if prebound {
        return e.conform(&r, out_ty);
    }
    Ok(r)
}

/// A concat of few operands as one loop over the result whose body reads
/// each element from its operand ([`pick`]); `offsets` as in [`concat`].
fn concat_by_picking(
    e: &mut FnEmitter,
    out_ty: &TensorType,
    axis: usize,
    offsets: &[String],
    parts: &[(String, String)],
) -> Result<String, BackendError> {
    let mut sizes = Vec::new();
    for (k, d) in out_ty.dims.iter().enumerate() {
        sizes.push(if k == axis {
            offsets.last().unwrap().clone()
        } else {
            e.dim_size(d)?
        });
    }
    let init = e.empty_sized(out_ty, &sizes);
    let spec = GenericSpec {
        iterators: vec!["parallel"; out_ty.rank()],
        ins: vec![],
        outs: vec![operand(&init, out_ty, identity_map(out_ty.rank()))],
    };
    let el = types::elem(out_ty.dtype);
    let rank = out_ty.rank();
    let r = e.generic(&spec, |e, _| {
        let idx: Vec<String> = (0..rank)
            .map(|k| e.assign(&format!("linalg.index {k} : index")))
            .collect();
        Ok(vec![pick(e, 0, &idx, axis, offsets, parts, el)?])
    })?;
    Ok(r.into_iter().next().unwrap())
}

/// Reads the concat element at `idx` from operand `j` or a later one.
fn pick(
    e: &mut FnEmitter,
    j: usize,
    idx: &[String],
    axis: usize,
    offsets: &[String],
    parts: &[(String, String)],
    el: &str,
) -> Result<String, BackendError> {
    let read = |e: &mut FnEmitter, j: usize| {
        let mut c = idx.to_vec();
        c[axis] = e.arith("subi", &idx[axis], &offsets[j], "index");
        let (t, ty) = &parts[j];
        Ok(e.assign(&format!("tensor.extract {t}[{}] : {ty}", c.join(", "))))
    };
    if j + 1 == parts.len() {
        return read(e, j);
    }
    let inside = e.cmpi("ult", &idx[axis], &offsets[j + 1], "index");
    e.scf_if(
        &inside,
        el,
        |e| read(e, j),
        |e| pick(e, j + 1, idx, axis, offsets, parts, el),
    )
}
