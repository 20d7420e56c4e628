//! Arrays made from a size: `np.zeros`/`ones`/`empty`/`full` (and the
//! `_like` forms), `np.arange` and `np.linspace`, whose sizes and bounds
//! may be run-time values.
//!
//! A size given by a staged integer becomes a symbolic dim named after the
//! IR value holding it (`size(%7)`), so arrays made from the same value have
//! the same shape. The `fill` or `iota` that makes such an array carries
//! the run-time sizes of its symbolic dims as operands, so the backend knows
//! them wherever the op is (a branch, a loop, a continuation of the adjoint).

use super::args::Args;
use super::numpy::dtype_arg;
use super::pyops;
use super::tensor::{kind_of, result_dtype, staged, Kind};
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{BinaryOp, CmpOp, ConstData, DType, Dim, OpKind, Span, TensorType, UnaryOp};

/// One dim of a shape argument, with its run-time size when a staged integer gave it.
pub(super) type ShapeDim = (Dim, Option<Tensor>);

impl Stager {
    /// A shape argument: an int, a run-time size, a staged integer, or a sequence of them.
    pub(super) fn shape_arg(&mut self, v: &Value, span: Span) -> R<Vec<ShapeDim>> {
        let items = match v {
            Value::Tuple(_) | Value::List(_) => pyops::iterate(v, span)?,
            other => vec![other.clone()],
        };
        items
            .iter()
            .map(|x| match x {
                Value::SymInt(d) => Ok((d.clone(), None)),
                Value::Tensor(t) if t.ty.rank() == 0 && t.ty.dtype.is_int() => {
                    let nonneg = staged(self.compare(CmpOp::Ge, x, &Value::Int(0), span)?, span)?;
                    self.check(
                        &nonneg,
                        "ValueError: negative dimensions are not allowed".into(),
                        span,
                    )?;
                    self.runtime_dim(t, span)
                }
                other => match other.as_int() {
                    Some(n) if n >= 0 && !matches!(other, Value::Float(_)) => {
                        Ok((Dim::Static(n), None))
                    }
                    _ => Err(Diagnostic::error(
                        span,
                        format!(
                            "negative or non-integer dimension {}",
                            pyops::py_repr(other)
                        ),
                    )),
                },
            })
            .collect()
    }

    /// A dim whose size is the staged integer `n` (clamped at 0 by the backend).
    fn runtime_dim(&mut self, n: &Tensor, span: Span) -> R<ShapeDim> {
        let n = self.cast(n, DType::I64, span)?;
        let v = self.localize(&n, span)?;
        Ok((Dim::Sym(format!("size({v})")), Some(n)))
    }

    /// The run-time sizes of the leading symbolic dims of `shape`, in order,
    /// as many as can be had (the operands of a `fill` or `iota` after its value).
    fn size_operands(&mut self, shape: &[ShapeDim], span: Span) -> Vec<Tensor> {
        let mut out = Vec::new();
        for (d, size) in shape.iter().filter(|(d, _)| matches!(d, Dim::Sym(_))) {
            match size
                .clone()
                .map_or_else(|| self.sym_value(d, span).ok(), Some)
            {
                Some(t) => out.push(t),
                None => break,
            }
        }
        out
    }

    /// `np.full(shape, fill, dtype)`.
    pub(super) fn full(
        &mut self,
        shape: Vec<ShapeDim>,
        fill: &Value,
        dtype: Option<DType>,
        span: Span,
    ) -> R<Value> {
        let dtype = dtype.unwrap_or(match fill {
            Value::Tensor(t) => t.ty.dtype,
            Value::Bool(_) => DType::Bool,
            Value::Int(_) => DType::I64,
            _ => DType::F64,
        });
        let s = self.to_tensor(fill, Some(dtype), span)?;
        if s.ty.rank() != 0 {
            return Err(Diagnostic::unsupported(
                span,
                "a non-scalar fill value is not supported; use np.broadcast_to",
            ));
        }
        let s = self.cast(&s, dtype, span)?;
        if shape.is_empty() {
            return Ok(Value::Tensor(s));
        }
        let mut operands = vec![s];
        operands.extend(self.size_operands(&shape, span));
        let refs: Vec<&Tensor> = operands.iter().collect();
        let ty = TensorType::new(dtype, shape.into_iter().map(|(d, _)| d).collect());
        self.emit(OpKind::Fill, &refs, ty, span).map(Value::Tensor)
    }

    /// `0, 1, .., n-1` of `dtype` with `n` a dim of `shape` (rank 1).
    fn ramp(&mut self, len: ShapeDim, dtype: DType, span: Span) -> R<Tensor> {
        let shape = [len];
        let sizes = self.size_operands(&shape, span);
        let [(dim, _)] = shape;
        let refs: Vec<&Tensor> = sizes.iter().collect();
        self.emit(
            OpKind::Iota {
                start: 0.0,
                step: 1.0,
            },
            &refs,
            TensorType::new(dtype, vec![dim]),
            span,
        )
    }

    /// `np.arange([start,] stop[, step], dtype=None)`; bounds may be staged.
    pub(super) fn arange(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let dtype = dtype_arg(
            args.kw
                .iter()
                .find(|(k, _)| k == "dtype")
                .map(|(_, v)| v.clone()),
            span,
        )?;
        let (start, stop, step) = match args.pos.as_slice() {
            [n] => (Value::Int(0), n.clone(), Value::Int(1)),
            [a, b] => (a.clone(), b.clone(), Value::Int(1)),
            [a, b, c] => (a.clone(), b.clone(), c.clone()),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "np.arange takes 1 to 3 positional arguments",
                ))
            }
        };
        // numpy reads 0-d bounds as Python numbers: float64 if any is a float, else int64.
        let floats = [&start, &stop, &step].iter().any(|v| {
            matches!(kind_of(v), Some(Kind::WeakFloat))
                || matches!(v, Value::Tensor(t) if t.ty.dtype.is_float())
        });
        let d = dtype.unwrap_or(if floats { DType::F64 } else { DType::I64 });
        if step.as_f64() == Some(0.0) {
            return Err(Diagnostic::error(
                span,
                "Maximum allowed size exceeded (arange step is zero)",
            ));
        }
        let mut static_len = None;
        if let (Some(a), Some(b), Some(c)) = (start.as_f64(), stop.as_f64(), step.as_f64()) {
            let q = ((b - a) / c).ceil();
            if q.is_nan() {
                return Err(Diagnostic::error(
                    span,
                    "ValueError: arange: cannot compute length",
                ));
            }
            if q >= i64::MAX as f64 {
                return Err(Diagnostic::error(
                    span,
                    "ValueError: Maximum allowed size exceeded",
                ));
            }
            let n = q.max(0.0) as i64;
            // A longer one is computed in the library rather than stored in it.
            if n as usize <= super::limits::MAX_ITEMS {
                let data = ConstData::Float((0..n).map(|i| a + i as f64 * c).collect()).cast(d);
                return self
                    .constant(data, TensorType::static_shape(d, &[n]), span)
                    .map(Value::Tensor);
            }
            static_len = Some(n);
        }
        let work = if floats { DType::F64 } else { DType::I64 };
        let len = match (&stop, start.as_int(), step.as_int(), static_len) {
            (_, _, _, Some(n)) => (Dim::Static(n), None),
            (Value::SymInt(n), Some(0), Some(1), _) => (n.clone(), None),
            // `np.arange(n)` has the shape of `np.zeros(n)`.
            (Value::Tensor(n), Some(0), Some(1), _) if n.ty.rank() == 0 && n.ty.dtype.is_int() => {
                self.runtime_dim(n, span)?
            }
            _ => {
                let (a, b, c) = (
                    self.to_tensor_as(&start, work, span)?,
                    self.to_tensor_as(&stop, work, span)?,
                    self.to_tensor_as(&step, work, span)?,
                );
                if let Some(t) = [&a, &b, &c].into_iter().find(|t| t.ty.rank() != 0) {
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "np.arange's start, stop and step must be scalars, got an array of shape {}",
                            t.ty.shape_string()
                        ),
                    ));
                }
                if step.as_f64().is_none() {
                    let nonzero = staged(
                        self.compare(CmpOp::Ne, &Value::Tensor(c.clone()), &Value::Int(0), span)?,
                        span,
                    )?;
                    self.check(
                        &nonzero,
                        "ValueError: Maximum allowed size exceeded (arange step is zero)".into(),
                        span,
                    )?;
                }
                // ceil((stop - start) / step), at least 0.
                let diff = self.binary_same(BinaryOp::Sub, &b, &a, span)?;
                let (num, den) = (
                    self.cast(&diff, DType::F64, span)?,
                    self.cast(&c, DType::F64, span)?,
                );
                let q = self.binary_same(BinaryOp::Div, &num, &den, span)?;
                let q = self.emit(OpKind::Unary(UnaryOp::Ceil), &[&q], q.ty.clone(), span)?;
                let zero = self.scalar(0.0, DType::F64, span)?;
                let q = self.binary_same(BinaryOp::Max, &q, &zero, span)?;
                let n = self.cast(&q, DType::I64, span)?;
                self.runtime_dim(&n, span)?
            }
        };
        let i = self.ramp(len, work, span)?;
        let scaled = self.binary(BinaryOp::Mul, &Value::Tensor(i), &step, span)?;
        let shifted = self.binary(BinaryOp::Add, &scaled, &start, span)?;
        let t = self.to_tensor_as(&shifted, work, span)?;
        self.cast(&t, d, span).map(Value::Tensor)
    }

    /// `np.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)`;
    /// the bounds and `num` may be staged (bounds of any shape, broadcast together).
    pub(super) fn linspace(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        args.check(
            "np.linspace",
            7,
            &[
                "start", "stop", "num", "endpoint", "retstep", "dtype", "axis",
            ],
        )?;
        let (start, stop) = (
            args.req(0, "start", "np.linspace")?,
            args.req(1, "stop", "np.linspace")?,
        );
        let num = args.get(2, "num").unwrap_or(Value::Int(50));
        let endpoint = args
            .get(3, "endpoint")
            .as_ref()
            .and_then(pyops::truthy)
            .unwrap_or(true);
        let retstep = args
            .get(4, "retstep")
            .as_ref()
            .and_then(pyops::truthy)
            .unwrap_or(false);
        let dtype = dtype_arg(args.get(5, "dtype"), span)?;
        if args
            .get_some(6, "axis")
            .is_some_and(|a| a.as_int() != Some(0))
        {
            return Err(Diagnostic::unsupported(
                span,
                "np.linspace with an axis other than 0 is not supported",
            ));
        }
        // numpy computes in result_type(start, stop, float(num)).
        let kinds = [&start, &stop]
            .iter()
            .map(|v| {
                kind_of(v).ok_or_else(|| {
                    Diagnostic::error(
                        span,
                        format!(
                            "np.linspace bounds must be numbers or arrays, not '{}'",
                            v.type_name()
                        ),
                    )
                })
            })
            .chain([Ok(Kind::WeakFloat)])
            .collect::<R<Vec<_>>>()?;
        let work = result_dtype(&kinds);
        if let (Some(a), Some(b), Some(n), false) = (
            start.as_f64(),
            stop.as_f64(),
            num.as_int(),
            matches!(num, Value::SymInt(Dim::Sym(_))),
        ) {
            // A longer one is computed in the library rather than stored in it.
            if n <= super::limits::MAX_ITEMS as i64 {
                return self.linspace_constant(
                    a,
                    b,
                    n,
                    endpoint,
                    retstep,
                    dtype.unwrap_or(work),
                    span,
                );
            }
        }
        let (len, div) = match num.as_int() {
            Some(n) if n < 0 => {
                return Err(Diagnostic::error(
                    span,
                    format!("ValueError: Number of samples, {n}, must be non-negative."),
                ))
            }
            Some(n) if !matches!(num, Value::SymInt(Dim::Sym(_))) => {
                ((Dim::Static(n), None), Value::Int(n - endpoint as i64))
            }
            _ => {
                let shape = self.shape_arg(&num, span)?;
                let [len] = <[ShapeDim; 1]>::try_from(shape)
                    .map_err(|_| Diagnostic::error(span, "np.linspace: num must be an integer"))?;
                let n = match &len.1 {
                    Some(n) => Value::Tensor(n.clone()),
                    None => num.clone(),
                };
                let div = self.binop(
                    rustpython_parser::ast::Operator::Sub,
                    &n,
                    &Value::Int(endpoint as i64),
                    span,
                )?;
                (len, div)
            }
        };
        let (a, b) = (
            self.to_tensor_as(&start, work, span)?,
            self.to_tensor_as(&stop, work, span)?,
        );
        let delta = self.binary_same(BinaryOp::Sub, &b, &a, span)?;
        let rank = delta.ty.rank().max(a.ty.rank());
        let i = self.ramp(len, work, span)?;
        let mut column = i.ty.dims.clone();
        column.extend(std::iter::repeat_n(Dim::Static(1), rank));
        let i = self.reshape_to(&i, column, span)?;
        // step = delta / div (div 0 when num is 1 with the endpoint: y is start then).
        let div_t = self.to_tensor_as(&div, work, span)?;
        let positive = staged(
            self.compare(
                CmpOp::Gt,
                &Value::Tensor(div_t.clone()),
                &Value::Int(0),
                span,
            )?,
            span,
        )?;
        let one = self.scalar(1.0, work, span)?;
        let safe = staged(
            self.select(
                &Value::Tensor(positive.clone()),
                &Value::Tensor(div_t.clone()),
                &Value::Tensor(one),
                span,
            )?,
            span,
        )?;
        let step = self.binary_same(BinaryOp::Div, &delta, &safe, span)?;
        let scaled = self.binary_same(BinaryOp::Mul, &i, &step, span)?;
        let mut y = self.binary_same(BinaryOp::Add, &scaled, &a, span)?;
        if endpoint {
            // The last sample is exactly `stop` (numpy sets it when num > 1).
            let last = staged(
                self.compare(
                    CmpOp::Eq,
                    &Value::Tensor(i.clone()),
                    &Value::Tensor(div_t.clone()),
                    span,
                )?,
                span,
            )?;
            let last = self.binary_same(BinaryOp::And, &last, &positive, span)?;
            y = staged(
                self.select(
                    &Value::Tensor(last),
                    &Value::Tensor(b),
                    &Value::Tensor(y),
                    span,
                )?,
                span,
            )?;
        }
        let y = match dtype {
            Some(d) if !d.is_float() && work.is_float() => {
                let floor = self.emit(OpKind::Unary(UnaryOp::Floor), &[&y], y.ty.clone(), span)?;
                self.cast(&floor, d, span)?
            }
            Some(d) => self.cast(&y, d, span)?,
            None => y,
        };
        if !retstep {
            return Ok(Value::Tensor(y));
        }
        let nan = self.scalar(f64::NAN, work, span)?;
        let step = self.select(
            &Value::Tensor(positive),
            &Value::Tensor(step),
            &Value::Tensor(nan),
            span,
        )?;
        Ok(Value::tuple(vec![Value::Tensor(y), step]))
    }

    /// `np.linspace` of compile-time numbers: a constant, computed as numpy does.
    #[allow(clippy::too_many_arguments)]
    fn linspace_constant(
        &mut self,
        a: f64,
        b: f64,
        n: i64,
        endpoint: bool,
        retstep: bool,
        dtype: DType,
        span: Span,
    ) -> R<Value> {
        if n < 0 {
            return Err(Diagnostic::error(
                span,
                format!("ValueError: Number of samples, {n}, must be non-negative."),
            ));
        }
        let div = n - endpoint as i64;
        let step = if div > 0 {
            (b - a) / div as f64
        } else {
            f64::NAN
        };
        let values = (0..n).map(|i| {
            if endpoint && n > 1 && i == n - 1 {
                b
            } else if div > 0 {
                i as f64 * step + a
            } else {
                a
            }
        });
        let values: Vec<f64> = values
            .map(|v| if dtype.is_float() { v } else { v.floor() })
            .collect();
        let y = self.constant(
            ConstData::Float(values).cast(dtype),
            TensorType::static_shape(dtype, &[n]),
            span,
        )?;
        Ok(if retstep {
            Value::tuple(vec![Value::Tensor(y), Value::Float(step)])
        } else {
            Value::Tensor(y)
        })
    }
}
