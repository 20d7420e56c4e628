//! A small reference interpreter for the agc IR over `f64` vectors, with the
//! numpy semantics the `OpKind` docs state. It checks on every op result
//! that each symbolic dim keeps one size within its scope (equal names are
//! equal sizes), so tests catch generated code that mislabels a shape.
//! `f32` results are rounded to `f32`, `i32` results wrap, bools are 0/1.
//! Values are tensors or the continuations of AD's CPS form (closures
//! applied at most once, whose outputs the function that made them reads).

//!
//! It is the oracle of the IR passes' semantic tests: a pass must not
//! change what a function computes on any input.

use crate::{
    ConstData, DType, Dim, FuncId, Function, Module, OpData, OpKind, RegionId, SliceDim,
    TensorType, Type, Value,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A tensor value.
#[derive(Clone, Debug, PartialEq)]
pub struct T {
    /// Element type (values are held as `f64`, rounded to it).
    pub dtype: DType,
    /// Sizes, outermost first.
    pub shape: Vec<usize>,
    /// Elements, row-major.
    pub data: Vec<f64>,
}

impl T {
    /// A tensor of `shape` holding `data` rounded to `dtype`.
    pub fn new(dtype: DType, shape: &[usize], data: Vec<f64>) -> T {
        assert_eq!(shape.iter().product::<usize>(), data.len());
        T {
            dtype,
            shape: shape.to_vec(),
            data: data.into_iter().map(|x| norm(dtype, x)).collect(),
        }
    }
    /// A rank-0 tensor.
    pub fn scalar(dtype: DType, x: f64) -> T {
        T::new(dtype, &[], vec![x])
    }
}

mod kernels;

use kernels::*;

/// A run-time value: a tensor or a continuation.
#[derive(Clone)]
enum Val {
    Tensor(T),
    Cont(Rc<Closure>),
}

impl Val {
    /// The tensor, or an error for a continuation.
    fn into_tensor(self) -> R<T> {
        match self {
            Val::Tensor(t) => Ok(t),
            Val::Cont(k) => Err(format!("a continuation (of {}) is not a tensor", k.func)),
        }
    }

    /// Whether this rank-0 `bool` condition holds.
    fn holds(&self) -> R<bool> {
        match self {
            Val::Tensor(t) => Ok(t.data[0] != 0.0),
            Val::Cont(k) => Err(format!("a continuation (of {}) is not a condition", k.func)),
        }
    }

    /// The continuation, or an error for a tensor.
    fn as_cont(&self) -> R<&Rc<Closure>> {
        match self {
            Val::Cont(k) => Ok(k),
            Val::Tensor(t) => Err(format!(
                "a tensor {:?}{:?} is not a continuation",
                t.dtype, t.shape
            )),
        }
    }
}

/// A continuation made by `cont`: its function, the captured values, and
/// the outputs its application stores for `cont_outputs`.
struct Closure {
    func: FuncId,
    captures: Vec<Val>,
    outputs: RefCell<Option<Vec<Val>>>,
}

thread_local! {
    /// Executed ops per (op name, result type), while [`count_ops`] runs.
    static COUNTS: RefCell<Option<HashMap<(String, String), usize>>> = const { RefCell::new(None) };
}

/// Runs `body`, counting the ops the interpreter executes per (op name,
/// result type as printed): one per result.
pub fn count_ops<X>(body: impl FnOnce() -> X) -> (X, HashMap<(String, String), usize>) {
    COUNTS.with(|c| *c.borrow_mut() = Some(HashMap::new()));
    let out = body();
    let counts = COUNTS.with(|c| c.borrow_mut().take()).unwrap_or_default();
    (out, counts)
}

/// Runs function `f` of `m`, which takes and returns tensors, on `args`.
pub fn run(m: &Module, f: FuncId, args: Vec<T>) -> R<Vec<T>> {
    let out = Frame::new(m, m.func(f), 0).call(args.into_iter().map(Val::Tensor).collect())?;
    out.into_iter().map(Val::into_tensor).collect()
}

struct Frame<'m> {
    m: &'m Module,
    f: &'m Function,
    vals: Vec<Option<Val>>,
    syms: Vec<HashMap<String, usize>>,
    depth: usize,
}

impl<'m> Frame<'m> {
    fn new(m: &'m Module, f: &'m Function, depth: usize) -> Self {
        Frame {
            m,
            f,
            vals: vec![None; f.num_values()],
            syms: vec![HashMap::new()],
            depth,
        }
    }

    fn call(mut self, args: Vec<Val>) -> R<Vec<Val>> {
        if self.depth > 100_000 {
            return Err("recursion too deep".into());
        }
        self.run_region(self.f.body, args)
    }

    /// Runs function `func` of the module on `args`, one level deeper.
    fn call_fn(&self, func: FuncId, args: Vec<Val>) -> R<Vec<Val>> {
        Frame::new(self.m, self.m.func(func), self.depth + 1).call(args)
    }

    fn get(&self, v: Value) -> R<&Val> {
        self.vals[v.index()]
            .as_ref()
            .ok_or_else(|| format!("{v} has no value"))
    }

    fn sym(&self, name: &str) -> Option<usize> {
        self.syms.iter().rev().find_map(|s| s.get(name)).copied()
    }

    /// Binds `v` to `val`, checking it against `v`'s type.
    fn set(&mut self, v: Value, val: Val) -> R<()> {
        let f = self.f;
        match (f.ty(v), &val) {
            (Type::Tensor(ty), Val::Tensor(t)) => self.check_shape(v, ty, t)?,
            (Type::Cont(_), Val::Cont(_)) => {}
            (ty, _) => return Err(format!("{v}: a value of the wrong kind for type {ty}")),
        }
        self.vals[v.index()] = Some(val);
        Ok(())
    }

    /// Checks tensor `t`, the value of `v`, against `v`'s type `ty`, binding
    /// the symbols of `ty` not bound yet.
    fn check_shape(&mut self, v: Value, ty: &TensorType, t: &T) -> R<()> {
        if ty.dtype != t.dtype || ty.rank() != t.shape.len() {
            return Err(format!(
                "{v}: value {:?}{:?} does not match type {ty}",
                t.dtype, t.shape
            ));
        }
        for (d, &n) in ty.dims.iter().zip(&t.shape) {
            match d {
                Dim::Static(k) if *k as usize != n => {
                    return Err(format!("{v}: size {n} for static dim {k} of {ty}"))
                }
                Dim::Sym(s) => match self.sym(s) {
                    Some(k) if k != n => {
                        return Err(format!("{v}: symbol {s} is {k} and {n} ({ty})"))
                    }
                    Some(_) => {}
                    None => {
                        self.syms.last_mut().unwrap().insert(s.clone(), n);
                    }
                },
                _ => {}
            }
        }
        Ok(())
    }

    fn shape_of(&self, v: Value) -> R<Vec<usize>> {
        let ty = self.f.ty(v).tensor();
        ty.dims
            .iter()
            .map(|d| match d {
                Dim::Static(n) => Ok(*n as usize),
                Dim::Sym(s) => self
                    .sym(s)
                    .ok_or_else(|| format!("{v}: symbol {s} is unbound")),
            })
            .collect()
    }

    /// Runs a region on its params' values; returns the terminator's operands.
    fn run_region(&mut self, r: RegionId, args: Vec<Val>) -> R<Vec<Val>> {
        self.syms.push(HashMap::new());
        let out = self.run_region_inner(r, args);
        self.syms.pop();
        out
    }

    fn run_region_inner(&mut self, r: RegionId, args: Vec<Val>) -> R<Vec<Val>> {
        let f = self.f;
        for (&p, a) in f.region(r).params.iter().zip(args) {
            self.set(p, a)?;
        }
        for &op in &f.region(r).ops {
            let od = f.op(op);
            if od.kind.is_terminator() {
                return od.operands.iter().map(|&v| self.get(v).cloned()).collect();
            }
            let results = self.op(od)?;
            COUNTS.with(|c| {
                if let Some(counts) = c.borrow_mut().as_mut() {
                    for &v in &od.results {
                        *counts
                            .entry((od.kind.name(), f.ty(v).to_string()))
                            .or_default() += 1;
                    }
                }
            });
            for (&v, t) in od.results.iter().zip(results) {
                self.set(v, t)?;
            }
        }
        Err(format!("region {r} has no terminator"))
    }

    /// Runs one op: here those that pass values of any kind (control flow,
    /// calls, continuations), the others in [`Frame::tensor_op`].
    fn op(&mut self, od: &OpData) -> R<Vec<Val>> {
        let vs: Vec<Val> = od
            .operands
            .iter()
            .map(|&v| self.get(v).cloned())
            .collect::<R<_>>()?;
        match od.kind {
            OpKind::If => {
                let r = if vs[0].holds()? {
                    od.regions[0]
                } else {
                    od.regions[1]
                };
                self.run_region(r, Vec::new())
            }
            OpKind::While => {
                let mut state = vs;
                loop {
                    let mut c = self.run_region(od.regions[0], state)?;
                    let args = c.split_off(1);
                    if !c[0].holds()? {
                        return Ok(args);
                    }
                    state = self.run_region(od.regions[1], args)?;
                }
            }
            OpKind::Call { callee } => self.call_fn(callee, vs),
            OpKind::MakeCont { func } => Ok(vec![Val::Cont(Rc::new(Closure {
                func,
                captures: vs,
                outputs: RefCell::new(None),
            }))]),
            OpKind::Apply => {
                let k = vs[0].as_cont()?;
                if k.outputs.borrow().is_some() {
                    return Err(format!(
                        "the continuation of @{} is applied twice",
                        self.m.func(k.func).name
                    ));
                }
                let args = k.captures.iter().chain(&vs[1..]).cloned().collect();
                let mut results = self.call_fn(k.func, args)?;
                let outputs = results.split_off(od.results.len());
                *k.outputs.borrow_mut() = Some(outputs);
                Ok(results)
            }
            OpKind::ContOutputs => {
                let k = vs[0].as_cont()?;
                let outputs = k.outputs.borrow().clone();
                outputs.ok_or_else(|| {
                    format!(
                        "the continuation of @{} was never applied",
                        self.m.func(k.func).name
                    )
                })
            }
            _ => {
                let xs: Vec<T> = vs.into_iter().map(Val::into_tensor).collect::<R<_>>()?;
                let ts = self.tensor_op(&od.kind, xs, &od.results)?;
                Ok(ts.into_iter().map(Val::Tensor).collect())
            }
        }
    }

    /// Runs an op on tensors only.
    fn tensor_op(&self, kind: &OpKind, xs: Vec<T>, results: &[Value]) -> R<Vec<T>> {
        let out_dtype = results.first().map(|&v| self.f.ty(v).tensor().dtype);
        let one = |t: T| Ok(vec![t]);
        match kind {
            OpKind::Const(data) => {
                let shape = self.shape_of(results[0])?;
                let v: Vec<f64> = match data {
                    ConstData::Float(v) => v.clone(),
                    ConstData::Int(v) => v.iter().map(|&x| x as f64).collect(),
                    ConstData::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
                };
                one(T::new(out_dtype.unwrap(), &shape, v))
            }
            OpKind::Weight(k) => Err(format!("weight {k}: the interpreter has no weight data")),
            OpKind::Fill => {
                let shape = self.shape_of(results[0])?;
                let n = shape.iter().product();
                one(T::new(xs[0].dtype, &shape, vec![xs[0].data[0]; n]))
            }
            OpKind::Unary(u) => one(elementwise(xs[0].dtype, &[&xs[0]], |v| unary(*u, v[0]))?),
            OpKind::Binary(b) => {
                let dt = xs[0].dtype;
                let mut err = None;
                let t = elementwise(dt, &[&xs[0], &xs[1]], |v| {
                    binary(*b, v[0], v[1], dt).unwrap_or_else(|e| {
                        err = Some(e);
                        0.0
                    })
                });
                match err {
                    Some(e) => Err(e),
                    None => one(t?),
                }
            }
            OpKind::Compare(c) => one(elementwise(DType::Bool, &[&xs[0], &xs[1]], |v| {
                compare(*c, v[0], v[1])
            })?),
            OpKind::Select => one(elementwise(xs[1].dtype, &[&xs[0], &xs[1], &xs[2]], |v| {
                if v[0] != 0.0 {
                    v[1]
                } else {
                    v[2]
                }
            })?),
            OpKind::Cast => {
                let to = out_dtype.unwrap();
                let conv = |x: f64| {
                    if to.is_int() && xs[0].dtype.is_float() {
                        x.trunc()
                    } else {
                        x
                    }
                };
                one(T::new(
                    to,
                    &xs[0].shape,
                    xs[0].data.iter().map(|&x| conv(x)).collect(),
                ))
            }
            OpKind::MatMul => one(matmul(&xs[0], &xs[1])?),
            OpKind::Reduce {
                kind,
                axes,
                keepdims,
            } => one(reduce(&xs[0], *kind, axes, *keepdims)),
            OpKind::ArgReduce {
                kind,
                axis,
                keepdims,
            } => one(arg_reduce(&xs[0], *kind, *axis, *keepdims)),
            OpKind::Reshape => {
                // A new symbol (`(L*2)`) is the one size the element count leaves.
                let ty = self.f.ty(results[0]).tensor();
                let known: Vec<Option<usize>> = ty
                    .dims
                    .iter()
                    .map(|d| match d {
                        Dim::Static(n) => Some(*n as usize),
                        Dim::Sym(s) => self.sym(s),
                    })
                    .collect();
                let rest: usize = known.iter().flatten().product();
                let shape: Vec<usize> = known
                    .iter()
                    .map(|k| k.unwrap_or(xs[0].data.len() / rest.max(1)))
                    .collect();
                one(T::new(xs[0].dtype, &shape, xs[0].data.clone()))
            }
            OpKind::Transpose { perm } => one(transpose(&xs[0], perm)),
            OpKind::BroadcastTo => {
                let shape = self.shape_of(results[0])?;
                let zeros = T::new(xs[0].dtype, &shape, vec![0.0; shape.iter().product()]);
                one(elementwise(xs[0].dtype, &[&zeros, &xs[0]], |v| v[1])?)
            }
            OpKind::Concat { axis } => {
                let mut shape = xs[0].shape.clone();
                shape[*axis] = xs.iter().map(|x| x.shape[*axis]).sum();
                let n: usize = shape.iter().product();
                let data = (0..n)
                    .map(|k| {
                        let mut idx = unravel(k, &shape);
                        let mut j = 0;
                        while idx[*axis] >= xs[j].shape[*axis] {
                            idx[*axis] -= xs[j].shape[*axis];
                            j += 1;
                        }
                        at(&xs[j], &idx)
                    })
                    .collect();
                one(T::new(xs[0].dtype, &shape, data))
            }
            OpKind::Slice { dims } => {
                let picks: Vec<Vec<usize>> = dims
                    .iter()
                    .zip(&xs[0].shape)
                    .map(|(s, &n)| slice_positions(s, n))
                    .collect();
                one(gather(&xs[0], &picks))
            }
            OpKind::Iota { start, step } => {
                let n = self.shape_of(results[0])?[0];
                one(T::new(
                    out_dtype.unwrap(),
                    &[n],
                    (0..n).map(|i| start + i as f64 * step).collect(),
                ))
            }
            OpKind::Dim { axis } => one(T::scalar(DType::I64, xs[0].shape[*axis] as f64)),
            OpKind::DynIndex { axes } => {
                let x = &xs[0];
                let mut picks: Vec<Vec<usize>> =
                    x.shape.iter().map(|&n| (0..n).collect()).collect();
                for a in 0..*axes {
                    picks[a] = vec![index(xs[1 + a].data[0], x.shape[a])?];
                }
                let g = gather(x, &picks);
                one(T::new(x.dtype, &x.shape[*axes..], g.data))
            }
            OpKind::DynSlice => {
                let x = &xs[0];
                let s = SliceDim {
                    start: Some(xs[1].data[0] as i64),
                    stop: Some(xs[2].data[0] as i64),
                    step: 1,
                };
                let mut picks: Vec<Vec<usize>> =
                    x.shape.iter().map(|&n| (0..n).collect()).collect();
                picks[0] = slice_positions(&s, x.shape[0]);
                one(gather(x, &picks))
            }
            OpKind::DynUpdate { axes, accumulate } => {
                let (x, v) = (&xs[0], &xs[1]);
                let mut base = 0;
                let st = strides(&x.shape);
                for a in 0..*axes {
                    base += index(xs[2 + a].data[0], x.shape[a])? * st[a];
                }
                let sub = &x.shape[*axes..];
                let zeros = T::new(v.dtype, sub, vec![0.0; sub.iter().product()]);
                let vb = elementwise(v.dtype, &[&zeros, v], |e| e[1])?;
                let mut out = x.clone();
                for (k, &e) in vb.data.iter().enumerate() {
                    out.data[base + k] = norm(
                        x.dtype,
                        if *accumulate {
                            out.data[base + k] + e
                        } else {
                            e
                        },
                    );
                }
                one(out)
            }
            OpKind::Gather { axis } => {
                let (shape, src) = take_map(&xs[0].shape, &xs[1], *axis)?;
                one(T::new(
                    xs[0].dtype,
                    &shape,
                    src.iter().map(|&k| xs[0].data[k]).collect(),
                ))
            }
            OpKind::ScatterAdd { axis } => {
                let (_, dst) = take_map(&xs[0].shape, &xs[1], *axis)?;
                let mut out = xs[0].clone();
                for (&k, &u) in dst.iter().zip(&xs[2].data) {
                    out.data[k] = norm(out.dtype, out.data[k] + u);
                }
                one(out)
            }
            OpKind::Assert { message } if xs[0].data[0] == 0.0 => {
                Err(format!("assertion failed: {message}"))
            }
            OpKind::Assert { .. } => Ok(vec![]),
            OpKind::Return | OpKind::Yield | OpKind::Condition => {
                Err("terminator outside region end".into())
            }
            OpKind::If
            | OpKind::While
            | OpKind::Call { .. }
            | OpKind::MakeCont { .. }
            | OpKind::Apply
            | OpKind::ContOutputs => unreachable!("{} runs in Frame::op", kind.name()),
        }
    }
}
