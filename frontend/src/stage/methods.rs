//! Attribute access: namespaces (`np.exp`, `agc.f32`, `math.pi`), tensor
//! attributes and methods, list/dict/str methods, and user objects.

use super::value::{Namespace, Value};
use super::{numpy, Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Dim, Span};
use std::rc::Rc;

const TENSOR_METHODS: &[&str] = &[
    "reshape",
    "transpose",
    "astype",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "argmax",
    "argmin",
    "squeeze",
    "flatten",
    "ravel",
    "copy",
    "dot",
    "clip",
    "var",
    "std",
    "any",
    "all",
    "item",
    "round",
    "cumsum",
    "cumprod",
    "argsort",
    "repeat",
    "swapaxes",
    "trace",
    "diagonal",
    "take",
];
/// Tensor attributes that are not methods.
const TENSOR_ATTRIBUTES: &[&str] = &["shape", "ndim", "dtype", "size", "T"];
const LIST_METHODS: &[&str] = &[
    "append", "extend", "pop", "insert", "index", "count", "copy", "reverse",
];
const DICT_METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "update",
    "pop",
    "setdefault",
    "copy",
];
const STR_METHODS: &[&str] = &[
    "format",
    "join",
    "upper",
    "lower",
    "startswith",
    "endswith",
    "replace",
    "split",
    "strip",
];
const MATH_FUNCS: &[&str] = &[
    "sqrt", "exp", "log", "log2", "log10", "tanh", "sin", "cos", "tan", "floor", "ceil", "fabs",
    "pow", "prod", "isqrt", "gcd", "isclose", "erf", "atan", "atan2", "asin", "acos", "sinh",
    "cosh", "hypot", "log1p", "expm1",
];

fn method(name: &str, recv: &Value) -> Value {
    Value::Builtin(Rc::from(name), Some(Box::new(recv.clone())))
}

fn dtype_attr(name: &str) -> Option<DType> {
    match name {
        "float32" | "single" => Some(DType::F32),
        "float64" | "double" | "float_" => Some(DType::F64),
        "int32" | "intc" => Some(DType::I32),
        "int64" | "int_" | "intp" => Some(DType::I64),
        "bool_" | "bool" => Some(DType::Bool),
        _ => None,
    }
}

impl Stager {
    /// `base.name`.
    pub fn get_attr(&mut self, base: &Value, name: &str, span: Span) -> R<Value> {
        if let Value::Variable(k) = base {
            return self.variable_attr(*k, name, span);
        }
        let missing = || {
            let known: &[&str] = match base {
                Value::Tensor(_) => &[TENSOR_METHODS, TENSOR_ATTRIBUTES].concat(),
                Value::List(_) | Value::TensorList(_) => LIST_METHODS,
                Value::Dict(_) => DICT_METHODS,
                Value::Str(_) => STR_METHODS,
                _ => &[],
            };
            Diagnostic::error(
                span,
                format!(
                    "AttributeError: '{}' object has no attribute '{name}'",
                    base.type_name()
                ),
            )
            .with_suggestion(super::keywords::closest(name, known))
        };
        match base {
            Value::Bottom => Ok(Value::Bottom),
            Value::Namespace(ns, module) => namespace_attr(*ns, module, name, span),
            Value::Tensor(t) => match name {
                "shape" => {
                    // Its run-time sizes may be needed as values: remember where to read them.
                    self.register_sym_sources(t);
                    Ok(Value::tuple(t.ty.dims.iter().map(dim_value).collect()))
                }
                "ndim" => Ok(Value::Int(t.ty.rank() as i64)),
                "dtype" => Ok(Value::DType(t.ty.dtype)),
                "itemsize" => Ok(Value::Int(t.ty.dtype.byte_size() as i64)),
                "nbytes" => {
                    let size = self.get_attr(base, "size", span)?;
                    let item = Value::Int(t.ty.dtype.byte_size() as i64);
                    self.binop(rustpython_parser::ast::Operator::Mult, &size, &item, span)
                }
                "size" => match t.ty.static_numel() {
                    Some(n) => Ok(Value::Int(n)),
                    None => {
                        let mut acc = Value::Int(1);
                        for d in &t.ty.dims {
                            acc = self.binop(
                                rustpython_parser::ast::Operator::Mult,
                                &acc,
                                &dim_value(d),
                                span,
                            )?;
                        }
                        Ok(acc)
                    }
                },
                "T" => self.call_builtin(
                    "tensor.transpose",
                    Some(base),
                    super::args::Args::positional(vec![], span),
                ),
                n if TENSOR_METHODS.contains(&n) => Ok(method(&format!("tensor.{n}"), base)),
                _ => Err(missing()),
            },
            Value::List(_) if LIST_METHODS.contains(&name) => {
                Ok(method(&format!("list.{name}"), base))
            }
            Value::TensorList(_) if name == "append" => Ok(method("list.append", base)),
            Value::Dict(_) if DICT_METHODS.contains(&name) => {
                Ok(method(&format!("dict.{name}"), base))
            }
            Value::Str(_) if STR_METHODS.contains(&name) => {
                Ok(method(&format!("str.{name}"), base))
            }
            Value::Tuple(_) if name == "index" || name == "count" => {
                Ok(method(&format!("list.{name}"), base))
            }
            Value::NamedTuple(..) | Value::TupleClass(_) => {
                super::namedtuple::attr(base, name).ok_or_else(missing)
            }
            Value::Instance(i) => {
                match i.attrs.borrow().get(name) {
                    Some(Value::Undefined(why)) => {
                        return Err(Diagnostic::error(
                            span,
                            format!("attribute '{name}' is undefined here: {why}"),
                        ))
                    }
                    Some(v) => return Ok(v.clone()),
                    None => {}
                }
                match i.class.lookup(name) {
                    Some(f @ Value::Function(_)) => {
                        Ok(Value::BoundMethod(Rc::new((base.clone(), f))))
                    }
                    Some(Value::Builtin(kind, Some(f))) if &*kind == "property" => {
                        self.call(&f, super::args::Args::positional(vec![base.clone()], span))
                    }
                    Some(Value::Builtin(kind, Some(f))) if &*kind == "staticmethod" => Ok(*f),
                    Some(Value::Builtin(kind, Some(f))) if &*kind == "classmethod" => Ok(
                        Value::BoundMethod(Rc::new((Value::Class(i.class.clone()), *f))),
                    ),
                    Some(v) => Ok(v),
                    None if name == "__class__" => Ok(Value::Class(i.class.clone())),
                    None => Err(missing()),
                }
            }
            Value::Class(c) => match name {
                "__name__" => Ok(Value::str(&c.name)),
                _ => match c.lookup(name).ok_or_else(missing)? {
                    Value::Builtin(kind, Some(f)) if &*kind == "staticmethod" => Ok(*f),
                    Value::Builtin(kind, Some(f)) if &*kind == "classmethod" => {
                        Ok(Value::BoundMethod(Rc::new((base.clone(), *f))))
                    }
                    other => Ok(other),
                },
            },
            Value::Function(f) if name == "__name__" => Ok(Value::str(&f.name)),
            Value::DType(d) => match name {
                "itemsize" => Ok(Value::Int(d.byte_size() as i64)),
                "name" => Ok(Value::str(d.numpy_name())),
                _ => Err(missing()),
            },
            Value::Spec(t) => match name {
                "shape" => Ok(Value::tuple(t.dims.iter().map(dim_value).collect())),
                "dtype" => Ok(Value::DType(t.dtype)),
                _ => Err(missing()),
            },
            Value::Float(_) | Value::Int(_) if name == "real" => Ok(base.clone()),
            Value::Builtin(f, None)
                if f.strip_prefix("np.")
                    .is_some_and(|u| super::numpy_reductions::is_ufunc_method(u, name)) =>
            {
                Ok(Value::Builtin(Rc::from(format!("{f}.{name}")), None))
            }
            _ => Err(missing()),
        }
    }
}

/// A dim as a Python value: an int, or a run-time size.
pub fn dim_value(d: &Dim) -> Value {
    match d {
        Dim::Static(n) => Value::Int(*n),
        Dim::Sym(_) => Value::SymInt(d.clone()),
    }
}

/// The public names of numpy 2.4's top-level module (`dir(numpy)`): a name
/// among them that agc lacks is "not supported by agc", any other name is
/// numpy's AttributeError.
const NUMPY_NAMES: &str = include_str!("numpy_names.txt");

/// The public names of numpy 2.4's `numpy.linalg`.
const NUMPY_LINALG_NAMES: &[&str] = &[
    "LinAlgError",
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
];

/// The public names of CPython 3.11's `math`.
const PYTHON_MATH_NAMES: &[&str] = &[
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "comb",
    "copysign",
    "cos",
    "cosh",
    "degrees",
    "dist",
    "e",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "factorial",
    "floor",
    "fmod",
    "frexp",
    "fsum",
    "gamma",
    "gcd",
    "hypot",
    "inf",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "isqrt",
    "lcm",
    "ldexp",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "modf",
    "nan",
    "nextafter",
    "perm",
    "pi",
    "pow",
    "prod",
    "radians",
    "remainder",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "tau",
    "trunc",
    "ulp",
];

/// The names of the `agc` module.
const AGC_NAMES: &[&str] = &[
    "f32",
    "f64",
    "i32",
    "i64",
    "bool_",
    "numpy",
    "export",
    "grad",
    "value_and_grad",
    "weights",
    "Variable",
];

/// The numpy function, dtype or constant agc supports that is closest to
/// `name` (for "did you mean").
fn numpy_suggestion(name: &str) -> Option<&'static str> {
    let constants = [
        "pi", "e", "inf", "nan", "newaxis", "float32", "float64", "int32", "int64", "bool_",
    ];
    let mut known: Vec<&str> = numpy::all_functions().collect();
    known.extend(constants);
    super::keywords::closest(name, &known)
}

fn namespace_attr(ns: Namespace, module: &str, name: &str, span: Span) -> R<Value> {
    let f = |q: &str| Ok(Value::Builtin(Rc::from(q), None));
    match ns {
        Namespace::Numpy => {
            if let Some(d) = dtype_attr(name) {
                return Ok(Value::DType(d));
            }
            match name {
                "pi" => Ok(Value::Float(std::f64::consts::PI)),
                "e" => Ok(Value::Float(std::f64::consts::E)),
                "inf" | "infty" | "Inf" => Ok(Value::Float(f64::INFINITY)),
                "nan" | "NaN" => Ok(Value::Float(f64::NAN)),
                "newaxis" => Ok(Value::None),
                "random" | "linalg" | "fft" => Ok(Value::Namespace(Namespace::NumpyOther, Rc::from(format!("numpy.{name}")))),
                n if numpy::is_function(n) => f(&format!("np.{n}")),
                _ if NUMPY_NAMES.lines().any(|n| n == name) => {
                    Err(Diagnostic::unsupported(span, format!("numpy.{name} is not supported by agc")))
                }
                _ => Err(Diagnostic::error(span, format!("AttributeError: module 'numpy' has no attribute '{name}'"))
                    .with_suggestion(numpy_suggestion(name))),
            }
        }
        Namespace::Agc => match name {
            "f32" => Ok(Value::SpecFactory(DType::F32)),
            "f64" => Ok(Value::SpecFactory(DType::F64)),
            "i32" => Ok(Value::SpecFactory(DType::I32)),
            "i64" => Ok(Value::SpecFactory(DType::I64)),
            "bool_" => Ok(Value::SpecFactory(DType::Bool)),
            "numpy" => Ok(Value::Namespace(Namespace::Numpy, Rc::from("agc.numpy"))),
            "export" => f("agc.export"),
            "grad" => f("agc.grad"),
            "value_and_grad" => f("agc.value_and_grad"),
            "weights" => f("agc.weights"),
            "Variable" => f("agc.Variable"),
            _ => {
                let near = match name {
                    "float32" | "float" => Some("f32"),
                    "float64" | "double" => Some("f64"),
                    "int32" => Some("i32"),
                    "int64" | "int" => Some("i64"),
                    "bool" => Some("bool_"),
                    _ => super::keywords::closest(name, AGC_NAMES),
                };
                Err(Diagnostic::error(span, format!("AttributeError: module 'agc' has no attribute '{name}'")).with_suggestion(near))
            }
        },
        Namespace::Math => match name {
            "pi" => Ok(Value::Float(std::f64::consts::PI)),
            "e" => Ok(Value::Float(std::f64::consts::E)),
            "tau" => Ok(Value::Float(std::f64::consts::TAU)),
            "inf" => Ok(Value::Float(f64::INFINITY)),
            "nan" => Ok(Value::Float(f64::NAN)),
            n if MATH_FUNCS.contains(&n) => f(&format!("math.{n}")),
            _ if PYTHON_MATH_NAMES.contains(&name) => {
                Err(Diagnostic::unsupported(span, format!("math.{name} is not supported by agc")))
            }
            _ => Err(Diagnostic::error(
                span,
                format!("AttributeError: module 'math' has no attribute '{name}'"),
            )
            .with_suggestion(super::keywords::closest(name, MATH_FUNCS))),
        },
        Namespace::NumpyOther if module == "numpy.linalg" => match name {
            n if numpy::LINALG_FUNCTIONS.contains(&n) => f(&format!("np.linalg.{n}")),
            _ if NUMPY_LINALG_NAMES.contains(&name) => {
                Err(Diagnostic::unsupported(span, format!("numpy.linalg.{name} is not supported by agc")))
            }
            _ => Err(Diagnostic::error(span, format!("AttributeError: module 'numpy.linalg' has no attribute '{name}'"))
                .with_suggestion(super::keywords::closest(name, numpy::LINALG_FUNCTIONS))),
        },
        Namespace::Operator | Namespace::Functools | Namespace::Collections => {
            let supported = match ns {
                Namespace::Operator => super::operator::OPERATOR_FUNCTIONS,
                Namespace::Functools => super::operator::FUNCTOOLS_FUNCTIONS,
                _ => super::namedtuple::COLLECTIONS_FUNCTIONS,
            };
            if supported.contains(&name) {
                return f(&format!("{module}.{name}"));
            }
            Err(Diagnostic::unsupported(span, format!("{module}.{name} is not supported by agc")))
        }
        Namespace::NumpyOther | Namespace::Opaque => Err(Diagnostic::unsupported(
            span,
            format!(
                "module '{module}' is not supported by agc (only agc, agc.numpy/numpy, math, operator, functools and collections are)"
            ),
        )),
    }
}
