//! The IR verifier. Checklist, in order:
//!
//! 1. every handle (value, op, region) is in range;
//! 2. every region ends with exactly one terminator and has none elsewhere;
//! 3. every operand is defined before use: a parameter of the region or an
//!    enclosing one, or a result of an earlier op in such a region;
//! 4. each op has the operand count its kind needs;
//! 5. each result type agrees with the typing rules of [`crate::infer`];
//! 6. the function's `return` matches its declared result types; `return`
//!    ends only the body, `yield`/`condition` only the regions of `if`/`while`,
//!    with the values their parent op expects;
//! 7. (module) every call names an existing function with matching types;
//!    every `cont` names a function taking the captures and the
//!    continuation's arguments and returning its results and then the
//!    outputs `cont_outputs` reads.

use crate::entities::{OpId, RegionId, Value};
use crate::function::{Function, Module};
use crate::infer;
use crate::ops::{BinaryOp, OpKind};
use crate::types::{DType, Dim, TensorType, Type};
use thiserror::Error;

/// A verifier failure: which function and op, and what is wrong.
#[derive(Debug, Error, PartialEq)]
#[error("verifier: in @{func}, {location}: {message}")]
pub struct VerifyError {
    /// The function.
    pub func: String,
    /// The op (`op7 (matmul)`) or `body`.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

/// Verifies every function of a module, calls included.
pub fn verify_module(m: &Module) -> Result<(), VerifyError> {
    for f in &m.funcs {
        verify_function(f)?;
        for i in 0..f.num_ops() {
            let od = f.op(OpId(i as u32));
            let err = |message: String| VerifyError {
                func: f.name.clone(),
                location: format!("op{i} ({})", od.kind.name()),
                message,
            };
            let types = |vs: &[Value]| vs.iter().map(|v| f.ty(*v).clone()).collect::<Vec<_>>();
            let target = match od.kind {
                OpKind::Call { callee } => callee,
                OpKind::MakeCont { func } => func,
                // Made in this function (checked by `verify_function`).
                OpKind::ContOutputs => match f.def_op(od.operands[0]).map(|d| &d.kind) {
                    Some(OpKind::MakeCont { func }) => *func,
                    _ => continue,
                },
                _ => continue,
            };
            let Some(g) = m.funcs.get(target.index()) else {
                return Err(err(format!("function {target} does not exist")));
            };
            let g_params: Vec<_> = g.params().iter().map(|v| g.ty(*v).clone()).collect();
            match od.kind {
                OpKind::Call { .. } => {
                    if !compatible(&types(&od.operands), &g_params)
                        || !compatible(&types(&od.results), &g.result_types)
                    {
                        return Err(err(format!(
                            "call types differ from @{}'s signature",
                            g.name
                        )));
                    }
                }
                OpKind::MakeCont { .. } => {
                    let k = f
                        .ty(od.results[0])
                        .as_cont()
                        .expect("checked by verify_function");
                    let mut params = types(&od.operands);
                    params.extend(k.args.iter().cloned().map(Type::Tensor));
                    let n = k.results.len();
                    let results: Vec<_> = k.results.iter().cloned().map(Type::Tensor).collect();
                    if !compatible(&params, &g_params)
                        || g.result_types.len() < n
                        || !compatible(&results, &g.result_types[..n])
                    {
                        return Err(err(format!(
                            "@{} does not take the captures and arguments and return the results of {k}",
                            g.name
                        )));
                    }
                }
                _ => {
                    let k = f.ty(od.operands[0]).as_cont().expect("made by cont");
                    let outputs = g.result_types.get(k.results.len()..).unwrap_or(&[]);
                    if !compatible(&types(&od.results), outputs) {
                        return Err(err(format!(
                            "cont_outputs types differ from the outputs of @{}",
                            g.name
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Verifies one function.
pub fn verify_function(f: &Function) -> Result<(), VerifyError> {
    let mut visible = vec![false; f.num_values()];
    Verifier {
        f,
        visible: &mut visible,
    }
    .region(f.body, true)
}

/// Which terminator a region must end with.
#[derive(Clone, Copy)]
enum Terminator {
    Return,
    Yield,
    Condition,
}

impl Terminator {
    fn matches(self, k: &OpKind) -> bool {
        matches!(
            (self, k),
            (Terminator::Return, OpKind::Return)
                | (Terminator::Yield, OpKind::Yield)
                | (Terminator::Condition, OpKind::Condition)
        )
    }

    fn name(self) -> &'static str {
        match self {
            Terminator::Return => "return",
            Terminator::Yield => "yield",
            Terminator::Condition => "condition",
        }
    }
}

/// Types across a call or region boundary: equal dtypes, ranks and static
/// dims; a symbolic dim may carry another name on the other side (each
/// function names its own run-time sizes, and a loop-carried buffer that
/// grows gets a fresh name for its size at each merge point).
fn compatible(a: &[Type], b: &[Type]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| compatible_type(x, y))
}

fn compatible_type(a: &Type, b: &Type) -> bool {
    let all = |x: &[TensorType], y: &[TensorType]| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(p, q)| infer::same_up_to_sym_names(p, q))
    };
    match (a, b) {
        (Type::Tensor(x), Type::Tensor(y)) => infer::same_up_to_sym_names(x, y),
        (Type::Cont(x), Type::Cont(y)) => all(&x.args, &y.args) && all(&x.results, &y.results),
        _ => false,
    }
}

fn indices_ok(ts: &[&TensorType]) -> bool {
    ts.iter().all(|t| **t == TensorType::scalar(DType::I64))
}

struct Verifier<'a> {
    f: &'a Function,
    visible: &'a mut Vec<bool>,
}

impl Verifier<'_> {
    fn err(&self, op: Option<OpId>, message: impl Into<String>) -> VerifyError {
        let location = match op {
            Some(op) if op.index() < self.f.num_ops() => {
                format!("{op} ({})", self.f.op(op).kind.name())
            }
            Some(op) => op.to_string(),
            None => "body".into(),
        };
        VerifyError {
            func: self.f.name.clone(),
            location,
            message: message.into(),
        }
    }

    fn region(&mut self, r: RegionId, is_body: bool) -> Result<(), VerifyError> {
        self.region_ending(
            r,
            is_body,
            if is_body {
                Terminator::Return
            } else {
                Terminator::Yield
            },
        )
    }

    fn region_ending(
        &mut self,
        r: RegionId,
        is_body: bool,
        want: Terminator,
    ) -> Result<(), VerifyError> {
        if r.index() >= self.f.num_regions() {
            return Err(self.err(None, format!("region {r} out of range")));
        }
        let data = self.f.region(r);
        let mark: Vec<Value> = data.params.clone();
        for &p in &mark {
            self.visible[p.index()] = true;
        }
        let ops = data.ops.clone();
        let mut defined = mark;
        for (i, &op) in ops.iter().enumerate() {
            if op.index() >= self.f.num_ops() {
                return Err(self.err(Some(op), "op handle out of range"));
            }
            let od = self.f.op(op);
            let last = i + 1 == ops.len();
            if od.kind.is_terminator() != last {
                return Err(self.err(Some(op), "a region must end with exactly one terminator"));
            }
            if last && !want.matches(&od.kind) {
                return Err(self.err(
                    Some(op),
                    format!("this region must end with {}", want.name()),
                ));
            }
            for &v in &od.operands {
                if v.index() >= self.f.num_values() || !self.visible[v.index()] {
                    return Err(
                        self.err(Some(op), format!("operand {v} used before its definition"))
                    );
                }
            }
            self.regions_of(op)?;
            self.op_types(op)?;
            if od.kind == OpKind::Return && is_body {
                let got: Vec<_> = od.operands.iter().map(|v| self.f.ty(*v).clone()).collect();
                if got != self.f.result_types {
                    return Err(self.err(
                        Some(op),
                        "return types differ from the function's result types",
                    ));
                }
            }
            for &res in &od.results {
                self.visible[res.index()] = true;
                defined.push(res);
            }
        }
        if ops.is_empty() {
            return Err(self.err(None, format!("region {r} is empty")));
        }
        // Values of this region go out of scope when it ends.
        for v in defined {
            self.visible[v.index()] = false;
        }
        Ok(())
    }

    /// Verifies the regions of a control-flow op and the values crossing them.
    fn regions_of(&mut self, op: OpId) -> Result<(), VerifyError> {
        let od = self.f.op(op).clone();
        let types = |vs: &[Value]| vs.iter().map(|v| self.f.ty(*v).clone()).collect::<Vec<_>>();
        let results = types(&od.results);
        match od.kind {
            OpKind::If => {
                if od.regions.len() != 2 || od.operands.len() != 1 {
                    return Err(self.err(Some(op), "if takes one condition and two regions"));
                }
                if *self.f.ty(od.operands[0]).tensor() != TensorType::scalar(DType::Bool) {
                    return Err(self.err(Some(op), "if condition must be a rank-0 bool"));
                }
                for &r in &od.regions {
                    self.region_ending(r, false, Terminator::Yield)?;
                    let yielded = self.terminator_operands(r);
                    if !self.f.region(r).params.is_empty() || !compatible(&yielded, &results) {
                        let list = |ts: &[Type]| {
                            ts.iter()
                                .map(|t| t.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        };
                        return Err(self.err(
                            Some(op),
                            format!(
                                "if branches must yield the if's result types ({}), {r} yields ({})",
                                list(&results),
                                list(&yielded)
                            ),
                        ));
                    }
                }
            }
            OpKind::While => {
                if od.regions.len() != 2 {
                    return Err(self.err(Some(op), "while takes two regions"));
                }
                let (before, after) = (od.regions[0], od.regions[1]);
                let state = types(&od.operands);
                self.region_ending(before, false, Terminator::Condition)?;
                self.region_ending(after, false, Terminator::Yield)?;
                let cond = self.terminator_operands(before);
                let after_params = types(&self.f.region(after).params);
                let before_params = types(&self.f.region(before).params);
                if !compatible(&state, &before_params)
                    || cond.first() != Some(&TensorType::scalar(DType::Bool).into())
                    || !compatible(&cond[1..], &after_params)
                    || !compatible(&after_params, &results)
                    || !compatible(&self.terminator_operands(after), &before_params)
                {
                    return Err(self.err(
                        Some(op),
                        "while state types do not line up across its regions",
                    ));
                }
            }
            _ => {
                if !od.regions.is_empty() {
                    return Err(self.err(Some(op), "this op has no regions"));
                }
            }
        }
        Ok(())
    }

    fn terminator_operands(&self, r: RegionId) -> Vec<Type> {
        let ops = &self.f.region(r).ops;
        ops.last().map_or(Vec::new(), |&t| {
            self.f
                .op(t)
                .operands
                .iter()
                .map(|v| self.f.ty(*v).clone())
                .collect()
        })
    }

    /// Types of the ops that make, apply and read continuations.
    fn cont_op_types(&self, op: OpId) -> Result<(), VerifyError> {
        let od = self.f.op(op);
        let ty = |v: &Value| self.f.ty(*v).clone();
        let tensors = |ts: &[TensorType]| ts.iter().cloned().map(Type::Tensor).collect::<Vec<_>>();
        match od.kind {
            OpKind::MakeCont { .. } => {
                if od.results.len() != 1 || self.f.ty(od.results[0]).as_cont().is_none() {
                    return Err(self.err(Some(op), "cont has one result, a continuation"));
                }
            }
            OpKind::Apply => {
                let Some(k) = od.operands.first().and_then(|v| self.f.ty(*v).as_cont()) else {
                    return Err(self.err(Some(op), "apply takes a continuation first"));
                };
                let args: Vec<Type> = od.operands[1..].iter().map(ty).collect();
                let results: Vec<Type> = od.results.iter().map(ty).collect();
                if !compatible(&args, &tensors(&k.args))
                    || !compatible(&results, &tensors(&k.results))
                {
                    return Err(self.err(Some(op), format!("apply types differ from {k}")));
                }
            }
            _ => {
                let made_here = od.operands.len() == 1
                    && matches!(
                        self.f.def_op(od.operands[0]).map(|d| &d.kind),
                        Some(OpKind::MakeCont { .. })
                    );
                if !made_here || od.results.iter().any(|v| self.f.ty(*v).as_cont().is_some()) {
                    return Err(self.err(
                        Some(op),
                        "cont_outputs reads tensors of a continuation made in this function",
                    ));
                }
            }
        }
        Ok(())
    }

    fn op_types(&self, op: OpId) -> Result<(), VerifyError> {
        let od = self.f.op(op);
        match od.kind {
            OpKind::MakeCont { .. } | OpKind::Apply | OpKind::ContOutputs => {
                return self.cont_op_types(op)
            }
            OpKind::If | OpKind::While | OpKind::Call { .. } => return Ok(()),
            _ => {}
        }
        if od
            .operands
            .iter()
            .chain(&od.results)
            .any(|v| self.f.ty(*v).as_cont().is_some())
        {
            return Err(self.err(
                Some(op),
                "continuations are only captured, applied, read or passed to calls",
            ));
        }
        let ins: Vec<&TensorType> = od.operands.iter().map(|v| self.f.ty(*v).tensor()).collect();
        let outs: Vec<&TensorType> = od.results.iter().map(|v| self.f.ty(*v).tensor()).collect();
        let arity = |n: usize| -> Result<(), VerifyError> {
            if ins.len() != n || outs.len() != 1 {
                return Err(self.err(Some(op), format!("expects {n} operands and 1 result")));
            }
            Ok(())
        };
        let expect = |want: TensorType| -> Result<(), VerifyError> {
            if *outs[0] != want {
                return Err(self.err(
                    Some(op),
                    format!("result type {} should be {want}", outs[0]),
                ));
            }
            Ok(())
        };
        let te = |e: infer::TypeError| self.err(Some(op), e.to_string());
        match &od.kind {
            OpKind::Const(data) => {
                arity(0)?;
                if outs[0].static_numel() != Some(data.len() as i64) {
                    return Err(self.err(Some(op), "constant element count differs from its type"));
                }
            }
            OpKind::Weight(_) => {
                arity(0)?;
                if outs[0].static_numel().is_none() {
                    return Err(self.err(Some(op), "a weight has a static shape"));
                }
            }
            OpKind::Fill => {
                let syms = outs.first().map_or(0, |t| {
                    t.dims.iter().filter(|d| matches!(d, Dim::Sym(_))).count()
                });
                if outs.len() != 1 || ins.is_empty() || ins.len() > 1 + syms {
                    return Err(self.err(
                        Some(op),
                        "fill takes a value and at most one size per symbolic dim",
                    ));
                }
                if ins[0].rank() != 0 || ins[0].dtype != outs[0].dtype || !indices_ok(&ins[1..]) {
                    return Err(self.err(
                        Some(op),
                        "fill takes a rank-0 operand of the result dtype and rank-0 i64 sizes",
                    ));
                }
            }
            OpKind::Unary(_) => {
                arity(1)?;
                expect((*ins[0]).clone())?;
            }
            OpKind::Binary(b) => {
                arity(2)?;
                if ins[0].dtype != ins[1].dtype {
                    return Err(te(infer::TypeError::DTypeMismatch(
                        ins[0].dtype,
                        ins[1].dtype,
                    )));
                }
                if matches!(b, BinaryOp::Div | BinaryOp::Atan2) && !ins[0].dtype.is_float() {
                    return Err(self.err(Some(op), format!("{} takes float operands", b.name())));
                }
                if matches!(b, BinaryOp::Shl | BinaryOp::Shr)
                    && (ins[0].dtype.is_float() || ins[0].dtype == DType::Bool)
                {
                    return Err(self.err(Some(op), format!("{} takes integer operands", b.name())));
                }
                expect(TensorType::new(
                    ins[0].dtype,
                    infer::broadcast_all(&ins).map_err(te)?,
                ))?;
            }
            OpKind::Compare(_) => {
                arity(2)?;
                if ins[0].dtype != ins[1].dtype {
                    return Err(te(infer::TypeError::DTypeMismatch(
                        ins[0].dtype,
                        ins[1].dtype,
                    )));
                }
                expect(TensorType::new(
                    DType::Bool,
                    infer::broadcast_all(&ins).map_err(te)?,
                ))?;
            }
            OpKind::Select => {
                arity(3)?;
                if ins[0].dtype != DType::Bool || ins[1].dtype != ins[2].dtype {
                    return Err(self.err(
                        Some(op),
                        "select takes a bool condition and two operands of one dtype",
                    ));
                }
                expect(TensorType::new(
                    ins[1].dtype,
                    infer::broadcast_all(&ins).map_err(te)?,
                ))?;
            }
            OpKind::Cast => {
                arity(1)?;
                expect(ins[0].with_dtype(outs[0].dtype))?;
            }
            OpKind::MatMul => {
                arity(2)?;
                expect(infer::matmul(ins[0], ins[1]).map_err(te)?)?;
            }
            OpKind::Reduce { axes, keepdims, .. } => {
                arity(1)?;
                if axes.iter().any(|&a| a >= ins[0].rank()) || axes.windows(2).any(|w| w[0] >= w[1])
                {
                    return Err(self.err(Some(op), "axes must be sorted, unique and in range"));
                }
                expect(TensorType::new(
                    ins[0].dtype,
                    infer::reduce(ins[0], axes, *keepdims),
                ))?;
            }
            OpKind::ArgReduce { axis, keepdims, .. } => {
                arity(1)?;
                if *axis >= ins[0].rank() {
                    return Err(te(infer::TypeError::Axis(*axis as i64, ins[0].rank())));
                }
                expect(TensorType::new(
                    DType::I64,
                    infer::reduce(ins[0], &[*axis], *keepdims),
                ))?;
            }
            OpKind::Reshape => {
                arity(1)?;
                if !infer::reshape_allowed(ins[0], outs[0]) {
                    return Err(self.err(
                        Some(op),
                        format!("cannot reshape {} to {}", ins[0], outs[0]),
                    ));
                }
            }
            OpKind::Transpose { perm } => {
                arity(1)?;
                expect(infer::transpose(ins[0], perm).map_err(te)?)?;
            }
            OpKind::BroadcastTo => {
                arity(1)?;
                let b = infer::broadcast_dims(&ins[0].dims, &outs[0].dims).map_err(te)?;
                if b != outs[0].dims || ins[0].dtype != outs[0].dtype {
                    return Err(self.err(
                        Some(op),
                        format!("cannot broadcast {} to {}", ins[0], outs[0]),
                    ));
                }
            }
            OpKind::Concat { axis } => {
                if ins.is_empty() || outs.len() != 1 || *axis >= ins[0].rank() {
                    return Err(self.err(Some(op), "concat needs operands and an axis in range"));
                }
                expect(infer::concat(&ins, *axis).map_err(te)?)?;
            }
            OpKind::Slice { dims } => {
                arity(1)?;
                if dims.iter().any(|d| d.step == 0) {
                    return Err(self.err(Some(op), "slice step cannot be zero"));
                }
                expect(infer::slice(ins[0], dims).map_err(te)?)?;
            }
            OpKind::Iota { .. } => {
                let sized = outs
                    .first()
                    .is_some_and(|t| matches!(t.dims.first(), Some(Dim::Sym(_))));
                arity(if sized { ins.len().min(1) } else { 0 })?;
                if outs[0].rank() != 1 {
                    return Err(self.err(Some(op), "iota produces a rank-1 tensor"));
                }
                if !indices_ok(&ins) {
                    return Err(self.err(Some(op), "iota's size is a rank-0 i64"));
                }
            }
            OpKind::Dim { axis } => {
                arity(1)?;
                if *axis >= ins[0].rank() {
                    return Err(te(infer::TypeError::Axis(*axis as i64, ins[0].rank())));
                }
                expect(TensorType::scalar(DType::I64))?;
            }
            OpKind::Return | OpKind::Yield | OpKind::Condition => {
                if !outs.is_empty() {
                    return Err(self.err(Some(op), "terminators have no results"));
                }
            }
            OpKind::If
            | OpKind::While
            | OpKind::Call { .. }
            | OpKind::MakeCont { .. }
            | OpKind::Apply
            | OpKind::ContOutputs => {}
            OpKind::DynIndex { axes } => {
                if ins.len() != axes + 1
                    || outs.len() != 1
                    || *axes > ins[0].rank()
                    || !indices_ok(&ins[1..])
                {
                    return Err(
                        self.err(Some(op), "dyn_index takes a tensor and rank-0 i64 indices")
                    );
                }
                expect(TensorType::new(ins[0].dtype, ins[0].dims[*axes..].to_vec()))?;
            }
            OpKind::Assert { .. } => {
                if ins.len() != 1 || !outs.is_empty() || *ins[0] != TensorType::scalar(DType::Bool)
                {
                    return Err(
                        self.err(Some(op), "assert takes one rank-0 bool and has no results")
                    );
                }
            }
            OpKind::DynSlice => {
                arity(3)?;
                if ins[0].rank() == 0
                    || !indices_ok(&ins[1..])
                    || outs[0].rank() != ins[0].rank()
                    || outs[0].dims[1..] != ins[0].dims[1..]
                    || outs[0].dtype != ins[0].dtype
                {
                    return Err(self.err(
                        Some(op),
                        "dyn_slice takes a tensor and two rank-0 i64 bounds",
                    ));
                }
            }
            OpKind::DynUpdate { axes, .. } => {
                if ins.len() != axes + 2
                    || outs.len() != 1
                    || *axes > ins[0].rank()
                    || !indices_ok(&ins[2..])
                {
                    return Err(self.err(
                        Some(op),
                        "dyn_update takes a tensor, a value and rank-0 i64 indices",
                    ));
                }
                let sub = &ins[0].dims[*axes..];
                if infer::broadcast_dims(&ins[1].dims, sub).ok().as_deref() != Some(sub)
                    || ins[1].dtype != ins[0].dtype
                {
                    return Err(self.err(
                        Some(op),
                        "dyn_update value must broadcast to the indexed sub-tensor",
                    ));
                }
                expect((*ins[0]).clone())?;
            }
            OpKind::Gather { axis } => {
                arity(2)?;
                expect(infer::gather(ins[0], ins[1], *axis).map_err(te)?)?;
            }
            OpKind::ScatterAdd { axis } => {
                arity(3)?;
                if *ins[2] != infer::gather(ins[0], ins[1], *axis).map_err(te)? {
                    return Err(self.err(
                        Some(op),
                        "scatter_add updates must have the type of the gather they transpose",
                    ));
                }
                expect((*ins[0]).clone())?;
            }
        }
        Ok(())
    }
}
