//! Types of IR values: tensors of a dtype with static or symbolic dims, and
//! the continuations that reverse-mode AD introduces.
//!
//! A scalar is a rank-0 tensor. Symbolic dims carry a name: two dims with the
//! same name are the same run-time size within a function (names come from the
//! exported signature, e.g. `agc.f32["B", 784]`, or are minted by the frontend
//! for sizes only known at run time, prefixed with `_`).

use std::fmt;

/// Element type of a tensor, the numpy subset agc supports.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum DType {
    /// `bool` (stored as one byte).
    Bool,
    /// `int32`.
    I32,
    /// `int64`.
    I64,
    /// `float32`.
    F32,
    /// `float64`.
    F64,
}

impl DType {
    /// All dtypes, in promotion order.
    pub const ALL: [DType; 5] = [DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64];

    /// The numpy name (`float32`, ...).
    pub fn numpy_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// The short name used in the IR text and in `agc.f32[...]` specs.
    pub fn short_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// Parses a short name (`f32`) or numpy name (`float32`).
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| {
            d.short_name() == name
                || d.numpy_name() == name
                || (name == "bool_" && *d == DType::Bool)
        })
    }

    /// True for `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// True for `i32` and `i64`.
    pub fn is_int(self) -> bool {
        matches!(self, DType::I32 | DType::I64)
    }

    /// Size of one element in bytes.
    pub fn byte_size(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// numpy's promotion of two array dtypes (`np.result_type`).
    pub fn promote(a: DType, b: DType) -> DType {
        use DType::*;
        match (a, b) {
            (x, y) if x == y => x,
            (Bool, x) | (x, Bool) => x,
            (I32, I64) | (I64, I32) => I64,
            (F32, F64) | (F64, F32) => F64,
            // int32 with float32 -> float64 in numpy; int64 with float32 too.
            (I32 | I64, F32) | (F32, I32 | I64) => F64,
            (_, F64) | (F64, _) => F64,
            _ => unreachable!("all pairs covered"),
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

/// One dimension of a tensor type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Dim {
    /// Known at compile time.
    Static(i64),
    /// Known at run time; equal names are equal sizes.
    Sym(String),
}

impl Dim {
    /// The static size, if known.
    pub fn as_static(&self) -> Option<i64> {
        match self {
            Dim::Static(n) => Some(*n),
            Dim::Sym(_) => None,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Sym(s) => f.write_str(s),
        }
    }
}

/// A tensor type: dtype and dims (rank 0 = scalar).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TensorType {
    /// Element type.
    pub dtype: DType,
    /// Dimensions, outermost first (row-major).
    pub dims: Vec<Dim>,
}

impl TensorType {
    /// A tensor type from a dtype and dims.
    pub fn new(dtype: DType, dims: Vec<Dim>) -> Self {
        TensorType { dtype, dims }
    }

    /// A tensor type with dims written as numbers (static) or names
    /// (symbolic): `named(F32, &["B", "3"])` is `f32[B,3]`.
    pub fn named(dtype: DType, dims: &[&str]) -> Self {
        let dim = |d: &&str| {
            d.parse()
                .map(Dim::Static)
                .unwrap_or_else(|_| Dim::Sym(d.to_string()))
        };
        TensorType::new(dtype, dims.iter().map(dim).collect())
    }

    /// A rank-0 tensor.
    pub fn scalar(dtype: DType) -> Self {
        TensorType {
            dtype,
            dims: Vec::new(),
        }
    }

    /// A tensor with all-static dims.
    pub fn static_shape(dtype: DType, shape: &[i64]) -> Self {
        TensorType {
            dtype,
            dims: shape.iter().map(|&n| Dim::Static(n)).collect(),
        }
    }

    /// Number of dims.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The same dims with another dtype.
    pub fn with_dtype(&self, dtype: DType) -> Self {
        TensorType {
            dtype,
            dims: self.dims.clone(),
        }
    }

    /// Number of elements, if all dims are static.
    pub fn static_numel(&self) -> Option<i64> {
        self.dims.iter().map(Dim::as_static).product()
    }

    /// Shape as `(2, B, 3)` in numpy's spelling, for messages.
    pub fn shape_string(&self) -> String {
        let inner: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        if inner.len() == 1 {
            format!("({},)", inner[0])
        } else {
            format!("({})", inner.join(", "))
        }
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.dtype)?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// The type of a continuation (after AD): a closure that is applied to
/// `args` (the values the rest of the computation receives) and returns
/// `results` (their adjoints), as in Lantern's CPS form of reverse mode.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ContType {
    /// What it is applied to.
    pub args: Vec<TensorType>,
    /// What the application returns.
    pub results: Vec<TensorType>,
}

impl fmt::Display for ContType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |ts: &[TensorType]| {
            ts.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            f,
            "cont<({}) -> ({})>",
            list(&self.args),
            list(&self.results)
        )
    }
}

/// The type of an IR value.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// A tensor (scalars are rank 0).
    Tensor(TensorType),
    /// A continuation: only in code generated by AD.
    Cont(ContType),
}

impl Type {
    /// The tensor type. Only continuation-typed values (made by AD, used by
    /// `cont`/`apply`/`cont_outputs` and calls) are not tensors; asking
    /// for theirs is a bug in the caller.
    pub fn tensor(&self) -> &TensorType {
        match self {
            Type::Tensor(t) => t,
            Type::Cont(k) => panic!("a continuation ({k}) is not a tensor"),
        }
    }

    /// The tensor type, or `None` for a continuation.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            Type::Cont(_) => None,
        }
    }

    /// The continuation type, or `None` for a tensor.
    pub fn as_cont(&self) -> Option<&ContType> {
        match self {
            Type::Cont(k) => Some(k),
            Type::Tensor(_) => None,
        }
    }
}

impl From<TensorType> for Type {
    fn from(t: TensorType) -> Self {
        Type::Tensor(t)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Tensor(t) => t.fmt(f),
            Type::Cont(k) => k.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_matches_numpy_table() {
        use DType::*;
        assert_eq!(DType::promote(I32, F32), F64);
        assert_eq!(DType::promote(Bool, I32), I32);
        assert_eq!(DType::promote(I64, F64), F64);
        assert_eq!(DType::promote(F32, F32), F32);
        assert_eq!(DType::promote(I32, I64), I64);
    }

    #[test]
    fn shape_string_uses_numpy_spelling() {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(3)]);
        assert_eq!(t.shape_string(), "(B, 3)");
        assert_eq!(
            TensorType::static_shape(DType::F32, &[4]).shape_string(),
            "(4,)"
        );
        assert_eq!(t.to_string(), "f32[B,3]");
    }
}
