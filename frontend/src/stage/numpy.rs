//! The `agc.numpy` surface: numpy functions and ndarray methods on staged
//! tensors (and on compile-time numbers, which numpy turns into arrays).

use super::args::Args;
use super::tensor::type_error;
use super::value::{Tensor, Value};
use super::{
    gather, keywords, numpy_arrays, numpy_choice, numpy_composite, numpy_contract, numpy_diag,
    numpy_join, numpy_math, numpy_order, numpy_products, numpy_reductions, numpy_sampled,
    numpy_series, numpy_shape, numpy_signal, numpy_sort, pyops,
};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{
    infer, ArgKind, BinaryOp, CmpOp, ConstData, DType, Dim, OpKind, ReduceKind, Span, TensorType,
    UnaryOp,
};

const FUNCTIONS: &[&str] = &[
    "exp",
    "log",
    "tanh",
    "sqrt",
    "abs",
    "absolute",
    "sin",
    "cos",
    "floor",
    "ceil",
    "sign",
    "negative",
    "square",
    "log1p",
    "expm1",
    "logical_not",
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "mod",
    "remainder",
    "fmod",
    "power",
    "maximum",
    "minimum",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "invert",
    "bitwise_not",
    "bitwise_invert",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "where",
    "matmul",
    "dot",
    "clip",
    "outer",
    "sum",
    "mean",
    "max",
    "amax",
    "min",
    "amin",
    "prod",
    "argmax",
    "argmin",
    "any",
    "all",
    "var",
    "std",
    "reshape",
    "transpose",
    "expand_dims",
    "squeeze",
    "broadcast_to",
    "ravel",
    "zeros",
    "ones",
    "full",
    "empty",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "arange",
    "array",
    "asarray",
    "eye",
    "linspace",
    "float32",
    "float64",
    "int32",
    "int64",
    "bool_",
    "shape",
    "ndim",
    "size",
];

/// Every `np.linalg.<name>` function of the supported surface (`norm` in
/// [`numpy_contract`], the products in [`numpy_products`], the
/// eliminations in [`super::numpy_linalg`]).
pub const LINALG_FUNCTIONS: &[&str] = &[
    "norm",
    "multi_dot",
    "matrix_power",
    "solve",
    "inv",
    "det",
    "slogdet",
    "cholesky",
];

/// Every `np.<name>` function of the supported surface.
pub fn all_functions() -> impl Iterator<Item = &'static str> {
    [
        FUNCTIONS,
        gather::FUNCTIONS,
        numpy_math::FUNCTIONS,
        numpy_shape::FUNCTIONS,
        numpy_diag::FUNCTIONS,
        numpy_contract::FUNCTIONS,
        numpy_sort::FUNCTIONS,
        numpy_join::FUNCTIONS,
        numpy_composite::FUNCTIONS,
        numpy_choice::FUNCTIONS,
        numpy_order::FUNCTIONS,
        numpy_arrays::FUNCTIONS,
        numpy_reductions::FUNCTIONS,
        numpy_series::FUNCTIONS,
        numpy_products::FUNCTIONS,
        numpy_signal::FUNCTIONS,
        numpy_sampled::FUNCTIONS,
    ]
    .into_iter()
    .flatten()
    .copied()
}

/// True if `np.<name>` is part of the supported surface.
pub fn is_function(name: &str) -> bool {
    all_functions().any(|f| f == name)
}

/// A `dtype=` argument.
pub(super) fn dtype_arg(v: Option<Value>, span: Span) -> R<Option<DType>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::DType(d)) => Ok(Some(d)),
        Some(Value::Str(s)) => DType::from_name(&s).map(Some).ok_or_else(|| {
            Diagnostic::unsupported(
                span,
                format!("dtype '{s}' is not supported (float32, float64, int32, int64, bool are)"),
            )
        }),
        Some(Value::Builtin(n, None)) => match &*n {
            "float" => Ok(Some(DType::F64)),
            "int" => Ok(Some(DType::I64)),
            "bool" => Ok(Some(DType::Bool)),
            _ => Err(Diagnostic::error(span, "data type not understood")),
        },
        Some(other) => Err(Diagnostic::error(
            span,
            format!("data type not understood: {}", other.type_name()),
        )),
    }
}

/// Reshape targets: ints, `-1`, run-time sizes.
fn reshape_arg(items: &[Value], span: Span) -> R<Vec<Option<Dim>>> {
    let items = match items {
        [v @ (Value::Tuple(_) | Value::List(_))] => pyops::iterate(v, span)?,
        other => other.to_vec(),
    };
    items
        .iter()
        .map(|x| match x {
            Value::SymInt(d) => Ok(Some(d.clone())),
            other => match other.as_int() {
                Some(-1) => Ok(None),
                Some(n) if n >= 0 => Ok(Some(Dim::Static(n))),
                _ => Err(Diagnostic::error(
                    span,
                    format!("invalid reshape dimension {}", pyops::py_repr(other)),
                )),
            },
        })
        .collect()
}

/// An `axis=` argument normalised against `rank`: `None` = all axes.
pub(super) fn axes_arg(v: Option<Value>, rank: usize, span: Span) -> R<Vec<usize>> {
    let raw: Vec<i64> = match v {
        None | Some(Value::None) => return Ok((0..rank).collect()),
        Some(Value::Tuple(t)) => t.iter().map(|x| x.as_int()).collect::<Option<_>>(),
        Some(Value::List(l)) => l.borrow().iter().map(|x| x.as_int()).collect::<Option<_>>(),
        Some(x) => x.as_int().map(|i| vec![i]),
    }
    .ok_or_else(|| Diagnostic::error(span, "axis must be a compile-time int or tuple of ints"))?;
    let mut axes: Vec<usize> = raw
        .iter()
        .map(|&a| infer::normalize_axis(a, rank).map_err(|e| type_error(span, e)))
        .collect::<R<_>>()?;
    axes.sort_unstable();
    if axes.windows(2).any(|w| w[0] == w[1]) {
        return Err(Diagnostic::error(span, "duplicate value in 'axis'"));
    }
    Ok(axes)
}

fn truthy_kw(args: &Args, index: usize, name: &str) -> bool {
    args.get(index, name)
        .as_ref()
        .and_then(pyops::truthy)
        .unwrap_or(false)
}

impl Stager {
    /// Calls `np.<f>` or the tensor method `tensor.<f>` (receiver first).
    pub fn call_numpy(&mut self, name: &str, recv: Option<&Value>, mut args: Args) -> R<Value> {
        let span = args.span;
        let f = match name.strip_prefix("np.") {
            Some(f) => f,
            None => {
                let m = name.trim_start_matches("tensor.");
                let recv = recv
                    .cloned()
                    .ok_or_else(|| Diagnostic::internal(span, "method without receiver"))?;
                if let Some(r) = self.masked_reduction(m, Some(&recv), &args) {
                    return r;
                }
                keywords::check_method(m, &args)?;
                return self.tensor_method(m, recv, args);
            }
        };
        if let Some(r) = self.masked_reduction(f, None, &args) {
            return r;
        }
        keywords::check_function(f, &args)?;
        let x = || args.req(0, "x", &format!("np.{f}"));
        match f {
            "exp" | "log" | "tanh" | "sqrt" | "abs" | "absolute" | "sin" | "cos" | "floor"
            | "ceil" | "sign" | "negative" | "logical_not" => {
                let op = match f {
                    "exp" => UnaryOp::Exp,
                    "log" => UnaryOp::Log,
                    "tanh" => UnaryOp::Tanh,
                    "sqrt" => UnaryOp::Sqrt,
                    "abs" | "absolute" => UnaryOp::Abs,
                    "sin" => UnaryOp::Sin,
                    "cos" => UnaryOp::Cos,
                    "floor" => UnaryOp::Floor,
                    "ceil" => UnaryOp::Ceil,
                    "sign" => UnaryOp::Sign,
                    "negative" => UnaryOp::Neg,
                    _ => UnaryOp::Not,
                };
                let v = x()?;
                if op == UnaryOp::Not {
                    let t = self.to_tensor(&v, None, span)?;
                    let b = self.cast(&t, DType::Bool, span)?;
                    return self.unary(UnaryOp::Not, &Value::Tensor(b), span);
                }
                self.unary(op, &v, span)
            }
            "square" => {
                let v = x()?;
                let t = Value::Tensor(self.to_tensor(&v, None, span)?);
                self.binary(BinaryOp::Mul, &t, &t, span)
            }
            "log1p" => {
                let t = Value::Tensor(self.float_operand(&x()?, f, span)?);
                self.log1p(&t, span)
            }
            "expm1" => {
                let t = Value::Tensor(self.float_operand(&x()?, f, span)?);
                self.expm1(&t, span)
            }
            "add" | "subtract" | "multiply" | "divide" | "true_divide" | "floor_divide" | "mod"
            | "remainder" | "fmod" | "power" | "maximum" | "minimum" => {
                let op = match f {
                    "add" => BinaryOp::Add,
                    "subtract" => BinaryOp::Sub,
                    "multiply" => BinaryOp::Mul,
                    "divide" | "true_divide" => BinaryOp::Div,
                    "floor_divide" => BinaryOp::FloorDiv,
                    "mod" | "remainder" => BinaryOp::Mod,
                    "fmod" => BinaryOp::FMod,
                    "power" => BinaryOp::Pow,
                    "maximum" => BinaryOp::Max,
                    _ => BinaryOp::Min,
                };
                let (a, b) = (args.req(0, "x1", f)?, args.req(1, "x2", f)?);
                let a = Value::Tensor(self.strong_if_static(&a, &b, span)?);
                self.binary(op, &a, &b, span)
            }
            "bitwise_and"
            | "bitwise_or"
            | "bitwise_xor"
            | "left_shift"
            | "right_shift"
            | "bitwise_left_shift"
            | "bitwise_right_shift" => {
                let op = match f {
                    "bitwise_and" => BinaryOp::And,
                    "bitwise_or" => BinaryOp::Or,
                    "bitwise_xor" => BinaryOp::Xor,
                    "left_shift" | "bitwise_left_shift" => BinaryOp::Shl,
                    _ => BinaryOp::Shr,
                };
                let (a, b) = (args.req(0, "x1", f)?, args.req(1, "x2", f)?);
                let a = Value::Tensor(self.strong_if_static(&a, &b, span)?);
                self.binary(op, &a, &b, span)
            }
            "invert" | "bitwise_not" | "bitwise_invert" => {
                let t = self.to_tensor(&x()?, None, span)?;
                if t.ty.dtype == DType::Bool {
                    self.unary(UnaryOp::Not, &Value::Tensor(t), span)
                } else {
                    self.binary(BinaryOp::Xor, &Value::Tensor(t), &Value::Int(-1), span)
                }
            }
            "logical_and" | "logical_or" | "logical_xor" => {
                let (a, b) = (args.req(0, "x1", f)?, args.req(1, "x2", f)?);
                let a = self.to_tensor(&a, None, span)?;
                let b = self.to_tensor(&b, None, span)?;
                let (a, b) = (
                    self.cast(&a, DType::Bool, span)?,
                    self.cast(&b, DType::Bool, span)?,
                );
                let op = match f {
                    "logical_and" => BinaryOp::And,
                    "logical_or" => BinaryOp::Or,
                    _ => BinaryOp::Xor,
                };
                Ok(Value::Tensor(self.binary_same(op, &a, &b, span)?))
            }
            "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal" => {
                let op = match f {
                    "equal" => CmpOp::Eq,
                    "not_equal" => CmpOp::Ne,
                    "less" => CmpOp::Lt,
                    "less_equal" => CmpOp::Le,
                    "greater" => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                let (a, b) = (args.req(0, "x1", f)?, args.req(1, "x2", f)?);
                let a = Value::Tensor(self.strong_if_static(&a, &b, span)?);
                self.compare(op, &a, &b, span)
            }
            "where" => {
                if args.pos.len() != 3 {
                    return Err(Diagnostic::unsupported(
                        span,
                        "np.where needs three arguments (condition, x, y) in agc",
                    ));
                }
                let (c, a, b) = (
                    args.pos[0].clone(),
                    args.pos[1].clone(),
                    args.pos[2].clone(),
                );
                self.select(&c, &a, &b, span)
            }
            "matmul" => self.matmul(&args.req(0, "x1", f)?, &args.req(1, "x2", f)?, span),
            "dot" => self.dot(&args.req(0, "a", f)?, &args.req(1, "b", f)?, span),
            "outer" => {
                let a = self.to_tensor(&args.req(0, "a", f)?, None, span)?;
                let b = self.to_tensor(&args.req(1, "b", f)?, None, span)?;
                let a = self.flatten(&a, span)?;
                let b = self.flatten(&b, span)?;
                let mut col = a.ty.dims.clone();
                col.push(Dim::Static(1));
                let a2 = self.reshape_to(&a, col, span)?;
                self.binary(BinaryOp::Mul, &Value::Tensor(a2), &Value::Tensor(b), span)
            }
            "clip" => {
                let v = x()?;
                let (lo, hi) = (
                    args.get(1, "a_min").unwrap_or(Value::None),
                    args.get(2, "a_max").unwrap_or(Value::None),
                );
                self.clip(&v, &lo, &hi, span)
            }
            "sum" | "mean" | "max" | "amax" | "min" | "amin" | "prod" | "any" | "all" | "var"
            | "std" | "argmax" | "argmin" => {
                let v = x()?;
                args.pos.remove(0);
                self.reduction(f, &v, &args)
            }
            "reshape" => {
                let t = self.to_tensor(&x()?, None, span)?;
                let shape = args
                    .req(1, "newshape", f)
                    .or_else(|_| args.req(1, "shape", f))?;
                self.reshape(&t, &[shape], span)
            }
            "ravel" => {
                let t = self.to_tensor(&x()?, None, span)?;
                Ok(Value::Tensor(self.flatten(&t, span)?))
            }
            "transpose" => {
                let t = self.to_tensor(&x()?, None, span)?;
                let axes = args
                    .get_some(1, "axes")
                    .map(|a| pyops::iterate(&a, span))
                    .transpose()?;
                self.transpose(&t, axes, span)
            }
            "expand_dims" => {
                let t = self.to_tensor(&x()?, None, span)?;
                self.expand_dims(&t, args.req(1, "axis", f)?, span)
            }
            "squeeze" => {
                let t = self.to_tensor(&x()?, None, span)?;
                self.squeeze(&t, args.get_some(1, "axis"), span)
            }
            "broadcast_to" => {
                let t = self.to_tensor(&x()?, None, span)?;
                let shape = self.shape_arg(&args.req(1, "shape", f)?, span)?;
                if shape.iter().any(|(_, size)| size.is_some()) {
                    return Err(Diagnostic::unsupported(span, "np.broadcast_to a shape holding a staged integer is not supported; add the array to np.zeros(shape) instead"));
                }
                let dims = shape.into_iter().map(|(d, _)| d).collect();
                Ok(Value::Tensor(self.broadcast_to(&t, dims, span)?))
            }
            "zeros" | "ones" | "empty" | "full" => {
                let dims = self.shape_arg(&args.req(0, "shape", f)?, span)?;
                let (fill, dt_index) = match f {
                    "full" => (args.req(1, "fill_value", f)?, 2),
                    "ones" => (Value::Float(1.0), 1),
                    _ => (Value::Float(0.0), 1),
                };
                let dtype = dtype_arg(args.get(dt_index, "dtype"), span)?;
                self.full(dims, &fill, dtype, span)
            }
            "zeros_like" | "ones_like" | "empty_like" | "full_like" => {
                let t = self.to_tensor(&x()?, None, span)?;
                let (fill, dt_index) = match f {
                    "full_like" => (args.req(1, "fill_value", f)?, 2),
                    "ones_like" => (Value::Float(1.0), 1),
                    _ => (Value::Float(0.0), 1),
                };
                let dtype = dtype_arg(args.get(dt_index, "dtype"), span)?.unwrap_or(t.ty.dtype);
                let shape = t.ty.dims.iter().map(|d| (d.clone(), None)).collect();
                self.full(shape, &fill, Some(dtype), span)
            }
            "arange" => self.arange(&args),
            "array" | "asarray" => {
                let dtype = dtype_arg(args.get(1, "dtype"), span)?;
                let t = match x()? {
                    Value::TensorList(l) => self.stack_tensor_list(&l, false, span)?,
                    v => self.to_tensor(&v, dtype, span)?,
                };
                Ok(Value::Tensor(match dtype {
                    Some(d) => self.cast(&t, d, span)?,
                    None => t,
                }))
            }
            "eye" => {
                let n = args
                    .req(0, "N", f)?
                    .as_int()
                    .ok_or_else(|| Diagnostic::error(span, "np.eye needs a compile-time size"))?;
                let dtype = dtype_arg(args.get(3, "dtype"), span)?.unwrap_or(DType::F64);
                if n < 0 {
                    return Err(Diagnostic::error(
                        span,
                        "ValueError: negative dimensions are not allowed",
                    ));
                }
                let items = n.checked_mul(n).and_then(|m| usize::try_from(m).ok());
                super::limits::check_items("np.eye", items, span)?;
                let data: Vec<f64> = (0..n * n)
                    .map(|i| ((i / n) == (i % n)) as i64 as f64)
                    .collect();
                Ok(Value::Tensor(self.constant(
                    ConstData::Float(data).cast(dtype),
                    TensorType::static_shape(dtype, &[n, n]),
                    span,
                )?))
            }
            "linspace" => self.linspace(&args),
            "float32" | "float64" | "int32" | "int64" | "bool_" => {
                let dtype = DType::from_name(f).unwrap_or(DType::F64);
                let v = args.get(0, "x").unwrap_or(Value::Int(0));
                let t = self.to_tensor(&v, Some(dtype), span)?;
                Ok(Value::Tensor(self.cast(&t, dtype, span)?))
            }
            "shape" => {
                let t = Value::Tensor(self.to_tensor(&x()?, None, span)?);
                self.get_attr(&t, "shape", span)
            }
            "ndim" => {
                let t = Value::Tensor(self.to_tensor(&x()?, None, span)?);
                self.get_attr(&t, "ndim", span)
            }
            "size" => {
                let t = Value::Tensor(self.to_tensor(&x()?, None, span)?);
                self.get_attr(&t, "size", span)
            }
            f if numpy_math::FUNCTIONS.contains(&f) => self.numpy_math(f, &args),
            f if numpy_shape::FUNCTIONS.contains(&f) => self.numpy_shape(f, &args),
            f if numpy_diag::FUNCTIONS.contains(&f) => self.numpy_diag(f, &args),
            f if gather::FUNCTIONS.contains(&f) => self.numpy_take(&args),
            f if numpy_contract::FUNCTIONS.contains(&f) => self.numpy_contract(f, &args),
            f if numpy_sort::FUNCTIONS.contains(&f) => self.numpy_sort(f, &args),
            f if numpy_join::FUNCTIONS.contains(&f) => self.numpy_join(f, &args),
            f if numpy_composite::FUNCTIONS.contains(&f) => self.numpy_composite(f, &args),
            f if numpy_choice::FUNCTIONS.contains(&f) => self.numpy_choice(f, &args),
            f if numpy_order::FUNCTIONS.contains(&f) => self.numpy_order(f, &args),
            f if numpy_arrays::FUNCTIONS.contains(&f) => self.numpy_arrays(f, &args),
            f if numpy_reductions::FUNCTIONS.contains(&f) => self.numpy_reductions(f, &args),
            f if numpy_series::FUNCTIONS.contains(&f) => self.numpy_series(f, &args),
            f if numpy_products::FUNCTIONS.contains(&f) => self.numpy_products(f, &args),
            f if numpy_signal::FUNCTIONS.contains(&f) => self.numpy_signal(f, &args),
            f if numpy_sampled::FUNCTIONS.contains(&f) => self.numpy_sampled(f, &args),
            f if f
                .split_once('.')
                .is_some_and(|(u, m)| numpy_reductions::is_ufunc_method(u, m)) =>
            {
                let (u, m) = f.split_once('.').unwrap_or_default();
                self.ufunc_method(u, m, &args)
            }
            "linalg.norm" => self.numpy_contract(f, &args),
            "linalg.multi_dot" | "linalg.matrix_power" => self.numpy_products(f, &args),
            "linalg.solve" | "linalg.inv" | "linalg.det" | "linalg.slogdet" => {
                self.numpy_linalg(f, &args)
            }
            "linalg.cholesky" => self.cholesky(&args),
            _ => Err(Diagnostic::unsupported(
                span,
                format!("np.{f} is not supported by agc"),
            )),
        }
    }

    /// numpy ufuncs turn Python-scalar first operands into arrays only when both are scalars.
    pub(super) fn strong_if_static(&mut self, a: &Value, b: &Value, span: Span) -> R<Tensor> {
        if a.is_staged() || b.is_staged() {
            match a {
                Value::Tensor(t) => Ok(t.clone()),
                _ => {
                    // Keep weak-scalar promotion: stage with the partner's dtype.
                    let d = super::tensor::result_dtype(&[
                        super::tensor::kind_of(a).unwrap_or(super::tensor::Kind::WeakFloat),
                        super::tensor::kind_of(b).unwrap_or(super::tensor::Kind::WeakFloat),
                    ]);
                    self.to_tensor_as(a, d, span)
                }
            }
        } else {
            self.to_tensor(a, None, span)
        }
    }

    fn tensor_method(&mut self, m: &str, recv: Value, args: Args) -> R<Value> {
        let span = args.span;
        let t = self.to_tensor(&recv, None, span)?;
        match m {
            "reshape" => self.reshape(&t, &args.pos, span),
            "transpose" => {
                let axes = match args.pos.as_slice() {
                    [] => None,
                    [v @ (Value::Tuple(_) | Value::List(_))] => Some(pyops::iterate(v, span)?),
                    items => Some(items.to_vec()),
                };
                self.transpose(&t, axes, span)
            }
            "astype" => {
                let d = dtype_arg(args.get(0, "dtype"), span)?
                    .ok_or_else(|| Diagnostic::error(span, "astype() needs a dtype"))?;
                Ok(Value::Tensor(self.cast(&t, d, span)?))
            }
            "squeeze" => self.squeeze(&t, args.get_some(0, "axis"), span),
            "flatten" | "ravel" => Ok(Value::Tensor(self.flatten(&t, span)?)),
            "copy" => Ok(Value::Tensor(t)),
            "dot" => self.dot(&Value::Tensor(t), &args.req(0, "b", "dot")?, span),
            "clip" => {
                let (lo, hi) = (
                    args.get(0, "min").unwrap_or(Value::None),
                    args.get(1, "max").unwrap_or(Value::None),
                );
                self.clip(&Value::Tensor(t), &lo, &hi, span)
            }
            "item" => Err(Diagnostic::error(
                span,
                ".item() of a staged tensor: its value is only known at run time",
            )),
            // Methods that are the function with the array first.
            "round" | "cumsum" | "cumprod" | "argsort" | "repeat" | "swapaxes" | "trace"
            | "diagonal" | "take" => {
                let mut args = args;
                args.pos.insert(0, Value::Tensor(t));
                self.call_numpy(&format!("np.{m}"), None, args)
            }
            _ => self.reduction(m, &Value::Tensor(t), &args),
        }
    }

    fn dot(&mut self, a: &Value, b: &Value, span: Span) -> R<Value> {
        let ta = self.to_tensor(a, None, span)?;
        let tb = self.to_tensor(b, None, span)?;
        if ta.ty.rank() == 0 || tb.ty.rank() == 0 {
            return self.binary(BinaryOp::Mul, a, b, span);
        }
        if ta.ty.rank() > 2 || tb.ty.rank() > 2 {
            return Err(Diagnostic::unsupported(
                span,
                "np.dot of arrays with more than 2 dims is not supported; use np.matmul",
            ));
        }
        self.matmul(&Value::Tensor(ta), &Value::Tensor(tb), span)
    }

    fn clip(&mut self, v: &Value, lo: &Value, hi: &Value, span: Span) -> R<Value> {
        let mut cur = Value::Tensor(self.to_tensor(v, None, span)?);
        if !matches!(lo, Value::None) {
            cur = self.binary(BinaryOp::Max, &cur, lo, span)?;
        }
        if !matches!(hi, Value::None) {
            cur = self.binary(BinaryOp::Min, &cur, hi, span)?;
        }
        Ok(cur)
    }

    /// Row-major flattening to one axis.
    pub(super) fn flatten(&mut self, t: &Tensor, span: Span) -> R<Tensor> {
        let dims = infer::reshape_dims(&t.ty, &[None]).map_err(|e| type_error(span, e))?;
        self.reshape_to(t, dims, span)
    }

    fn reshape(&mut self, t: &Tensor, items: &[Value], span: Span) -> R<Value> {
        let target = reshape_arg(items, span)?;
        let dims = infer::reshape_dims(&t.ty, &target).map_err(|e| type_error(span, e))?;
        Ok(Value::Tensor(self.reshape_to(t, dims, span)?))
    }

    fn transpose(&mut self, t: &Tensor, axes: Option<Vec<Value>>, span: Span) -> R<Value> {
        let perm: Vec<usize> = match axes {
            None => (0..t.ty.rank()).rev().collect(),
            Some(items) => items
                .iter()
                .map(|a| {
                    let a = a
                        .as_int()
                        .ok_or_else(|| Diagnostic::error(span, "transpose axes must be ints"))?;
                    infer::normalize_axis(a, t.ty.rank()).map_err(|e| type_error(span, e))
                })
                .collect::<R<_>>()?,
        };
        Ok(Value::Tensor(self.permute(t, perm, span)?))
    }

    fn expand_dims(&mut self, t: &Tensor, axis: Value, span: Span) -> R<Value> {
        let raw: Vec<Value> = match &axis {
            Value::Tuple(_) | Value::List(_) => pyops::iterate(&axis, span)?,
            other => vec![other.clone()],
        };
        let out_rank = t.ty.rank() + raw.len();
        let axes = axes_arg(Some(Value::tuple(raw)), out_rank, span)?;
        let mut src = t.ty.dims.iter();
        let dims = (0..out_rank)
            .map(|i| {
                if axes.contains(&i) {
                    Dim::Static(1)
                } else {
                    src.next().cloned().unwrap_or(Dim::Static(1))
                }
            })
            .collect();
        Ok(Value::Tensor(self.reshape_to(t, dims, span)?))
    }

    fn squeeze(&mut self, t: &Tensor, axis: Option<Value>, span: Span) -> R<Value> {
        let axes: Vec<usize> = match axis {
            None => (0..t.ty.rank())
                .filter(|&i| t.ty.dims[i] == Dim::Static(1))
                .collect(),
            Some(a) => {
                let axes = axes_arg(Some(a), t.ty.rank(), span)?;
                if let Some(&bad) = axes.iter().find(|&&i| t.ty.dims[i] != Dim::Static(1)) {
                    return Err(Diagnostic::error(
                        span,
                        format!("cannot select an axis to squeeze out which has size not equal to one (axis {bad} has size {})", t.ty.dims[bad]),
                    ));
                }
                axes
            }
        };
        let dims =
            t.ty.dims
                .iter()
                .enumerate()
                .filter(|(i, _)| !axes.contains(i))
                .map(|(_, d)| d.clone())
                .collect();
        Ok(Value::Tensor(self.reshape_to(t, dims, span)?))
    }

    /// Reductions: `sum mean max min prod any all var std argmax argmin`, function or method form
    /// (`args` holds what follows the array: axis, dtype/out, keepdims).
    fn reduction(&mut self, f: &str, v: &Value, args: &Args) -> R<Value> {
        let span = args.span;
        let t = self.to_tensor(v, None, span)?;
        let axis = args.get(0, "axis").filter(|a| !matches!(a, Value::None));
        if matches!(f, "argmax" | "argmin") {
            let keepdims = truthy_kw(args, 2, "keepdims");
            let kind = if f == "argmax" {
                ArgKind::ArgMax
            } else {
                ArgKind::ArgMin
            };
            let (src, ax) = match &axis {
                None => (self.flatten(&t, span)?, 0),
                Some(a) => (t.clone(), axes_arg(Some(a.clone()), t.ty.rank(), span)?[0]),
            };
            if src.ty.dims[ax] == Dim::Static(0) {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    format!("attempt to get {f} of an empty sequence"),
                ));
            }
            let dims = infer::reduce(&src.ty, &[ax], keepdims && axis.is_some());
            let ty = TensorType::new(DType::I64, dims);
            return Ok(Value::Tensor(
                self.emit(
                    OpKind::ArgReduce {
                        kind,
                        axis: ax,
                        keepdims: keepdims && axis.is_some(),
                    },
                    &[&src],
                    ty,
                    span,
                )
                .and_then(|r| {
                    if keepdims && axis.is_none() {
                        let d = vec![Dim::Static(1); t.ty.rank()];
                        self.reshape_to(&r, d, span)
                    } else {
                        Ok(r)
                    }
                })?,
            ));
        }
        let axes = axes_arg(axis, t.ty.rank(), span)?;
        // Positions after the array: sum/prod/mean(axis, dtype, out, keepdims),
        // max/min/any/all(axis, out, keepdims), var/std(axis, dtype, out, ddof, keepdims).
        let has_dtype = matches!(f, "sum" | "prod" | "mean" | "var" | "std");
        let keepdims_index = match f {
            "var" | "std" => 4,
            _ if has_dtype => 3,
            _ => 2,
        };
        let keepdims = truthy_kw(args, keepdims_index, "keepdims");
        let dtype = if has_dtype {
            dtype_arg(args.get(1, "dtype"), span)?
        } else {
            None
        };
        match f {
            "sum" | "prod" => {
                let d = dtype.unwrap_or(match t.ty.dtype {
                    DType::Bool | DType::I32 => DType::I64,
                    other => other,
                });
                let t = self.cast(&t, d, span)?;
                let kind = if f == "sum" {
                    ReduceKind::Sum
                } else {
                    ReduceKind::Prod
                };
                Ok(Value::Tensor(self.reduce(kind, &t, &axes, keepdims, span)?))
            }
            "max" | "amax" | "min" | "amin" | "any" | "all" => {
                let is_max = matches!(f, "max" | "amax" | "any");
                if matches!(f, "max" | "amax" | "min" | "amin") {
                    if let Some(&a) = axes.iter().find(|&&a| t.ty.dims[a] == Dim::Static(0)) {
                        return Err(Diagnostic::raises(span, "ValueError", format!("zero-size array to reduction operation {f} along axis {a} which has no identity")));
                    }
                }
                let logical = matches!(f, "any" | "all");
                let src = if logical {
                    self.cast(&t, DType::Bool, span)?
                } else {
                    t.clone()
                };
                let as_int = src.ty.dtype == DType::Bool;
                let work = if as_int {
                    self.cast(&src, DType::I32, span)?
                } else {
                    src
                };
                let kind = if is_max {
                    ReduceKind::Max
                } else {
                    ReduceKind::Min
                };
                let r = self.reduce(kind, &work, &axes, keepdims, span)?;
                Ok(Value::Tensor(if as_int {
                    self.cast(&r, DType::Bool, span)?
                } else {
                    r
                }))
            }
            "mean" => Ok(Value::Tensor(self.mean(&t, &axes, keepdims, dtype, span)?)),
            "var" | "std" => {
                let ddof = args
                    .get_some(3, "ddof")
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0);
                Ok(Value::Tensor(self.var_std(
                    f == "std",
                    &t,
                    &axes,
                    keepdims,
                    dtype,
                    ddof,
                    span,
                )?))
            }
            _ => Err(Diagnostic::unsupported(
                span,
                format!("'{f}' is not a supported array method"),
            )),
        }
    }

    /// A reduction over `axes` (none: `t` itself).
    pub(super) fn reduce(
        &mut self,
        kind: ReduceKind,
        t: &Tensor,
        axes: &[usize],
        keepdims: bool,
        span: Span,
    ) -> R<Tensor> {
        if axes.is_empty() {
            return Ok(t.clone());
        }
        let ty = TensorType::new(t.ty.dtype, infer::reduce(&t.ty, axes, keepdims));
        self.emit(
            OpKind::Reduce {
                kind,
                axes: axes.to_vec(),
                keepdims,
            },
            &[t],
            ty,
            span,
        )
    }
}
