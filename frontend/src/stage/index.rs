//! Subscripts: sequences and dicts at compile time, `agc.f32[...]` specs,
//! and numpy basic indexing of staged tensors (ints, slices, `None`, `...`);
//! integer-array indices are staged by [`super::gather`].

use super::args::Args;
use super::gather;
use super::pyops;
use super::value::{SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, Dim, OpKind, SliceDim, Span, TensorType};

/// One item of a tensor index, after `...` is expanded.
enum IndexItem {
    Int(i64),
    Slice(SliceDim),
    NewAxis,
}

fn opt_int(v: &Value, span: Span) -> R<Option<i64>> {
    match v {
        Value::None => Ok(None),
        other => other.as_int().map(Some).ok_or_else(|| {
            Diagnostic::unsupported(
                span,
                format!(
                    "slice bounds must be compile-time ints, got '{}'",
                    other.type_name()
                ),
            )
        }),
    }
}

fn slice_dim(s: &SliceValue, span: Span) -> R<SliceDim> {
    let step = opt_int(&s.step, span)?.unwrap_or(1);
    if step == 0 {
        return Err(Diagnostic::error(span, "slice step cannot be zero"));
    }
    Ok(SliceDim {
        start: opt_int(&s.start, span)?,
        stop: opt_int(&s.stop, span)?,
        step,
    })
}

impl Stager {
    /// `base[index]`.
    pub fn get_item(&mut self, base: &Value, index: &Value, span: Span) -> R<Value> {
        let (base, index) = (&self.read_variable(base), &self.read_variable(index));
        if matches!(base, Value::Bottom) || index.has_bottom() {
            return Ok(Value::Bottom);
        }
        match base {
            Value::Tensor(t) => self.index_tensor(t, index, span).map(Value::Tensor),
            Value::TensorList(l) => {
                let stacked = self.tensor_list_stack(l, span)?;
                self.index_tensor(&stacked, index, span).map(Value::Tensor)
            }
            Value::SpecFactory(d) => spec(*d, index, span),
            Value::Dict(d) => d
                .borrow()
                .iter()
                .find(|(k, _)| pyops::py_eq(k, index))
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Diagnostic::raises(span, "KeyError", pyops::py_repr(index))),
            // A list of tensors indexed at run time: stack it, then index.
            Value::List(_) | Value::Tuple(_) | Value::NamedTuple(..)
                if index.is_staged() && is_int_index(index) =>
            {
                let stacked = self.to_tensor(base, None, span)?;
                Ok(Value::Tensor(self.dyn_index(
                    &stacked,
                    std::slice::from_ref(index),
                    span,
                )?))
            }
            Value::List(_) | Value::Tuple(_) | Value::NamedTuple(..) | Value::Str(_) => {
                let items = pyops::iterate(base, span)?;
                let rebuild = |xs: Vec<Value>| match base {
                    Value::List(_) => Value::list(xs),
                    Value::Tuple(_) | Value::NamedTuple(..) => Value::tuple(xs),
                    _ => Value::str(&xs.iter().map(pyops::py_str).collect::<String>()),
                };
                match index {
                    Value::Slice(s) => {
                        let sd = slice_dim(s, span)?;
                        let (start, _) = sd.bounds_for(items.len() as i64);
                        let n = sd.len_for(items.len() as i64);
                        Ok(rebuild(
                            (0..n)
                                .map(|k| items[(start + k * sd.step) as usize].clone())
                                .collect(),
                        ))
                    }
                    other => {
                        let i = other.as_int().ok_or_else(|| {
                            Diagnostic::error(
                                span,
                                format!(
                                    "{} indices must be integers, not {}",
                                    base.type_name(),
                                    other.type_name()
                                ),
                            )
                        })?;
                        let n = items.len() as i64;
                        let j = if i < 0 { i + n } else { i };
                        if j < 0 || j >= n {
                            return Err(Diagnostic::raises(
                                span,
                                "IndexError",
                                format!("{} index out of range", base.type_name()),
                            ));
                        }
                        Ok(items[j as usize].clone())
                    }
                }
            }
            Value::Instance(i) if i.class.lookup("__getitem__").is_some() => {
                let m = self.get_attr(base, "__getitem__", span)?;
                self.call(&m, Args::positional(vec![index.clone()], span))
            }
            other => Err(Diagnostic::error(
                span,
                format!("'{}' object is not subscriptable", other.type_name()),
            )),
        }
    }

    fn index_tensor(&mut self, t: &Tensor, index: &Value, span: Span) -> R<Tensor> {
        let raw: Vec<Value> = match index {
            Value::Tuple(items) => items.as_ref().clone(),
            other => vec![other.clone()],
        };
        if raw.iter().any(|v| matches!(v, Value::Bool(_))) {
            return Err(Diagnostic::unsupported(
                span,
                "indexing an array with a bool (x[True]) is not supported: numpy reads it as a \
                 0-d mask that adds an axis, not as the index 1 or 0; use an int or None",
            ));
        }
        if raw.iter().any(gather::is_array_index) {
            return self.index_with_array(t, &raw, span);
        }
        if raw.iter().filter(|v| matches!(v, Value::Ellipsis)).count() > 1 {
            return Err(Diagnostic::error(
                span,
                "an index can only have a single ellipsis ('...')",
            ));
        }
        // Spell `...` out as full slices.
        let consumed = raw
            .iter()
            .filter(|v| !matches!(v, Value::None | Value::Ellipsis))
            .count();
        if consumed > t.ty.rank() {
            return Err(Diagnostic::error(
                span,
                format!("too many indices for array: array is {}-dimensional, but {consumed} were indexed", t.ty.rank()),
            ));
        }
        let raw: Vec<Value> = raw
            .iter()
            .flat_map(|v| match v {
                Value::Ellipsis => (0..t.ty.rank().saturating_sub(consumed))
                    .map(|_| full_slice())
                    .collect::<Vec<_>>(),
                other => vec![other.clone()],
            })
            .collect();
        // An integer index after a slice or `None` that is run-time, or
        // points into an axis of run-time size (bounds-checked when the
        // library runs): move that axis first, pick, then index the rest.
        let lead_ints = raw.iter().take_while(|v| is_int_index(v)).count();
        let mut axis = 0;
        for (k, v) in raw.iter().enumerate() {
            if axis >= t.ty.rank() {
                break;
            }
            if k > lead_ints
                && is_int_index(v)
                && (v.is_staged() || matches!(t.ty.dims[axis], Dim::Sym(_)))
            {
                let moved = if axis == 0 {
                    t.clone()
                } else {
                    let mut perm = vec![axis];
                    perm.extend((0..t.ty.rank()).filter(|&a| a != axis));
                    let ty = infer::transpose(&t.ty, &perm)
                        .map_err(|e| super::tensor::type_error(span, e))?;
                    self.emit(OpKind::Transpose { perm }, &[t], ty, span)?
                };
                let picked = self.dyn_index(&moved, &raw[k..k + 1], span)?;
                let mut rest: Vec<Value> = raw[..k].to_vec();
                rest.extend_from_slice(&raw[k + 1..]);
                return self.index_rest(picked, &rest, span);
            }
            if !matches!(v, Value::None) {
                axis += 1;
            }
        }
        // Run-time indices: leading integer indices with at least one staged.
        let ints = raw
            .iter()
            .take_while(|v| is_int_index(v))
            .count()
            .min(t.ty.rank());
        // Run-time indices, and integer indices into run-time sized axes, are
        // bounds-checked when the library runs.
        let symbolic_axis = t.ty.dims[..ints].iter().any(|d| matches!(d, Dim::Sym(_)));
        if raw[..ints].iter().any(Value::is_staged) || symbolic_axis {
            let picked = self.dyn_index(t, &raw[..ints], span)?;
            return self.index_rest(picked, &raw[ints..], span);
        }
        if let Some(Value::Slice(s)) = raw.first() {
            if s.start.is_staged() || s.stop.is_staged() {
                return self.dyn_slice(t, s, &raw[1..], span);
            }
        }
        let mut items = Vec::new();
        for v in &raw {
            match v {
                Value::None => items.push(IndexItem::NewAxis),
                Value::Slice(s) => items.push(IndexItem::Slice(slice_dim(s, span)?)),
                Value::Tensor(_) | Value::List(_) | Value::SymInt(_) => {
                    return Err(Diagnostic::unsupported(
                        span,
                        "indexing with a staged value or an array is not supported yet; use compile-time ints and slices",
                    ))
                }
                other => items.push(IndexItem::Int(other.as_int().ok_or_else(|| {
                    Diagnostic::error(span, format!("only integers, slices, None and ... are valid indices, not {}", other.type_name()))
                })?)),
            }
        }
        let used = items
            .iter()
            .filter(|i| !matches!(i, IndexItem::NewAxis))
            .count();
        items.extend((used..t.ty.rank()).map(|_| IndexItem::Slice(SliceDim::FULL)));
        // Per-axis slices and the final dims.
        let mut slices = Vec::new();
        let mut final_dims = Vec::new();
        let mut axis = 0;
        for item in &items {
            match item {
                IndexItem::NewAxis => final_dims.push(Dim::Static(1)),
                IndexItem::Int(i) => {
                    let dim = &t.ty.dims[axis];
                    if matches!(dim, Dim::Sym(_)) {
                        return Err(Diagnostic::internal(
                            span,
                            format!("an integer index into axis {axis}, of run-time size {dim}, reached the static slicing path"),
                        ));
                    }
                    if let Dim::Static(n) = dim {
                        if *i < -n || *i >= *n {
                            return Err(Diagnostic::error(
                                span,
                                format!("index {i} is out of bounds for axis {axis} with size {n}"),
                            ));
                        }
                    }
                    let start = match dim {
                        Dim::Static(n) if *i < 0 => i + n,
                        _ => *i,
                    };
                    let stop = if start == -1 { None } else { Some(start + 1) };
                    slices.push(SliceDim {
                        start: Some(start),
                        stop,
                        step: 1,
                    });
                    axis += 1;
                }
                IndexItem::Slice(s) => {
                    final_dims.push(infer::slice_dim(&t.ty.dims[axis], s));
                    slices.push(*s);
                    axis += 1;
                }
            }
        }
        let mut cur = t.clone();
        if slices.iter().any(|s| !s.is_full()) {
            let ty =
                infer::slice(&t.ty, &slices).map_err(|e| super::tensor::type_error(span, e))?;
            cur = self.emit(OpKind::Slice { dims: slices }, &[t], ty, span)?;
        }
        self.reshape_to(&cur, final_dims, span)
    }
}

/// The index item `:`.
fn full_slice() -> Value {
    Value::Slice(std::rc::Rc::new(SliceValue {
        start: Value::None,
        stop: Value::None,
        step: Value::None,
    }))
}

fn is_int_index(v: &Value) -> bool {
    match v {
        Value::Tensor(t) => t.ty.rank() == 0 && t.ty.dtype.is_int(),
        Value::SymInt(_) | Value::Int(_) => true,
        _ => false,
    }
}

impl Stager {
    /// Applies the remaining compile-time index items after a run-time index.
    fn index_rest(&mut self, t: Tensor, rest: &[Value], span: Span) -> R<Tensor> {
        if rest.is_empty() {
            return Ok(t);
        }
        self.index_tensor(&t, &Value::tuple(rest.to_vec()), span)
    }

    /// `t[a:b, rest...]` with run-time bounds on the first axis (step 1).
    fn dyn_slice(&mut self, t: &Tensor, s: &SliceValue, rest: &[Value], span: Span) -> R<Tensor> {
        if !matches!(s.step, Value::None) && s.step.as_int() != Some(1) {
            return Err(Diagnostic::unsupported(
                span,
                "a slice with run-time bounds must have step 1",
            ));
        }
        let first = t.ty.dims.first().cloned().ok_or_else(|| {
            Diagnostic::error(span, "too many indices for array: array is 0-dimensional")
        })?;
        for bound in [&s.start, &s.stop] {
            if let Value::Tensor(b) = bound {
                if b.ty.rank() != 0 || !b.ty.dtype.is_int() {
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "slice indices must be integers or None, got a {} array of shape {}",
                            b.ty.dtype,
                            b.ty.shape_string()
                        ),
                    ));
                }
            }
        }
        let start = match &s.start {
            Value::None => Value::Int(0),
            v => v.clone(),
        };
        let stop = match &s.stop {
            Value::None => super::methods::dim_value(&first),
            v => v.clone(),
        };
        let a = self.to_tensor_as(&start, agc_ir::DType::I64, span)?;
        let b = self.to_tensor_as(&stop, agc_ir::DType::I64, span)?;
        let mut dims = t.ty.dims.clone();
        // Named by the source size and the bound values: equal slices have equal sizes.
        let (av, bv) = (self.localize(&a, span)?, self.localize(&b, span)?);
        dims[0] = Dim::Sym(format!("{first}[{av}:{bv}]"));
        let sliced = self.emit(
            OpKind::DynSlice,
            &[t, &a, &b],
            TensorType::new(t.ty.dtype, dims),
            span,
        )?;
        if rest.is_empty() {
            return Ok(sliced);
        }
        let mut items = vec![Value::Slice(std::rc::Rc::new(SliceValue {
            start: Value::None,
            stop: Value::None,
            step: Value::None,
        }))];
        items.extend_from_slice(rest);
        self.index_tensor(&sliced, &Value::tuple(items), span)
    }
}

/// Whether `s` may name a symbolic dim: `[A-Za-z][A-Za-z0-9_]*`.
fn is_dim_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `agc.f32[d0, d1, ...]`: ints are static dims, strings symbolic ones.
fn spec(dtype: agc_ir::DType, index: &Value, span: Span) -> R<Value> {
    let items: Vec<Value> = match index {
        Value::Tuple(t) => t.as_ref().clone(),
        other => vec![other.clone()],
    };
    let dims = items
        .iter()
        .map(|v| match v {
            Value::Int(n) if *n >= 0 => Ok(Dim::Static(*n)),
            Value::Str(s) if is_dim_name(s) => Ok(Dim::Sym(s.to_string())),
            Value::Str(s) => Err(Diagnostic::error(
                span,
                format!(
                    "a symbolic dim must be a name of ASCII letters, digits and '_' that starts \
                     with a letter (it names the size in the C header and the metadata), got {}",
                    pyops::py_repr(&Value::Str(s.clone()))
                ),
            )),
            other => Err(Diagnostic::error(
                span,
                format!(
                    "a tensor spec dim must be a non-negative int or a name, got {}",
                    pyops::py_repr(other)
                ),
            )),
        })
        .collect::<R<Vec<_>>>()?;
    Ok(Value::Spec(TensorType::new(dtype, dims)))
}
