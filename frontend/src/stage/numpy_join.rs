//! Joining arrays in the `agc.numpy` surface: `concatenate`, `stack`,
//! `vstack`, `hstack`, `dstack` and `column_stack`, and
//! `np.array`/`np.stack` of a staged list.
//!
//! The sequence joined may hold arrays, Python lists (of numbers or staged
//! scalars) and Python numbers; numpy makes each an array first, so a
//! Python float in a list counts as float64 (not as a weak scalar). It may
//! also be one array, whose rows numpy iterates: that is a transpose and a
//! reshape, so it works for run-time lengths too. `dtype=` casts with
//! numpy's default `casting="same_kind"` check.

use super::args::Args;
use super::lists::ListCell;
use super::numpy::dtype_arg;
use super::pyops;
use super::tensor::type_error;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, CmpOp, DType, Dim, Span};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "dstack",
    "column_stack",
];

/// What a join's first argument holds.
enum Parts {
    /// Arrays (and array-likes), one per item.
    Items(Vec<Tensor>),
    /// One array: its rows are the items.
    Rows(Tensor),
}

/// The dims of an item of `np.<f>` (`hstack`, `vstack`, `dstack`,
/// `column_stack`) before the join: at least 1-d (`hstack`), 2-d with new
/// leading axes (`vstack`), a 1-d item as a column `(n, 1)`
/// (`column_stack`), or numpy's `atleast_3d`: `(n,)` as `(1, n, 1)`, `(m, n)`
/// as `(m, n, 1)` (`dstack`).
pub(super) fn lifted_dims(f: &str, dims: &[Dim]) -> Vec<Dim> {
    let one = Dim::Static(1);
    match (f, dims.len()) {
        ("column_stack", 0) => vec![one.clone(), one],
        ("column_stack", 1) => vec![dims[0].clone(), one],
        ("dstack", 0) => vec![one.clone(), one.clone(), one],
        ("dstack", 1) => vec![one.clone(), dims[0].clone(), one],
        ("dstack", 2) => vec![dims[0].clone(), dims[1].clone(), one],
        ("hstack", 0) => vec![one],
        ("vstack", n) if n < 2 => std::iter::repeat_n(one, 2 - n)
            .chain(dims.iter().cloned())
            .collect(),
        _ => dims.to_vec(),
    }
}

/// Kinds of dtypes in the order `same_kind` casting may go up.
fn kind_rank(d: DType) -> u8 {
    match d {
        DType::Bool => 0,
        DType::I32 | DType::I64 => 1,
        DType::F32 | DType::F64 => 2,
    }
}

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_join(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let dtype = dtype_arg(
            args.kw
                .iter()
                .find(|(k, _)| k == "dtype")
                .map(|(_, v)| v.clone()),
            span,
        )?;
        let unsafe_cast = args
            .kw
            .iter()
            .any(|(k, v)| k == "casting" && matches!(v, Value::Str(s) if &**s == "unsafe"));
        let first = args.req(
            0,
            if f.ends_with("stack") && f != "stack" {
                "tup"
            } else {
                "arrays"
            },
            f,
        )?;
        if let (Value::TensorList(l), "stack") = (&first, f) {
            let t = self.stack_tensor_list(l, true, span)?;
            let t = self.move_first_axis(&t, self.stack_axis(args, span)?, span)?;
            return self
                .cast_joined(t, dtype, unsafe_cast, span)
                .map(Value::Tensor);
        }
        let joined = match (f, self.join_parts(&first, span)?) {
            ("concatenate", parts) => {
                let axis = match args.get(1, "axis") {
                    None => Some(0),
                    Some(Value::None) => None,
                    Some(a) => Some(a.as_int().ok_or_else(|| {
                        Diagnostic::error(span, "axis must be a compile-time int")
                    })?),
                };
                self.concatenate_parts(parts, axis, span)?
            }
            ("stack", Parts::Rows(t)) => {
                self.move_first_axis(&t, self.stack_axis(args, span)?, span)?
            }
            ("stack", Parts::Items(ts)) => {
                let axis = self.stack_axis(args, span)?;
                super::tensor::staged(self.stack(&to_values(ts), axis, span)?, span)?
            }
            ("dstack" | "column_stack", Parts::Rows(t)) => self.stack_rows_deep(&t, f, span)?,
            (_, Parts::Rows(t)) => self.stack_rows(&t, f == "vstack", span)?,
            (_, Parts::Items(ts)) => {
                let mut lifted = Vec::new();
                for t in ts {
                    let dims = lifted_dims(f, &t.ty.dims);
                    lifted.push(self.reshape_to(&t, dims, span)?);
                }
                let axis = match f {
                    "dstack" => 2,
                    "column_stack" => 1,
                    "hstack" if lifted.first().is_some_and(|t| t.ty.rank() > 1) => 1,
                    _ => 0,
                };
                super::tensor::staged(self.concat(&to_values(lifted), axis, span)?, span)?
            }
        };
        self.cast_joined(joined, dtype, unsafe_cast, span)
            .map(Value::Tensor)
    }

    /// The items of a join's sequence argument, each made an array as numpy does.
    fn join_parts(&mut self, v: &Value, span: Span) -> R<Parts> {
        if let Value::Tensor(t) = v {
            if t.ty.rank() == 0 {
                return Err(Diagnostic::error(span, "iteration over a 0-d array"));
            }
            return Ok(Parts::Rows(t.clone()));
        }
        let items = match v {
            Value::Iterator(_) => {
                return Err(Diagnostic::error(
                    span,
                    "arrays to join must be passed as a sequence, not an iterator",
                ))
            }
            Value::TensorList(l) => return Ok(Parts::Rows(self.stack_tensor_list(l, true, span)?)),
            other => pyops::iterate(other, span)?,
        };
        let mut out = Vec::new();
        for it in &items {
            let mut t = self.to_tensor(it, None, span)?;
            t.weak = false;
            out.push(t);
        }
        if out.is_empty() {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "need at least one array to concatenate",
            ));
        }
        Ok(Parts::Items(out))
    }

    /// `np.stack`'s `axis=` (position 1), 0 by default.
    fn stack_axis(&self, args: &Args, span: Span) -> R<i64> {
        match args.get(1, "axis") {
            None => Ok(0),
            Some(a) => a
                .as_int()
                .ok_or_else(|| Diagnostic::error(span, "axis must be a compile-time int")),
        }
    }

    /// `np.concatenate(parts, axis)`; `axis=None` joins the flattened parts.
    fn concatenate_parts(&mut self, parts: Parts, axis: Option<i64>, span: Span) -> R<Tensor> {
        match (parts, axis) {
            (Parts::Rows(t), None) => self.flatten(&t, span),
            (Parts::Rows(t), Some(a)) => {
                if t.ty.rank() < 2 {
                    return Err(Diagnostic::error(
                        span,
                        "zero-dimensional arrays cannot be concatenated",
                    ));
                }
                let a =
                    infer::normalize_axis(a, t.ty.rank() - 1).map_err(|e| type_error(span, e))?;
                self.join_rows(&t, a, span)
            }
            (Parts::Items(ts), None) => {
                let flat = ts
                    .iter()
                    .map(|t| self.flatten(t, span).map(Value::Tensor))
                    .collect::<R<Vec<_>>>()?;
                super::tensor::staged(self.concat(&flat, 0, span)?, span)
            }
            (Parts::Items(ts), Some(a)) => {
                super::tensor::staged(self.concat(&to_values(ts), a, span)?, span)
            }
        }
    }

    /// The rows of `t` concatenated along their axis `axis`: `t`'s first
    /// axis moves next to axis `axis + 1` and the two merge.
    fn join_rows(&mut self, t: &Tensor, axis: usize, span: Span) -> R<Tensor> {
        let rank = t.ty.rank();
        let perm: Vec<usize> = (1..=axis).chain([0]).chain(axis + 1..rank).collect();
        let moved = self.permute(t, perm, span)?;
        let mut dims = moved.ty.dims.clone();
        let merged = infer::dim_product(&dims[axis..axis + 2]);
        dims.splice(axis..axis + 2, [merged]);
        self.reshape_to(&moved, dims, span)
    }

    /// `np.vstack(t)` / `np.hstack(t)` of one array: its rows made at least
    /// 2-d (1-d) and joined along axis 0 (axis 1 for rows of rank ≥ 2 in hstack).
    fn stack_rows(&mut self, t: &Tensor, vertical: bool, span: Span) -> R<Tensor> {
        match (vertical, t.ty.rank()) {
            (true, 1) => self.reshape_to(t, vec![t.ty.dims[0].clone(), Dim::Static(1)], span),
            (true, 2) | (false, 1) => Ok(t.clone()),
            (true, _) | (false, 2) => self.join_rows(t, 0, span),
            (false, _) => self.join_rows(t, 1, span),
        }
    }

    /// `np.dstack(t)` / `np.column_stack(t)` of one array: its rows lifted
    /// as [`lifted_dims`] lifts items and joined.
    fn stack_rows_deep(&mut self, t: &Tensor, f: &str, span: Span) -> R<Tensor> {
        let rank = t.ty.rank();
        match (f, rank) {
            (_, 0) => Err(Diagnostic::error(span, "iteration over a 0-d array")),
            // The rows are 0-d: (1, 1) columns, or (1, 1, 1) depths.
            ("column_stack", 1) => {
                self.reshape_to(t, vec![Dim::Static(1), t.ty.dims[0].clone()], span)
            }
            ("dstack", 1) => {
                let dims = vec![Dim::Static(1), Dim::Static(1), t.ty.dims[0].clone()];
                self.reshape_to(t, dims, span)
            }
            ("column_stack", 2) => self.permute(t, vec![1, 0], span),
            ("dstack", 2) => {
                let moved = self.permute(t, vec![1, 0], span)?;
                let mut dims = moved.ty.dims.clone();
                dims.insert(0, Dim::Static(1));
                self.reshape_to(&moved, dims, span)
            }
            ("dstack", 3) => self.permute(t, vec![1, 2, 0], span),
            ("dstack", _) => self.join_rows(t, 2, span),
            _ => self.join_rows(t, 1, span),
        }
    }

    /// `np.stack(rows-of-t, axis)`: `t` with its first axis moved to `axis`.
    fn move_first_axis(&mut self, t: &Tensor, axis: i64, span: Span) -> R<Tensor> {
        let a = infer::normalize_axis(axis, t.ty.rank()).map_err(|e| type_error(span, e))?;
        let mut perm: Vec<usize> = (1..t.ty.rank()).collect();
        perm.insert(a, 0);
        self.permute(t, perm, span)
    }

    /// The items of a staged list as one array; `checked`: an empty list is a
    /// run-time error (`np.stack`; `np.array` gives an empty array).
    pub(super) fn stack_tensor_list(
        &mut self,
        l: &ListCell,
        checked: bool,
        span: Span,
    ) -> R<Tensor> {
        if checked {
            let len = Value::Tensor(l.borrow().1.clone());
            let nonempty = self.compare(CmpOp::Gt, &len, &Value::Int(0), span)?;
            let nonempty = self.to_tensor(&nonempty, None, span)?;
            self.check(
                &nonempty,
                "ValueError: need at least one array to stack".into(),
                span,
            )?;
        }
        self.tensor_list_stack(l, span)
    }

    /// A joined array cast to `dtype=`, which must be the same kind or a
    /// higher one unless `casting="unsafe"`.
    fn cast_joined(
        &mut self,
        t: Tensor,
        dtype: Option<DType>,
        unsafe_cast: bool,
        span: Span,
    ) -> R<Tensor> {
        let Some(d) = dtype else { return Ok(t) };
        if !unsafe_cast && kind_rank(d) < kind_rank(t.ty.dtype) {
            return Err(Diagnostic::error(
                span,
                format!(
                    "TypeError: Cannot cast array data from dtype('{}') to dtype('{}') according to the rule 'same_kind'",
                    t.ty.dtype.numpy_name(),
                    d.numpy_name()
                ),
            ));
        }
        self.cast(&t, d, span)
    }
}

fn to_values(ts: Vec<Tensor>) -> Vec<Value> {
    ts.into_iter().map(Value::Tensor).collect()
}
