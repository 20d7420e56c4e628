//! Operation kinds of the agc IR and their printed names.
//!
//! Every op takes operand values and produces result values whose types are
//! stored on the values; the typing rules live in [`crate::infer`]. Elementwise
//! ops (unary, binary, compare, select) broadcast their operands the numpy way:
//! the result shape is the broadcast of the operand shapes.

use crate::entities::FuncId;
use crate::types::DType;

/// Elementwise unary operations.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `np.exp`
    Exp,
    /// `np.log`
    Log,
    /// `np.tanh`
    Tanh,
    /// `np.sqrt`
    Sqrt,
    /// `np.abs`
    Abs,
    /// `np.sin`
    Sin,
    /// `np.cos`
    Cos,
    /// `np.floor`
    Floor,
    /// `np.ceil`
    Ceil,
    /// `np.logical_not` / `~` on bools
    Not,
    /// `np.sign`
    Sign,
    /// `np.arcsin` (float operands)
    Asin,
    /// `np.arccos` (float operands)
    Acos,
    /// `np.arctan` (float operands)
    Atan,
    /// `np.rint`: round half to even (float operands)
    Round,
}

/// Elementwise binary operations (operands already promoted to one dtype).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (float operands)
    Div,
    /// `//` (floor division, Python semantics)
    FloorDiv,
    /// `%` (Python semantics: sign of the divisor)
    Mod,
    /// `**`
    Pow,
    /// `np.maximum`
    Max,
    /// `np.minimum`
    Min,
    /// `&` on bools or ints
    And,
    /// `|` on bools or ints
    Or,
    /// `^` on bools or ints
    Xor,
    /// `<<` on ints (numpy: 0 for a shift outside `[0, bits)`)
    Shl,
    /// `>>` on ints, arithmetic (numpy: 0 or -1 for a shift outside `[0, bits)`)
    Shr,
    /// `np.arctan2(a, b)` (float operands)
    Atan2,
    /// `np.fmod` (C's `fmod`: the remainder has the dividend's sign; 0 for
    /// an integer division by zero, as numpy)
    FMod,
}

/// Elementwise comparisons, producing `bool`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// Reductions over a set of axes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ReduceKind {
    /// `np.sum`
    Sum,
    /// `np.prod`
    Prod,
    /// `np.max`
    Max,
    /// `np.min`
    Min,
}

/// Index-of-extremum reductions along one axis (first occurrence wins).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ArgKind {
    /// `np.argmax`
    ArgMax,
    /// `np.argmin`
    ArgMin,
}

/// One axis of a [`OpKind::Slice`], in Python's slice semantics.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SliceDim {
    /// `start`, `None` for the default.
    pub start: Option<i64>,
    /// `stop`, `None` for the default.
    pub stop: Option<i64>,
    /// `step`, never 0.
    pub step: i64,
}

impl SliceDim {
    /// The whole axis (`:`).
    pub const FULL: SliceDim = SliceDim {
        start: None,
        stop: None,
        step: 1,
    };

    /// Python's `slice.indices(n)` then the length: the size of the result axis.
    pub fn len_for(&self, n: i64) -> i64 {
        let (start, stop) = self.bounds_for(n);
        if self.step > 0 {
            if stop > start {
                (stop - start + self.step - 1) / self.step
            } else {
                0
            }
        } else if start > stop {
            (start - stop + (-self.step) - 1) / (-self.step)
        } else {
            0
        }
    }

    /// Python's `slice.indices(n)`: clamped `(start, stop)`.
    pub fn bounds_for(&self, n: i64) -> (i64, i64) {
        let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
        let norm = |v: i64| if v < 0 { v + n } else { v };
        if self.step > 0 {
            let start = self.start.map_or(0, |s| clamp(norm(s), 0, n));
            let stop = self.stop.map_or(n, |s| clamp(norm(s), 0, n));
            (start, stop)
        } else {
            let start = self.start.map_or(n - 1, |s| clamp(norm(s), -1, n - 1));
            let stop = self.stop.map_or(-1, |s| clamp(norm(s), -1, n - 1));
            (start, stop)
        }
    }

    /// True for `:`.
    pub fn is_full(&self) -> bool {
        *self == SliceDim::FULL
    }
}

/// Compile-time literal data of a [`OpKind::Const`], row-major.
#[derive(Clone, PartialEq, Debug)]
pub enum ConstData {
    /// Float elements (for `f32`/`f64` tensors).
    Float(Vec<f64>),
    /// Integer elements (for `i32`/`i64` tensors).
    Int(Vec<i64>),
    /// Boolean elements.
    Bool(Vec<bool>),
}

impl ConstData {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            ConstData::Float(v) => v.len(),
            ConstData::Int(v) => v.len(),
            ConstData::Bool(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when every element equals the first (a splat).
    pub fn is_splat(&self) -> bool {
        match self {
            ConstData::Float(v) => v.windows(2).all(|w| w[0].to_bits() == w[1].to_bits()),
            ConstData::Int(v) => v.windows(2).all(|w| w[0] == w[1]),
            ConstData::Bool(v) => v.windows(2).all(|w| w[0] == w[1]),
        }
    }

    /// The data converted for a tensor of `dtype` (numpy's `astype`).
    pub fn cast(&self, dtype: DType) -> ConstData {
        let as_f64: Vec<f64> = match self {
            ConstData::Float(v) => v.clone(),
            ConstData::Int(v) => v.iter().map(|&x| x as f64).collect(),
            ConstData::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
        };
        match dtype {
            DType::F32 => ConstData::Float(as_f64.iter().map(|&x| x as f32 as f64).collect()),
            DType::F64 => ConstData::Float(as_f64),
            DType::I32 | DType::I64 => ConstData::Int(match self {
                ConstData::Int(v) if dtype == DType::I64 => v.clone(),
                ConstData::Int(v) => v.iter().map(|&x| x as i32 as i64).collect(),
                _ => as_f64
                    .iter()
                    .map(|&x| {
                        if dtype == DType::I32 {
                            x as i32 as i64
                        } else {
                            x as i64
                        }
                    })
                    .collect(),
            }),
            DType::Bool => ConstData::Bool(as_f64.iter().map(|&x| x != 0.0).collect()),
        }
    }
}

/// What an op does. Attributes that are not values live here; operands and
/// results are on the [`crate::OpData`].
#[derive(Clone, PartialEq, Debug)]
pub enum OpKind {
    /// A literal tensor; the result type gives dtype and (static) shape.
    Const(ConstData),
    /// Weight `k` of the module ([`crate::Module::weights`]): a constant
    /// whose data lives in a weight file, not in the IR.
    Weight(u32),
    /// Broadcasts a rank-0 operand to the result type's shape (`np.full`).
    /// Optional further operands are rank-0 `i64` sizes of the result's first
    /// symbolic dims, in order, for sizes computed at run time (the other
    /// symbolic dims are sizes known in the function).
    Fill,
    /// Elementwise unary op; result dtype = operand dtype.
    Unary(UnaryOp),
    /// Elementwise binary op on operands of one dtype, numpy broadcasting.
    Binary(BinaryOp),
    /// Elementwise comparison of operands of one dtype, result `bool`.
    Compare(CmpOp),
    /// `np.where(cond, a, b)`: `cond` is `bool`, `a` and `b` one dtype.
    Select,
    /// `astype`: elementwise conversion to the result dtype (C casts; float→bool is `!= 0`).
    Cast,
    /// `np.matmul` with numpy's 1-D and batch-broadcast rules.
    MatMul,
    /// Reduction over `axes` (sorted, unique).
    Reduce {
        /// Which reduction.
        kind: ReduceKind,
        /// Reduced axes of the operand.
        axes: Vec<usize>,
        /// Keep reduced axes as size 1.
        keepdims: bool,
    },
    /// `argmax`/`argmin` along `axis`, result `i64`.
    ArgReduce {
        /// Which extremum.
        kind: ArgKind,
        /// Reduced axis of the operand.
        axis: usize,
        /// Keep the reduced axis as size 1.
        keepdims: bool,
    },
    /// Row-major reshape to the result type (same element count); also
    /// renames symbolic dims (a type that differs only in their names).
    Reshape,
    /// Permutes axes: result dim `i` is operand dim `perm[i]`.
    Transpose {
        /// The permutation.
        perm: Vec<usize>,
    },
    /// Broadcasts the operand to the result type's shape (numpy rules).
    BroadcastTo,
    /// Concatenates the operands along `axis`.
    Concat {
        /// The axis.
        axis: usize,
    },
    /// Basic slicing: one [`SliceDim`] per operand axis; result keeps the rank.
    Slice {
        /// Per-axis slices.
        dims: Vec<SliceDim>,
    },
    /// `np.arange`-style ramp along a rank-1 result: `start + i * step`.
    /// An optional operand, a rank-0 `i64`, is the result's size when its
    /// dim is symbolic and computed at run time (as for [`OpKind::Fill`]).
    Iota {
        /// First value.
        start: f64,
        /// Increment.
        step: f64,
    },
    /// The run-time size of axis `axis` of the operand, as a rank-0 `i64`.
    Dim {
        /// The axis.
        axis: usize,
    },
    /// Ends the function body, returning its operands.
    Return,
    /// Structured conditional. Operand 0 is a rank-0 `bool`; regions are
    /// `[then, else]`, without parameters, each ending in [`OpKind::Yield`]
    /// with values of the result types.
    If,
    /// Structured loop with MLIR `scf.while` semantics. Operands are the
    /// initial state. Region 0 ("before", parameters = state) ends in
    /// [`OpKind::Condition`]`(cond, args..)`: when `cond` holds, region 1
    /// ("after", parameters = args) runs and its [`OpKind::Yield`] gives the
    /// next state; otherwise `args` are the op's results.
    While,
    /// Ends an `If` branch or a `While` body, passing its operands out.
    Yield,
    /// Ends a `While` "before" region: a rank-0 `bool`, then the values forwarded.
    Condition,
    /// Calls a function of the module (recursion allowed); results are the callee's.
    Call {
        /// The callee.
        callee: FuncId,
    },
    /// Integer indexing with run-time indices: operands `[x, i0, .., i{k-1}]`,
    /// rank-0 `i64` indices into the leading `axes` axes (negative indices
    /// count from the end once; out of range is a run-time error). The
    /// result drops those axes.
    DynIndex {
        /// How many leading axes are indexed.
        axes: usize,
    },
    /// `x[start:stop]` along axis 0 with rank-0 `i64` bounds (Python slice
    /// semantics, step 1): operands `[x, start, stop]`; the result's first
    /// dim is a run-time size.
    DynSlice,
    /// Fails the call at run time, with `message`, unless the rank-0 `bool`
    /// operand holds (a staged `assert`, a `raise` under staged control flow,
    /// or a check numpy makes, like stacking an empty list). No results.
    Assert {
        /// What the error says.
        message: String,
    },
    /// A copy of `x` with `x[i0, .., i{k-1}]` replaced by `v` (or increased
    /// by `v` when `accumulate`): operands `[x, v, i0, ..]`, indices as in
    /// [`OpKind::DynIndex`]; `v` broadcasts to the indexed sub-tensor.
    DynUpdate {
        /// How many leading axes are indexed.
        axes: usize,
        /// Add instead of overwrite (the adjoint of `DynIndex`).
        accumulate: bool,
    },
    /// `np.take(x, idx, axis)`: operands `[x, idx]`, `idx` an integer tensor
    /// of any rank; the result has shape `x.shape[:axis] + idx.shape +
    /// x.shape[axis+1:]`. Negative indices count from the end once; an
    /// index out of range is a run-time error.
    Gather {
        /// The indexed axis of `x`.
        axis: usize,
    },
    /// The transpose of [`OpKind::Gather`]: operands `[base, idx, updates]`,
    /// `updates` of the type `Gather { axis }` of `base` by `idx` has; the
    /// result is `base` with each update added at its index along `axis`
    /// (repeated indices accumulate, as `np.add.at`).
    ScatterAdd {
        /// The indexed axis of `base`.
        axis: usize,
    },
    /// A continuation closure (AD's CPS form): operands are the captured
    /// values, the result has a [`crate::ContType`]. `func` takes the
    /// captures followed by the continuation's arguments and returns the
    /// continuation's results followed by its *outputs* (values it hands
    /// back to the function that made it, such as the adjoints of the
    /// captures). Backends keep the captures in an environment record in
    /// the frame of the function that makes the closure, which outlives
    /// every application.
    MakeCont {
        /// The continuation's code.
        func: FuncId,
    },
    /// Applies a continuation: operands `[k, args..]`, results the
    /// continuation's results. Each continuation is applied at most once.
    Apply,
    /// The outputs of a continuation made by a `cont` op of this function,
    /// read after it was applied (operand: the continuation).
    ContOutputs,
}

impl UnaryOp {
    /// Every variant, in declaration order.
    pub const ALL: [UnaryOp; 16] = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Tanh,
        UnaryOp::Sqrt,
        UnaryOp::Abs,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Not,
        UnaryOp::Sign,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Atan,
        UnaryOp::Round,
    ];

    /// Printed name.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Abs => "abs",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Not => "not",
            UnaryOp::Sign => "sign",
            UnaryOp::Asin => "asin",
            UnaryOp::Acos => "acos",
            UnaryOp::Atan => "atan",
            UnaryOp::Round => "round",
        }
    }
}

impl BinaryOp {
    /// Every variant, in declaration order.
    pub const ALL: [BinaryOp; 16] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::FloorDiv,
        BinaryOp::Mod,
        BinaryOp::Pow,
        BinaryOp::Max,
        BinaryOp::Min,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Atan2,
        BinaryOp::FMod,
    ];

    /// Printed name.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::FloorDiv => "floordiv",
            BinaryOp::Mod => "mod",
            BinaryOp::Pow => "pow",
            BinaryOp::Max => "max",
            BinaryOp::Min => "min",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::FMod => "fmod",
        }
    }
}

impl CmpOp {
    /// Every variant, in declaration order.
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];

    /// Printed name.
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
        }
    }
}

impl ReduceKind {
    /// Every variant, in declaration order.
    pub const ALL: [ReduceKind; 4] = [
        ReduceKind::Sum,
        ReduceKind::Prod,
        ReduceKind::Max,
        ReduceKind::Min,
    ];

    /// Printed name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceKind::Sum => "sum",
            ReduceKind::Prod => "prod",
            ReduceKind::Max => "max",
            ReduceKind::Min => "min",
        }
    }
}

impl OpKind {
    /// The op's printed name, e.g. `add`, `matmul`, `reduce.sum`.
    pub fn name(&self) -> String {
        match self {
            OpKind::Const(_) => "const".into(),
            OpKind::Weight(_) => "weight".into(),
            OpKind::Fill => "fill".into(),
            OpKind::Unary(u) => u.name().into(),
            OpKind::Binary(b) => b.name().into(),
            OpKind::Compare(c) => format!("cmp.{}", c.name()),
            OpKind::Select => "select".into(),
            OpKind::Cast => "cast".into(),
            OpKind::MatMul => "matmul".into(),
            OpKind::Reduce { kind, .. } => format!("reduce.{}", kind.name()),
            OpKind::ArgReduce {
                kind: ArgKind::ArgMax,
                ..
            } => "argmax".into(),
            OpKind::ArgReduce {
                kind: ArgKind::ArgMin,
                ..
            } => "argmin".into(),
            OpKind::Reshape => "reshape".into(),
            OpKind::Transpose { .. } => "transpose".into(),
            OpKind::BroadcastTo => "broadcast_to".into(),
            OpKind::Concat { .. } => "concat".into(),
            OpKind::Slice { .. } => "slice".into(),
            OpKind::Iota { .. } => "iota".into(),
            OpKind::Dim { .. } => "dim".into(),
            OpKind::Return => "return".into(),
            OpKind::If => "if".into(),
            OpKind::While => "while".into(),
            OpKind::Yield => "yield".into(),
            OpKind::Condition => "condition".into(),
            OpKind::Call { .. } => "call".into(),
            OpKind::DynIndex { .. } => "dyn_index".into(),
            OpKind::DynSlice => "dyn_slice".into(),
            OpKind::Assert { .. } => "assert".into(),
            OpKind::DynUpdate {
                accumulate: false, ..
            } => "dyn_update".into(),
            OpKind::DynUpdate {
                accumulate: true, ..
            } => "dyn_update_add".into(),
            OpKind::Gather { .. } => "gather".into(),
            OpKind::ScatterAdd { .. } => "scatter_add".into(),
            OpKind::MakeCont { .. } => "cont".into(),
            OpKind::Apply => "apply".into(),
            OpKind::ContOutputs => "cont_outputs".into(),
        }
    }

    /// True for ops that end a region.
    pub fn is_terminator(&self) -> bool {
        matches!(self, OpKind::Return | OpKind::Yield | OpKind::Condition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_lengths_follow_python() {
        // Compared with len(range(n)[s]) in CPython for these cases.
        let s = |a, b, c| SliceDim {
            start: a,
            stop: b,
            step: c,
        };
        assert_eq!(s(None, None, 1).len_for(5), 5);
        assert_eq!(s(Some(1), None, 1).len_for(5), 4);
        assert_eq!(s(None, Some(-1), 1).len_for(5), 4);
        assert_eq!(s(None, None, -1).len_for(5), 5);
        assert_eq!(s(Some(-2), None, -2).len_for(5), 2);
        assert_eq!(s(Some(10), Some(20), 1).len_for(5), 0);
        assert_eq!(s(None, None, 2).len_for(5), 3);
        assert_eq!(s(Some(3), Some(0), -1).len_for(5), 3);
    }
}
