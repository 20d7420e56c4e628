//! Advanced (integer-array) indexing mixed with basic items, by numpy's
//! rules: `x[idx]`, `x[:, i, j]`, `x[3, 2:, [1, 3]]`, `x[[0, 1], None, :, k]`.
//!
//! When an item is an index array (an integer tensor of rank ≥ 1 or a Python
//! list), every integer item is an index too, and all of them broadcast to
//! one shape `B`. The slices apply first; then the indexed axes are merged
//! into one and gathered with the row-major linear index (each index made
//! non-negative and bounds-checked on its own axis first, so an index out of
//! range fails the call as numpy raises). `B` replaces the indexed axes
//! where they are adjacent in the subscript, and goes first when a slice,
//! `None` or `...` separates them. Boolean masks select a data-dependent
//! number of elements and are rejected.

use super::value::{SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, BinaryOp, CmpOp, DType, Dim, Span};
use std::rc::Rc;

/// One subscript item once `...` is spelled out.
enum Item {
    /// An index (array or integer), by its value.
    Index(Value),
    /// A slice (applied before the gather).
    Slice(Value),
    /// `None`: a new size-1 axis.
    NewAxis,
}

fn full_slice() -> Value {
    Value::Slice(Rc::new(SliceValue {
        start: Value::None,
        stop: Value::None,
        step: Value::None,
    }))
}

/// True for an integer subscript item (which becomes an index beside an array).
fn is_integer(v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::SymInt(_) => true,
        Value::Tensor(t) => t.ty.rank() == 0 && t.ty.dtype.is_int(),
        _ => false,
    }
}

impl Stager {
    /// `t[items]` where some item is an index array (see [`super::gather::is_array_index`]).
    pub(super) fn index_with_array(&mut self, t: &Tensor, raw: &[Value], span: Span) -> R<Tensor> {
        if raw
            .iter()
            .any(|v| matches!(v, Value::Tensor(m) if m.ty.dtype == DType::Bool))
        {
            return Err(Diagnostic::unsupported(
                span,
                "boolean mask indexing selects a run-time number of elements, which agc cannot stage; use np.where(mask, x, 0) or a sum over the mask",
            ));
        }
        let items = self.index_items(t, raw, span)?;
        // 1. The slices, with `:` on the indexed axes.
        let basic: Vec<Value> = items
            .iter()
            .filter_map(|it| match it {
                Item::Index(_) => Some(full_slice()),
                Item::Slice(s) => Some(s.clone()),
                Item::NewAxis => None,
            })
            .collect();
        let sliced = super::tensor::staged(
            self.get_item(&Value::Tensor(t.clone()), &Value::tuple(basic), span)?,
            span,
        )?;
        // 2. The indexed axes of `sliced`, and whether they are adjacent in the subscript.
        let mut axes = Vec::new();
        let mut indices = Vec::new();
        let mut at = Vec::new();
        let mut axis = 0;
        for (pos, it) in items.iter().enumerate() {
            match it {
                Item::Index(v) => {
                    axes.push(axis);
                    indices.push(v.clone());
                    at.push(pos);
                    axis += 1;
                }
                Item::Slice(_) => axis += 1,
                Item::NewAxis => {}
            }
        }
        let adjacent = at.windows(2).all(|w| w[1] == w[0] + 1);
        // 3. One gather with the linear index over the merged indexed axes.
        let (src, gather_axis) = if adjacent {
            (sliced.clone(), axes[0])
        } else {
            let perm: Vec<usize> = axes
                .iter()
                .copied()
                .chain((0..sliced.ty.rank()).filter(|a| !axes.contains(a)))
                .collect();
            (self.permute(&sliced, perm, span)?, 0)
        };
        let k = axes.len();
        let sizes: Vec<(usize, Dim)> = axes
            .iter()
            .map(|&a| (a, sliced.ty.dims[a].clone()))
            .collect();
        let idx = self.linear_index(&indices, &sizes, span)?;
        let mut merged = src.ty.dims.clone();
        let size = infer::dim_product(&merged[gather_axis..gather_axis + k]);
        merged.splice(gather_axis..gather_axis + k, [size]);
        let src = self.reshape_to(&src, merged, span)?;
        let picked = self.gather(&src, &idx, gather_axis, span)?;
        // 4. The result's axes: `B` in place (adjacent) or first, and `None`s as size-1 axes.
        let b = idx.ty.dims.clone();
        let mut dims = if adjacent { Vec::new() } else { b.clone() };
        let mut axis = 0;
        let mut placed = false;
        for it in &items {
            match it {
                Item::Index(_) => {
                    if adjacent && !placed {
                        dims.extend(b.iter().cloned());
                        placed = true;
                    }
                    axis += 1;
                }
                Item::Slice(_) => {
                    dims.push(sliced.ty.dims[axis].clone());
                    axis += 1;
                }
                Item::NewAxis => dims.push(Dim::Static(1)),
            }
        }
        self.reshape_to(&picked, dims, span)
    }

    /// The subscript items with `...` spelled out and `:` for the axes not named.
    fn index_items(&mut self, t: &Tensor, raw: &[Value], span: Span) -> R<Vec<Item>> {
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
        if raw.iter().filter(|v| matches!(v, Value::Ellipsis)).count() > 1 {
            return Err(Diagnostic::error(
                span,
                "an index can only have a single ellipsis ('...')",
            ));
        }
        let mut items = Vec::new();
        let mut spelled = false;
        for v in raw {
            match v {
                Value::Ellipsis => {
                    items.extend((consumed..t.ty.rank()).map(|_| Item::Slice(full_slice())));
                    spelled = true;
                }
                Value::None => items.push(Item::NewAxis),
                Value::Slice(_) => items.push(Item::Slice(v.clone())),
                v if super::gather::is_array_index(v) || is_integer(v) => items.push(Item::Index(v.clone())),
                other => {
                    return Err(Diagnostic::error(
                        span,
                        format!("only integers, slices, None, ... and integer arrays are valid indices, not {}", other.type_name()),
                    ))
                }
            }
        }
        if !spelled {
            items.extend((consumed..t.ty.rank()).map(|_| Item::Slice(full_slice())));
        }
        Ok(items)
    }

    /// The index into the row-major merge of the indexed axes (each an axis
    /// number and its size) that the indices pick, broadcast together. One
    /// index is passed as it is (the gather checks it); several are each
    /// made non-negative and checked against their own axis first.
    fn linear_index(&mut self, indices: &[Value], axes: &[(usize, Dim)], span: Span) -> R<Tensor> {
        if let [one] = indices {
            return self.index_array(one, span);
        }
        let mut acc: Option<Value> = None;
        for (v, (axis, d)) in indices.iter().zip(axes) {
            let i = self.index_array(v, span)?;
            let i = Value::Tensor(self.cast(&i, DType::I64, span)?);
            let n = super::methods::dim_value(d);
            let negative = self.compare(CmpOp::Lt, &i, &Value::Int(0), span)?;
            let wrapped = self.binop(rustpython_parser::ast::Operator::Add, &i, &n, span)?;
            let i = self.select(&negative, &wrapped, &i, span)?;
            let low = self.compare(CmpOp::Ge, &i, &Value::Int(0), span)?;
            let high = self.compare(CmpOp::Lt, &i, &n, span)?;
            let inside = self.binary(BinaryOp::And, &low, &high, span)?;
            let all = self.call_numpy(
                "np.all",
                None,
                super::args::Args::positional(vec![inside], span),
            )?;
            let all = self.to_tensor(&all, None, span)?;
            self.check(
                &all,
                format!("IndexError: index out of bounds for axis {axis} with size {d}"),
                span,
            )?;
            acc = Some(match acc {
                None => i,
                Some(prev) => {
                    let scaled =
                        self.binop(rustpython_parser::ast::Operator::Mult, &prev, &n, span)?;
                    self.binop(rustpython_parser::ast::Operator::Add, &scaled, &i, span)?
                }
            });
        }
        let acc =
            acc.ok_or_else(|| Diagnostic::internal(span, "an advanced index without indices"))?;
        self.to_tensor(&acc, Some(DType::I64), span)
    }
}
