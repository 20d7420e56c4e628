//! Typed construction of IR ops with numpy's dtype promotion (NEP 50: Python
//! scalars are weak, numpy scalars and arrays are strong) and broadcasting.
//! Every op is stamped with the span of the user's expression.

use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::infer::{self, TypeError};
use agc_ir::{BinaryOp, CmpOp, ConstData, DType, Dim, OpKind, Span, TensorType, Type, UnaryOp};

/// The most dims an array may have (numpy's `NPY_MAXDIMS`).
pub const MAX_RANK: usize = 64;

/// A function may stage at most this many ops (not counting those of loop
/// probes, which are dropped). The build time grows about linearly with
/// them (a 100,000-term sum builds in about 12 s), so past this a build
/// would run for minutes and gigabytes; code that long (a generated 50 MB
/// expression) gets an error at the op that crosses it.
pub const MAX_FUNCTION_OPS: usize = 250_000;

/// How an operand takes part in dtype promotion.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An array or numpy scalar of this dtype.
    Strong(DType),
    /// A Python `bool`.
    WeakBool,
    /// A Python `int` (or a run-time size).
    WeakInt,
    /// A Python `float`.
    WeakFloat,
}

/// The promotion kind of a value, if it is numeric.
pub fn kind_of(v: &Value) -> Option<Kind> {
    match v {
        Value::Tensor(t) if t.weak => Some(match t.ty.dtype {
            DType::Bool => Kind::WeakBool,
            d if d.is_float() => Kind::WeakFloat,
            _ => Kind::WeakInt,
        }),
        Value::Tensor(t) => Some(Kind::Strong(t.ty.dtype)),
        Value::Bool(_) => Some(Kind::WeakBool),
        Value::Int(_) | Value::SymInt(_) => Some(Kind::WeakInt),
        Value::Float(_) => Some(Kind::WeakFloat),
        _ => None,
    }
}

/// numpy's result dtype for operands of the given kinds.
pub fn result_dtype(kinds: &[Kind]) -> DType {
    let strong = kinds.iter().filter_map(|k| match k {
        Kind::Strong(d) => Some(*d),
        _ => None,
    });
    let base = strong.reduce(DType::promote);
    let weakest = |k: Kind| match k {
        Kind::WeakBool => 0,
        Kind::WeakInt => 1,
        Kind::WeakFloat => 2,
        Kind::Strong(_) => -1,
    };
    let weak = kinds.iter().map(|k| weakest(*k)).max().unwrap_or(-1);
    match base {
        None => match weak {
            0 => DType::Bool,
            1 => DType::I64,
            _ => DType::F64,
        },
        Some(d) => match weak {
            1 if d == DType::Bool => DType::I64,
            2 if !d.is_float() => DType::F64,
            _ => d,
        },
    }
}

/// The tensor of a value that an op staged (an internal error otherwise).
pub fn staged(v: Value, span: Span) -> Result<Tensor, Diagnostic> {
    match v {
        Value::Tensor(t) => Ok(t),
        other => Err(Diagnostic::internal(
            span,
            format!("expected a staged tensor, got '{}'", other.type_name()),
        )),
    }
}

/// Converts a [`TypeError`] into a diagnostic at `span`.
pub fn type_error(span: Span, e: TypeError) -> Diagnostic {
    Diagnostic::error(span, e.to_string())
}

impl Stager {
    /// Appends an op with one result of type `ty`.
    /// Identical pure ops on the same operands are staged once (hash-consing):
    /// `s + 200` written twice is one value, so slices by it have one size.
    pub fn emit(
        &mut self,
        kind: OpKind,
        operands: &[&Tensor],
        ty: TensorType,
        span: Span,
    ) -> R<Tensor> {
        let ops: Vec<agc_ir::Value> = operands
            .iter()
            .map(|t| self.localize(t, span))
            .collect::<R<_>>()?;
        let key = match &kind {
            OpKind::Const(data) if data.len() > 64 => None,
            _ => Some(format!("{kind:?}|{ops:?}|{ty}")),
        };
        if let Some(t) = key.as_ref().and_then(|k| self.staged_ops.get(k)) {
            if t.origin == self.generation && self.open_regions.contains(&t.region) {
                return Ok(t.clone());
            }
        }
        let t = self.emit_new(kind, ops, ty, span)?;
        if let Some(k) = key {
            self.staged_ops.insert(k, t.clone());
        }
        Ok(t)
    }

    fn emit_new(
        &mut self,
        kind: OpKind,
        ops: Vec<agc_ir::Value>,
        ty: TensorType,
        span: Span,
    ) -> R<Tensor> {
        if ty.rank() > MAX_RANK {
            return Err(Diagnostic::error(
                span,
                format!(
                    "an array of {} dimensions: numpy and agc allow at most {MAX_RANK}",
                    ty.rank()
                ),
            ));
        }
        let region = if self.func.is_some() {
            self.region
        } else {
            self.prelude.body
        };
        let probe_ops = self.probe_ops;
        let f = self.func_mut();
        if f.num_ops().saturating_sub(probe_ops) >= MAX_FUNCTION_OPS {
            return Err(Diagnostic::error(
                span,
                format!(
                    "this function stages over {MAX_FUNCTION_OPS} operations by here, too many to \
                     compile; compute repeated work in a staged loop (decided on a tensor) or split \
                     the expression over several exported functions"
                ),
            ));
        }
        let (_, results) = f.append_op(
            region,
            kind,
            ops,
            vec![Type::Tensor(ty.clone())],
            vec![],
            span,
        );
        let t = Tensor {
            value: results[0],
            ty,
            origin: self.generation,
            region,
            weak: false,
        };
        self.register_sym_sources(&t);
        Ok(t)
    }

    /// Records `t` as where to read its symbolic dims at run time (unless a
    /// visible tensor already has them).
    pub fn register_sym_sources(&mut self, t: &Tensor) {
        for (axis, d) in t.ty.dims.iter().enumerate() {
            if let Dim::Sym(name) = d {
                let visible = self
                    .sym_sources
                    .get(name)
                    .is_some_and(|(s, _)| self.open_regions.contains(&s.region));
                if !visible {
                    self.sym_sources.insert(name.clone(), (t.clone(), axis));
                }
            }
        }
    }

    /// A run-time check: the call fails with `message` where `holds` is false.
    pub fn check(&mut self, holds: &Tensor, message: String, span: Span) -> R<()> {
        let cond = self.localize(holds, span)?;
        let region = if self.func.is_some() {
            self.region
        } else {
            self.prelude.body
        };
        self.func_mut().append_op(
            region,
            OpKind::Assert { message },
            vec![cond],
            vec![],
            vec![],
            span,
        );
        Ok(())
    }

    /// A literal tensor.
    pub fn constant(&mut self, data: ConstData, ty: TensorType, span: Span) -> R<Tensor> {
        self.emit(OpKind::Const(data), &[], ty, span)
    }

    /// A rank-0 literal of `dtype` holding `v`.
    pub fn scalar(&mut self, v: f64, dtype: DType, span: Span) -> R<Tensor> {
        let data = ConstData::Float(vec![v]).cast(dtype);
        self.constant(data, TensorType::scalar(dtype), span)
    }

    /// Stages a numeric value as a tensor of `dtype` (weak scalars take `dtype`).
    pub fn to_tensor_as(&mut self, v: &Value, dtype: DType, span: Span) -> R<Tensor> {
        if let (Value::Int(i), DType::I32) = (v, dtype) {
            if i32::try_from(*i).is_err() {
                return Err(Diagnostic::error(
                    span,
                    format!("Python integer {i} out of bounds for int32"),
                ));
            }
        }
        let t = self.to_tensor(v, Some(dtype), span)?;
        self.cast(&t, dtype, span)
    }

    /// Stages a numeric value (Python scalar, nested list, run-time size, tensor).
    /// `dtype` overrides the default dtype of literals.
    pub fn to_tensor(&mut self, v: &Value, dtype: Option<DType>, span: Span) -> R<Tensor> {
        match v {
            Value::Tensor(t) => Ok(t.clone()),
            Value::Bool(b) => self.scalar(*b as i64 as f64, dtype.unwrap_or(DType::Bool), span),
            Value::Int(i) => {
                let d = dtype.unwrap_or(DType::I64);
                self.constant(
                    ConstData::Int(vec![*i]).cast(d),
                    TensorType::scalar(d),
                    span,
                )
            }
            Value::Float(x) => self.scalar(*x, dtype.unwrap_or(DType::F64), span),
            Value::SymInt(Dim::Static(n)) => self.to_tensor(&Value::Int(*n), dtype, span),
            Value::SymInt(d @ Dim::Sym(_)) => {
                let size = self.sym_value(d, span)?;
                match dtype {
                    Some(d) if d != DType::I64 => self.cast(&size, d, span),
                    _ => Ok(size),
                }
            }
            Value::List(_) | Value::Tuple(_) | Value::NamedTuple(..) => {
                self.array_literal(v, dtype, span)
            }
            // A list appended to in a staged loop is array-like too.
            Value::TensorList(l) => self.tensor_list_stack(l, span),
            other => Err(Diagnostic::error(
                span,
                format!(
                    "expected a number or an array, got a value of type '{}'",
                    other.type_name()
                ),
            )),
        }
    }

    /// The tensor and axis a symbolic dim can be read from: a parameter, or
    /// a tensor staged in a region still open that has it.
    fn sym_source(&mut self, d: &Dim) -> Option<(Tensor, usize)> {
        let origin = self.generation;
        if let Dim::Sym(name) = d {
            if let Some((t, axis)) = self.sym_sources.get(name) {
                // A tensor of an enclosing function is read through a capture.
                let captured = t.origin != self.generation
                    && self.captures.is_some()
                    && self.enclosing.contains(&t.origin);
                if captured
                    || (t.origin == self.generation && self.open_regions.contains(&t.region))
                {
                    return Some((t.clone(), *axis));
                }
            }
        }
        let f = self.func_mut();
        f.params().iter().find_map(|&p| {
            let ty = f.ty(p).tensor();
            ty.dims.iter().position(|x| x == d).map(|axis| {
                (
                    Tensor {
                        value: p,
                        ty: ty.clone(),
                        origin,
                        region: f.body,
                        weak: false,
                    },
                    axis,
                )
            })
        })
    }

    /// A run-time size as a rank-0 `i64` (weak, like a Python int): read
    /// from a tensor that has it, or computed from the sizes it is made of
    /// (`(A*B)`, `(B-1)`, `(B+T)`).
    pub(super) fn sym_value(&mut self, d: &Dim, span: Span) -> R<Tensor> {
        if let Dim::Static(n) = d {
            return Ok(self.scalar(*n as f64, DType::I64, span)?.into_weak());
        }
        if let Some((source, axis)) = self.sym_source(d) {
            let size = self.emit(
                OpKind::Dim { axis },
                &[&source],
                TensorType::scalar(DType::I64),
                span,
            )?;
            return Ok(size.into_weak());
        }
        let name = match d {
            Dim::Sym(n) => n.clone(),
            Dim::Static(_) => unreachable!("handled above"),
        };
        let unknown = || {
            Diagnostic::unsupported(
                span,
                format!("the run-time size {name} cannot be used as a value here"),
            )
        };
        let inner = name
            .strip_prefix('(')
            .and_then(|x| x.strip_suffix(')'))
            .ok_or_else(unknown)?;
        let parts: Vec<Value> = if inner.contains('*') {
            let (prod, syms) = infer::factor(std::slice::from_ref(d));
            let mut parts: Vec<Value> = syms
                .into_iter()
                .map(|s| Value::SymInt(Dim::Sym(s)))
                .collect();
            parts.push(Value::Int(prod));
            let mut acc = Value::Int(1);
            for p in parts {
                let t = match p {
                    Value::SymInt(d) => Value::Tensor(self.sym_value(&d, span)?),
                    other => other,
                };
                acc = self.binop(rustpython_parser::ast::Operator::Mult, &acc, &t, span)?;
            }
            return self.to_tensor(&acc, Some(DType::I64), span);
        } else if let Some((lhs, k)) = inner
            .rsplit_once('-')
            .filter(|(_, k)| k.parse::<i64>().is_ok())
        {
            let base = self.sym_value(&Dim::Sym(lhs.to_string()), span)?;
            let k: i64 = k.parse().unwrap_or(0);
            vec![Value::Tensor(base), Value::Int(-k)]
        } else if inner.contains('+') {
            inner
                .split('+')
                .map(|p| match p.parse::<i64>() {
                    Ok(n) => Ok(Value::Int(n)),
                    Err(_) => self
                        .sym_value(&Dim::Sym(p.to_string()), span)
                        .map(Value::Tensor),
                })
                .collect::<R<_>>()?
        } else {
            return Err(unknown());
        };
        let mut acc = Value::Int(0);
        for p in parts {
            acc = self.binop(rustpython_parser::ast::Operator::Add, &acc, &p, span)?;
        }
        Ok(self.to_tensor(&acc, Some(DType::I64), span)?.into_weak())
    }

    /// `astype`: converts to `dtype` (no-op when equal).
    pub fn cast(&mut self, t: &Tensor, dtype: DType, span: Span) -> R<Tensor> {
        if t.ty.dtype == dtype {
            return Ok(t.clone());
        }
        self.emit(OpKind::Cast, &[t], t.ty.with_dtype(dtype), span)
    }

    /// Stages `values` after promoting them to one dtype (NEP 50); returns the tensors and the dtype.
    pub fn promote(&mut self, values: &[&Value], span: Span) -> R<(Vec<Tensor>, DType)> {
        let kinds: Vec<Kind> = values
            .iter()
            .map(|v| {
                kind_of(v).ok_or_else(|| {
                    Diagnostic::error(
                        span,
                        format!("expected a number or an array, got '{}'", v.type_name()),
                    )
                })
            })
            .collect::<R<_>>()?;
        let d = result_dtype(&kinds);
        let ts = values
            .iter()
            .map(|v| self.to_tensor_as(v, d, span))
            .collect::<R<_>>()?;
        Ok((ts, d))
    }

    /// An elementwise binary op with broadcasting; `a` and `b` share a dtype.
    pub fn binary_same(&mut self, op: BinaryOp, a: &Tensor, b: &Tensor, span: Span) -> R<Tensor> {
        let dims = infer::broadcast_all(&[&a.ty, &b.ty]).map_err(|e| type_error(span, e))?;
        self.emit(
            OpKind::Binary(op),
            &[a, b],
            TensorType::new(a.ty.dtype, dims),
            span,
        )
    }

    /// A numpy binary operator on two numeric values, at least one staged.
    pub fn binary(&mut self, op: BinaryOp, a: &Value, b: &Value, span: Span) -> R<Value> {
        let weak = [a, b]
            .iter()
            .all(|v| !matches!(kind_of(v), Some(Kind::Strong(_)) | None));
        let r = self.binary_promoted(op, a, b, span)?;
        Ok(match r {
            Value::Tensor(t) if weak => Value::Tensor(t.into_weak()),
            other => other,
        })
    }

    fn binary_promoted(&mut self, op: BinaryOp, a: &Value, b: &Value, span: Span) -> R<Value> {
        let (ts, mut d) = self.promote(&[a, b], span)?;
        let (mut x, mut y) = (ts[0].clone(), ts[1].clone());
        let op = match (op, d) {
            (BinaryOp::Div, cur) if !cur.is_float() => {
                d = DType::F64;
                op
            }
            (BinaryOp::Add, DType::Bool) => BinaryOp::Or,
            (BinaryOp::Mul, DType::Bool) => BinaryOp::And,
            (BinaryOp::Max, DType::Bool) => BinaryOp::Or,
            (BinaryOp::Min, DType::Bool) => BinaryOp::And,
            (BinaryOp::Sub, DType::Bool) => {
                return Err(Diagnostic::error(span, "numpy boolean subtract, the `-` operator, is not supported; use `^` or logical_xor"))
            }
            (BinaryOp::FloorDiv | BinaryOp::Mod | BinaryOp::FMod | BinaryOp::Pow, DType::Bool) => {
                d = DType::I64;
                op
            }
            (BinaryOp::And | BinaryOp::Or | BinaryOp::Xor, cur) if cur.is_float() => {
                return Err(Diagnostic::error(span, format!("bitwise operators are not defined for {}", cur.numpy_name())))
            }
            (BinaryOp::Shl | BinaryOp::Shr, cur) if cur.is_float() || cur == DType::Bool => {
                // numpy shifts bools as int8, which agc does not have.
                return Err(Diagnostic::error(span, format!("shifts are not supported for {} (numpy's shift ufuncs take integers)", cur.numpy_name())))
            }
            _ => op,
        };
        x = self.cast(&x, d, span)?;
        y = self.cast(&y, d, span)?;
        Ok(Value::Tensor(self.binary_same(op, &x, &y, span)?))
    }

    /// A comparison with numpy promotion, producing a bool tensor.
    pub fn compare(&mut self, op: CmpOp, a: &Value, b: &Value, span: Span) -> R<Value> {
        let (ts, _) = self.promote(&[a, b], span)?;
        let dims =
            infer::broadcast_all(&[&ts[0].ty, &ts[1].ty]).map_err(|e| type_error(span, e))?;
        let t = self.emit(
            OpKind::Compare(op),
            &[&ts[0], &ts[1]],
            TensorType::new(DType::Bool, dims),
            span,
        )?;
        Ok(Value::Tensor(t))
    }

    /// An elementwise unary op; transcendental functions of ints compute in float64 as numpy does.
    pub fn unary(&mut self, op: UnaryOp, v: &Value, span: Span) -> R<Value> {
        let t = self.to_tensor(v, None, span)?;
        let needs_float = !matches!(
            op,
            UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Not | UnaryOp::Sign
        );
        let t = match t.ty.dtype {
            DType::Bool if op == UnaryOp::Neg => {
                return Err(Diagnostic::error(span, "the numpy boolean negative, the `-` operator, is not supported; use `~` or logical_not"))
            }
            DType::Bool if needs_float || matches!(op, UnaryOp::Abs | UnaryOp::Sign) => {
                return Err(Diagnostic::error(span, format!("np.{} of a bool array gives float16 in numpy, which agc does not support; cast first", op.name())))
            }
            d if needs_float && !d.is_float() => self.cast(&t, DType::F64, span)?,
            d if op == UnaryOp::Not && d != DType::Bool => {
                let zero = self.scalar(0.0, d, span)?;
                return self.compare(CmpOp::Eq, &Value::Tensor(t), &Value::Tensor(zero), span);
            }
            _ => t,
        };
        let ty = t.ty.clone();
        Ok(Value::Tensor(self.emit(
            OpKind::Unary(op),
            &[&t],
            ty,
            span,
        )?))
    }

    /// `np.where(cond, a, b)`.
    pub fn select(&mut self, cond: &Value, a: &Value, b: &Value, span: Span) -> R<Value> {
        let c = self.to_tensor(cond, None, span)?;
        let c = if c.ty.dtype == DType::Bool {
            c
        } else {
            let zero = self.scalar(0.0, c.ty.dtype, span)?;
            match self.compare(CmpOp::Ne, &Value::Tensor(c), &Value::Tensor(zero), span)? {
                Value::Tensor(t) => t,
                _ => unreachable!("compare stages a tensor"),
            }
        };
        let (ts, d) = self.promote(&[a, b], span)?;
        let dims = infer::broadcast_all(&[&c.ty, &ts[0].ty, &ts[1].ty])
            .map_err(|e| type_error(span, e))?;
        Ok(Value::Tensor(self.emit(
            OpKind::Select,
            &[&c, &ts[0], &ts[1]],
            TensorType::new(d, dims),
            span,
        )?))
    }

    /// `np.matmul(a, b)` with promotion.
    pub fn matmul(&mut self, a: &Value, b: &Value, span: Span) -> R<Value> {
        for v in [a, b] {
            if !matches!(v, Value::Tensor(_) | Value::List(_) | Value::Tuple(_)) {
                return Err(Diagnostic::error(
                    span,
                    "matmul: Input operand does not have enough dimensions (a scalar was given)",
                ));
            }
        }
        let (ts, _) = self.promote(&[a, b], span)?;
        let ty = infer::matmul(&ts[0].ty, &ts[1].ty).map_err(|e| type_error(span, e))?;
        Ok(Value::Tensor(self.emit(
            OpKind::MatMul,
            &[&ts[0], &ts[1]],
            ty,
            span,
        )?))
    }

    /// Row-major reshape to `dims` (already resolved).
    pub fn reshape_to(&mut self, t: &Tensor, dims: Vec<Dim>, span: Span) -> R<Tensor> {
        if t.ty.dims == dims {
            return Ok(t.clone());
        }
        self.emit(
            OpKind::Reshape,
            &[t],
            TensorType::new(t.ty.dtype, dims),
            span,
        )
    }

    /// Permutes the axes of `t`: result axis `i` is axis `perm[i]` (no op for the identity).
    pub fn permute(&mut self, t: &Tensor, perm: Vec<usize>, span: Span) -> R<Tensor> {
        if perm.len() == t.ty.rank() && perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(t.clone());
        }
        let ty = infer::transpose(&t.ty, &perm).map_err(|e| type_error(span, e))?;
        self.emit(OpKind::Transpose { perm }, &[t], ty, span)
    }

    /// `np.broadcast_to(t, dims)`.
    pub fn broadcast_to(&mut self, t: &Tensor, dims: Vec<Dim>, span: Span) -> R<Tensor> {
        let b = infer::broadcast_dims(&t.ty.dims, &dims).map_err(|e| type_error(span, e))?;
        if b != dims {
            return Err(Diagnostic::error(
                span,
                format!(
                    "cannot broadcast an array of shape {} to shape {}",
                    t.ty.shape_string(),
                    TensorType::new(t.ty.dtype, dims).shape_string()
                ),
            ));
        }
        if t.ty.dims == dims {
            return Ok(t.clone());
        }
        self.emit(
            OpKind::BroadcastTo,
            &[t],
            TensorType::new(t.ty.dtype, dims),
            span,
        )
    }

    /// `np.concatenate(parts, axis)`.
    pub fn concat(&mut self, parts: &[Value], axis: i64, span: Span) -> R<Value> {
        if parts.is_empty() {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "need at least one array to concatenate",
            ));
        }
        let refs: Vec<&Value> = parts.iter().collect();
        let (ts, _) = self.promote(&refs, span)?;
        if ts[0].ty.rank() == 0 {
            return Err(Diagnostic::error(
                span,
                "zero-dimensional arrays cannot be concatenated",
            ));
        }
        let axis = infer::normalize_axis(axis, ts[0].ty.rank()).map_err(|e| type_error(span, e))?;
        let tys: Vec<&TensorType> = ts.iter().map(|t| &t.ty).collect();
        let ty = infer::concat(&tys, axis).map_err(|e| type_error(span, e))?;
        if ts.len() == 1 {
            return Ok(Value::Tensor(ts[0].clone()));
        }
        let refs: Vec<&Tensor> = ts.iter().collect();
        Ok(Value::Tensor(self.emit(
            OpKind::Concat { axis },
            &refs,
            ty,
            span,
        )?))
    }

    /// `np.stack(parts, axis)`: inserts a new axis in each then concatenates.
    pub fn stack(&mut self, parts: &[Value], axis: i64, span: Span) -> R<Value> {
        if parts.is_empty() {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "need at least one array to stack",
            ));
        }
        let refs: Vec<&Value> = parts.iter().collect();
        let (ts, _) = self.promote(&refs, span)?;
        let first = ts[0].ty.clone();
        if ts.iter().any(|t| t.ty.dims != first.dims) {
            return Err(Diagnostic::error(
                span,
                "all input arrays must have the same shape",
            ));
        }
        let axis =
            infer::normalize_axis(axis, first.rank() + 1).map_err(|e| type_error(span, e))?;
        let mut dims = first.dims.clone();
        dims.insert(axis, Dim::Static(1));
        let expanded: Vec<Value> = ts
            .iter()
            .map(|t| self.reshape_to(t, dims.clone(), span).map(Value::Tensor))
            .collect::<R<_>>()?;
        self.concat(&expanded, axis as i64, span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_scalars_follow_nep50() {
        use DType::*;
        use Kind::*;
        assert_eq!(result_dtype(&[Strong(F32), WeakFloat]), F32);
        assert_eq!(result_dtype(&[Strong(I32), WeakInt]), I32);
        assert_eq!(result_dtype(&[Strong(I32), WeakFloat]), F64);
        assert_eq!(result_dtype(&[Strong(Bool), WeakInt]), I64);
        assert_eq!(result_dtype(&[Strong(F32), Strong(F64)]), F64);
        assert_eq!(result_dtype(&[WeakInt, WeakFloat]), F64);
    }
}
