//! A cursor-style op builder over an [`agc_ir::Function`]: appends ops at the
//! end of one region, deriving every result type with the rules of
//! [`agc_ir::infer`] (the same rules the verifier re-checks), so passes that
//! generate code (AD first of all) never spell a result type by hand except
//! where the op's type *is* its attribute (`const`, `fill`, `reshape`,
//! `broadcast_to`, `dyn_slice`).

use agc_ir::infer::{self, TypeError};
use agc_ir::{
    BinaryOp, CmpOp, ConstData, DType, Dim, FuncId, Function, OpKind, ReduceKind, RegionId,
    SliceDim, Span, TensorType, Type, UnaryOp, Value,
};

/// Appends ops to the end of `region` of `f`, all stamped with `span`.
pub struct Builder<'f> {
    /// The function being built.
    pub f: &'f mut Function,
    /// Where new ops go.
    pub region: RegionId,
    /// The span stamped on new ops.
    pub span: Span,
}

/// Result of a builder method: a new value, or why the operand types do not fit.
pub type BResult<T = Value> = Result<T, TypeError>;

impl<'f> Builder<'f> {
    /// A builder appending to `region` of `f`.
    pub fn new(f: &'f mut Function, region: RegionId, span: Span) -> Self {
        Builder { f, region, span }
    }

    /// A builder for another region of the same function (for nested regions).
    pub fn at(&mut self, region: RegionId) -> Builder<'_> {
        Builder {
            f: self.f,
            region,
            span: self.span,
        }
    }

    /// The tensor type of `v`.
    pub fn ty(&self, v: Value) -> TensorType {
        self.f.ty(v).tensor().clone()
    }

    /// Appends an op with explicit result types and regions; returns its results.
    pub fn op(
        &mut self,
        kind: OpKind,
        operands: Vec<Value>,
        results: Vec<TensorType>,
        regions: Vec<RegionId>,
    ) -> Vec<Value> {
        let results = results.into_iter().map(Type::from).collect();
        self.f
            .append_op(self.region, kind, operands, results, regions, self.span)
            .1
    }

    /// Appends a single-result op without regions.
    pub fn op1(&mut self, kind: OpKind, operands: Vec<Value>, result: TensorType) -> Value {
        self.op(kind, operands, vec![result], Vec::new())[0]
    }

    /// A terminator (`return`, `yield`, `condition`).
    pub fn terminate(&mut self, kind: OpKind, operands: Vec<Value>) {
        self.op(kind, operands, Vec::new(), Vec::new());
    }

    /// A rank-0 constant of a numeric dtype.
    pub fn scalar(&mut self, dtype: DType, x: f64) -> Value {
        let data = match dtype {
            DType::F32 | DType::F64 => ConstData::Float(vec![x]),
            DType::I32 | DType::I64 => ConstData::Int(vec![x as i64]),
            DType::Bool => ConstData::Bool(vec![x != 0.0]),
        }
        .cast(dtype);
        self.op1(OpKind::Const(data), Vec::new(), TensorType::scalar(dtype))
    }

    /// A rank-0 `i64` constant.
    pub fn index(&mut self, i: i64) -> Value {
        self.op1(
            OpKind::Const(ConstData::Int(vec![i])),
            Vec::new(),
            TensorType::scalar(DType::I64),
        )
    }

    /// A tensor of type `ty` filled with `x`.
    pub fn full(&mut self, ty: &TensorType, x: f64) -> Value {
        let s = self.scalar(ty.dtype, x);
        if ty.rank() == 0 {
            return s;
        }
        self.op1(OpKind::Fill, vec![s], ty.clone())
    }

    /// Zeros of type `ty`.
    pub fn zeros(&mut self, ty: &TensorType) -> Value {
        self.full(ty, 0.0)
    }

    /// An elementwise unary op.
    pub fn unary(&mut self, u: UnaryOp, x: Value) -> Value {
        let t = self.ty(x);
        self.op1(OpKind::Unary(u), vec![x], t)
    }

    /// An elementwise binary op with numpy broadcasting.
    pub fn binary(&mut self, b: BinaryOp, x: Value, y: Value) -> BResult {
        let (tx, ty) = (self.ty(x), self.ty(y));
        if tx.dtype != ty.dtype {
            return Err(TypeError::DTypeMismatch(tx.dtype, ty.dtype));
        }
        let dims = infer::broadcast_dims(&tx.dims, &ty.dims)?;
        Ok(self.op1(
            OpKind::Binary(b),
            vec![x, y],
            TensorType::new(tx.dtype, dims),
        ))
    }

    /// `x + y`.
    pub fn add(&mut self, x: Value, y: Value) -> BResult {
        self.binary(BinaryOp::Add, x, y)
    }

    /// `x * y`.
    pub fn mul(&mut self, x: Value, y: Value) -> BResult {
        self.binary(BinaryOp::Mul, x, y)
    }

    /// `x * c` for a compile-time scalar `c` of `x`'s dtype.
    pub fn mul_const(&mut self, x: Value, c: f64) -> BResult {
        let s = self.scalar(self.ty(x).dtype, c);
        self.mul(x, s)
    }

    /// An elementwise comparison.
    pub fn compare(&mut self, c: CmpOp, x: Value, y: Value) -> BResult {
        let (tx, ty) = (self.ty(x), self.ty(y));
        if tx.dtype != ty.dtype {
            return Err(TypeError::DTypeMismatch(tx.dtype, ty.dtype));
        }
        let dims = infer::broadcast_dims(&tx.dims, &ty.dims)?;
        Ok(self.op1(
            OpKind::Compare(c),
            vec![x, y],
            TensorType::new(DType::Bool, dims),
        ))
    }

    /// `np.where(c, x, y)`.
    pub fn select(&mut self, c: Value, x: Value, y: Value) -> BResult {
        let (tc, tx, ty) = (self.ty(c), self.ty(x), self.ty(y));
        if tx.dtype != ty.dtype {
            return Err(TypeError::DTypeMismatch(tx.dtype, ty.dtype));
        }
        let dims = infer::broadcast_all(&[&tc, &tx, &ty])?;
        Ok(self.op1(
            OpKind::Select,
            vec![c, x, y],
            TensorType::new(tx.dtype, dims),
        ))
    }

    /// `x.astype(dtype)`.
    pub fn cast(&mut self, x: Value, dtype: DType) -> Value {
        let t = self.ty(x);
        if t.dtype == dtype {
            return x;
        }
        self.op1(OpKind::Cast, vec![x], t.with_dtype(dtype))
    }

    /// `np.matmul(x, y)`.
    pub fn matmul(&mut self, x: Value, y: Value) -> BResult {
        let t = infer::matmul(&self.ty(x), &self.ty(y))?;
        Ok(self.op1(OpKind::MatMul, vec![x, y], t))
    }

    /// A reduction over `axes` (sorted, unique); the identity when `axes` is empty.
    pub fn reduce(
        &mut self,
        kind: ReduceKind,
        x: Value,
        axes: Vec<usize>,
        keepdims: bool,
    ) -> Value {
        if axes.is_empty() {
            return x;
        }
        let t = self.ty(x);
        let dims = infer::reduce(&t, &axes, keepdims);
        self.op1(
            OpKind::Reduce {
                kind,
                axes,
                keepdims,
            },
            vec![x],
            TensorType::new(t.dtype, dims),
        )
    }

    /// Row-major reshape to `dims` (the identity when the type is already `dims`).
    pub fn reshape(&mut self, x: Value, dims: &[Dim]) -> BResult {
        let t = self.ty(x);
        if t.dims == dims {
            return Ok(x);
        }
        let to = TensorType::new(t.dtype, dims.to_vec());
        if infer::same_up_to_sym_names(&t, &to) {
            return self.retype(x, &to);
        }
        if !infer::same_numel(&t.dims, dims) {
            let to = TensorType::new(t.dtype, dims.to_vec());
            return Err(TypeError::Reshape(t.shape_string(), to.shape_string()));
        }
        Ok(self.op1(
            OpKind::Reshape,
            vec![x],
            TensorType::new(t.dtype, dims.to_vec()),
        ))
    }

    /// `x` under the type `to`, which differs from its own at most in the
    /// names of symbolic dims (a value crossing a region boundary).
    pub fn retype(&mut self, x: Value, to: &TensorType) -> BResult {
        let t = self.ty(x);
        if t == *to {
            return Ok(x);
        }
        if !infer::same_up_to_sym_names(&t, to) {
            return Err(TypeError::Reshape(t.shape_string(), to.shape_string()));
        }
        Ok(self.op1(OpKind::Reshape, vec![x], to.clone()))
    }

    /// Permutes axes (the identity permutation emits nothing).
    pub fn transpose(&mut self, x: Value, perm: Vec<usize>) -> BResult {
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(x);
        }
        let t = infer::transpose(&self.ty(x), &perm)?;
        Ok(self.op1(OpKind::Transpose { perm }, vec![x], t))
    }

    /// Broadcasts `x` to `dims` (numpy rules).
    pub fn broadcast_to(&mut self, x: Value, dims: &[Dim]) -> BResult {
        let t = self.ty(x);
        if t.dims == dims {
            return Ok(x);
        }
        if infer::broadcast_dims(&t.dims, dims)? != dims {
            let to = TensorType::new(t.dtype, dims.to_vec());
            return Err(TypeError::Broadcast(t.shape_string(), to.shape_string()));
        }
        Ok(self.op1(
            OpKind::BroadcastTo,
            vec![x],
            TensorType::new(t.dtype, dims.to_vec()),
        ))
    }

    /// Concatenation along `axis`.
    pub fn concat(&mut self, xs: Vec<Value>, axis: usize) -> BResult {
        if xs.len() == 1 {
            return Ok(xs[0]);
        }
        let ts: Vec<TensorType> = xs.iter().map(|&x| self.ty(x)).collect();
        let refs: Vec<&TensorType> = ts.iter().collect();
        let t = infer::concat(&refs, axis)?;
        Ok(self.op1(OpKind::Concat { axis }, xs, t))
    }

    /// Basic slicing, one [`SliceDim`] per axis.
    pub fn slice(&mut self, x: Value, dims: Vec<SliceDim>) -> BResult {
        let t = infer::slice(&self.ty(x), &dims)?;
        Ok(self.op1(OpKind::Slice { dims }, vec![x], t))
    }

    /// The run-time size of `axis` of `x` (a rank-0 `i64`).
    pub fn dim(&mut self, x: Value, axis: usize) -> Value {
        self.op1(
            OpKind::Dim { axis },
            vec![x],
            TensorType::scalar(DType::I64),
        )
    }

    /// `x[i0, .., ik]` with run-time `i64` indices.
    pub fn dyn_index(&mut self, x: Value, idx: &[Value]) -> Value {
        let t = self.ty(x);
        let mut operands = vec![x];
        operands.extend_from_slice(idx);
        let r = TensorType::new(t.dtype, t.dims[idx.len()..].to_vec());
        self.op1(OpKind::DynIndex { axes: idx.len() }, operands, r)
    }

    /// `x[start:stop]` along axis 0; `len` names the result's first dim.
    pub fn dyn_slice(&mut self, x: Value, start: Value, stop: Value, len: Dim) -> Value {
        let mut t = self.ty(x);
        t.dims[0] = len;
        self.op1(OpKind::DynSlice, vec![x, start, stop], t)
    }

    /// A copy of `x` with `x[idx]` set to (or increased by) `v`.
    pub fn dyn_update(&mut self, x: Value, v: Value, idx: &[Value], accumulate: bool) -> Value {
        let t = self.ty(x);
        let mut operands = vec![x, v];
        operands.extend_from_slice(idx);
        self.op1(
            OpKind::DynUpdate {
                axes: idx.len(),
                accumulate,
            },
            operands,
            t,
        )
    }

    /// `np.take(x, idx, axis)`.
    pub fn gather(&mut self, x: Value, idx: Value, axis: usize) -> BResult {
        let t = infer::gather(&self.ty(x), &self.ty(idx), axis)?;
        Ok(self.op1(OpKind::Gather { axis }, vec![x, idx], t))
    }

    /// `base` with `updates` added at `idx` along `axis` (the transpose of
    /// [`Builder::gather`]).
    pub fn scatter_add(&mut self, base: Value, idx: Value, updates: Value, axis: usize) -> Value {
        let t = self.ty(base);
        self.op1(OpKind::ScatterAdd { axis }, vec![base, idx, updates], t)
    }

    /// A call of `callee`, whose result types the caller supplies.
    pub fn call(
        &mut self,
        callee: FuncId,
        args: Vec<Value>,
        results: Vec<TensorType>,
    ) -> Vec<Value> {
        self.op(OpKind::Call { callee }, args, results, Vec::new())
    }
}

/// A function named `name` with parameters `p0, p1, ..` of the types
/// `params`, whose body `body` builds from the parameters; what `body`
/// returns is returned (for tests and generated helpers).
pub fn function(
    name: &str,
    params: &[TensorType],
    body: impl FnOnce(&mut Builder, &[Value]) -> Vec<Value>,
) -> Function {
    let ps: Vec<(String, Type)> = params
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("p{i}"), t.clone().into()))
        .collect();
    let mut f = Function::new(name, &ps, Span::new(1, 2));
    let (region, args) = (f.body, f.params().to_vec());
    let mut b = Builder::new(&mut f, region, Span::new(3, 4));
    let rets = body(&mut b, &args);
    let types = rets.iter().map(|&v| b.f.ty(v).clone()).collect();
    b.terminate(OpKind::Return, rets);
    f.result_types = types;
    f
}
