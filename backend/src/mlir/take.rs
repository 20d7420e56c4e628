//! `gather` (`np.take(x, idx, axis)`, `x[idx]`) and its transpose
//! `scatter_add`, bounds-checked like `dyn_index` (see the `index` module).
//!
//! Every index is checked once, before the data moves: a loop nest over
//! `idx` finds the first index out of range and calls the runtime's
//! `agc_rt_raise_index` with it. The gather is then a `linalg.generic` over
//! the result reading `x` with `tensor.extract`; the scatter a nest of
//! `scf.for` loops over the updates, adding each into the tensor with
//! `tensor.extract`/`tensor.insert` (so repeated indices accumulate).
//! Both clamp a bad index to 0, and when the indexed axis may be empty (a
//! symbolic size) they run only if every index was in range (a gather
//! yields zeros otherwise, a scatter the base unchanged), so no memory
//! outside a tensor is touched.

use super::emitter::FnEmitter;
use super::index::{add_op, normalise, raise_unless};
use super::types;
use crate::BackendError;
use agc_ir::{DType, Dim, OpData, TensorType};

/// An index tensor checked against one axis.
struct Checked {
    /// The index tensor.
    idx: String,
    /// Its type.
    ty: TensorType,
    /// The axis size as an `i64`.
    n64: String,
    /// Whether every index was in range; `None` when the axis has a static
    /// non-zero size, where a clamped index is always readable.
    all_ok: Option<String>,
}

impl Checked {
    /// The element of the index tensor at `coords`, normalised and clamped
    /// into range, as an `index`.
    fn read(&self, e: &mut FnEmitter, coords: &[String]) -> String {
        let t = types::tensor(&self.ty);
        let raw = e.assign(&format!(
            "tensor.extract {}[{}] : {t}",
            self.idx,
            coords.join(", ")
        ));
        let x = widen(e, &raw, self.ty.dtype);
        let (j, ok) = normalise(e, &x, &self.n64);
        let zero = e.constant("0", "i64");
        let safe = e.select(&ok, &j, &zero, "i64");
        e.assign(&format!("arith.index_cast {safe} : i64 to index"))
    }
}

/// `x` (of integer `dtype`) as an `i64`.
fn widen(e: &mut FnEmitter, x: &str, dtype: DType) -> String {
    if dtype == DType::I64 {
        x.to_string()
    } else {
        e.assign(&format!("arith.extsi {x} : {} to i64", types::elem(dtype)))
    }
}

/// Checks every element of the index operand `od.operands[1]` against axis
/// `axis` of operand 0, raising the runtime's error for the first bad one.
fn check(e: &mut FnEmitter, od: &OpData, axis: usize, line: u32) -> Result<Checked, BackendError> {
    let (x_ty, ty) = (e.ty(od.operands[0]), e.ty(od.operands[1]).clone());
    let idx = e.val(od.operands[1])?;
    let d = &x_ty.dims[axis];
    let n = e.dim_size(d)?;
    let n64 = e.assign(&format!("arith.index_cast {n} : index to i64"));
    let sizes = e.dim_sizes(&ty)?;
    let (zero, one) = (e.index_const(0), e.index_const(1));
    let yes = e.constant("true", "i1");
    // State: (some index was bad, the first bad index).
    let mut state = (e.constant("false", "i1"), e.constant("0", "i64"));
    let mut ivs = Vec::new();
    let mut results = Vec::new();
    for size in &sizes {
        let (iv, f, v, r) = (e.fresh("i"), e.fresh("bad"), e.fresh("at"), e.fresh("chk"));
        e.line(&format!(
            "{r}:2 = scf.for {iv} = {zero} to {size} step {one} iter_args({f} = {}, {v} = {}) -> (i1, i64) {{",
            state.0, state.1
        ));
        e.enter();
        ivs.push(iv);
        results.push(r);
        state = (f, v);
    }
    let t = types::tensor(&ty);
    let raw = e.assign(&format!("tensor.extract {idx}[{}] : {t}", ivs.join(", ")));
    let x = widen(e, &raw, ty.dtype);
    let (_, ok) = normalise(e, &x, &n64);
    let bad = e.arith("xori", &ok, &yes, "i1");
    let first = {
        let fresh = e.arith("xori", &state.0, &yes, "i1");
        e.arith("andi", &bad, &fresh, "i1")
    };
    let mut inner = (
        e.arith("ori", &state.0, &bad, "i1"),
        e.select(&first, &x, &state.1, "i64"),
    );
    for r in results.iter().rev() {
        e.line(&format!("scf.yield {}, {} : i1, i64", inner.0, inner.1));
        e.leave();
        e.line("}");
        inner = (format!("{r}#0"), format!("{r}#1"));
    }
    let ok = e.arith("xori", &inner.0, &yes, "i1");
    raise_unless(e, &ok, &inner.1, &n64, axis, line);
    let all_ok = (!matches!(d, Dim::Static(k) if *k > 0)).then_some(ok);
    Ok(Checked {
        idx,
        ty,
        n64,
        all_ok,
    })
}

/// Runs `body` when every index was in range, else yields `otherwise`.
fn guarded(
    e: &mut FnEmitter,
    c: &Checked,
    out_t: &str,
    body: impl FnOnce(&mut FnEmitter) -> Result<String, BackendError>,
    otherwise: impl FnOnce(&mut FnEmitter) -> Result<String, BackendError>,
) -> Result<String, BackendError> {
    match &c.all_ok {
        None => body(e),
        Some(ok) => e.scf_if(ok, out_t, body, otherwise),
    }
}

/// Lowers a `gather` along `axis`; returns the result tensor.
pub fn gather(
    e: &mut FnEmitter,
    od: &OpData,
    axis: usize,
    line: u32,
) -> Result<String, BackendError> {
    let (x_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let x = e.val(od.operands[0])?;
    let c = check(e, od, axis, line)?;
    let (x_t, out_t) = (types::tensor(x_ty), types::tensor(out_ty));
    let k = c.ty.rank();
    let body = |e: &mut FnEmitter| -> Result<String, BackendError> {
        e.generate(out_ty, |e, at| {
            let j = c.read(e, &at[axis..axis + k]);
            let mut coords = at[..axis].to_vec();
            coords.push(j);
            coords.extend_from_slice(&at[axis + k..]);
            Ok(e.assign(&format!(
                "tensor.extract {x}[{}] : {x_t}",
                coords.join(", ")
            )))
        })
    };
    guarded(e, &c, &out_t, body, |e| {
        e.filled(out_ty, &types::zero_lit(out_ty.dtype))
    })
}

/// Lowers a `scatter_add` along `axis`; returns the result tensor.
pub fn scatter_add(
    e: &mut FnEmitter,
    od: &OpData,
    axis: usize,
    line: u32,
) -> Result<String, BackendError> {
    let (base_ty, u_ty) = (e.ty(od.operands[0]), e.ty(od.operands[2]));
    let (base, u) = (e.val(od.operands[0])?, e.val(od.operands[2])?);
    let c = check(e, od, axis, line)?;
    let (base_t, u_t) = (types::tensor(base_ty), types::tensor(u_ty));
    let sizes = e.dim_sizes(u_ty)?;
    let k = c.ty.rank();
    let dtype = base_ty.dtype;
    let body = |e: &mut FnEmitter| -> Result<String, BackendError> {
        e.threaded_loop_nest(&sizes, &base, &base_t, |e, ivs, acc| {
            let j = c.read(e, &ivs[axis..axis + k]);
            let mut coords = ivs[..axis].to_vec();
            coords.push(j);
            coords.extend_from_slice(&ivs[axis + k..]);
            let el = types::elem(dtype);
            let new = e.assign(&format!("tensor.extract {u}[{}] : {u_t}", ivs.join(", ")));
            let old = e.assign(&format!(
                "tensor.extract {acc}[{}] : {base_t}",
                coords.join(", ")
            ));
            let sum = e.arith(add_op(dtype), &old, &new, el);
            Ok(e.assign(&format!(
                "tensor.insert {sum} into {acc}[{}] : {base_t}",
                coords.join(", ")
            )))
        })
    };
    let unchanged = base.clone();
    guarded(e, &c, &base_t, body, |_| Ok(unchanged))
}
