//! Elementwise fusion as a region is emitted: consecutive elementwise ops
//! (unary, binary, compare, select, cast, broadcast_to, and slices that cut
//! only static axes) whose results have the same shape are held back in a
//! pending group and emitted together as one `linalg.generic`, its body
//! their scalar ops in program order, its inputs the values they read from
//! outside the group (broadcast by their indexing maps; a splat constant is
//! a scalar constant instead; a slice's source is read in place with
//! `tensor.extract`), its outputs the members something outside the group
//! reads. An op that reads a pending member first emits that member's group.
//!
//! A group with several outputs is one loop writing several buffers. It is
//! not split per output: that recomputes what the outputs share (the
//! TreeLSTM backward's gate adjoints: 4× the multiplies), and measured no
//! faster.
//!
//! Fusing here, in one pass over the ops, costs time linear in the ops. The
//! alternative, one generic per op merged by MLIR's
//! `linalg-fuse-elementwise-ops`, clones the producer's whole body into each
//! consumer: quadratic in the length of a chain (a 2,000-line straight-line
//! model spent most of its build there), and a producer read twice is
//! computed twice.

use super::emitter::{broadcast_map, identity_map, operand, FnEmitter, GenericSpec};
use super::{constant, contraction, elementwise, gather, rank0};
use crate::BackendError;
use agc_ir::{Dim, OpData, OpId, OpKind, Value};
use std::collections::HashMap;

/// The pending groups of one region, at most one per result shape.
#[derive(Default)]
pub(super) struct Pending {
    groups: Vec<Group>,
}

/// Elementwise ops of one result shape, not emitted yet.
struct Group {
    dims: Vec<Dim>,
    ops: Vec<OpId>,
    /// Each member's result, with its number of reads by other members.
    members: HashMap<Value, u32>,
}

/// The most ops a group holds: a longer chain is cut into groups of this
/// many, the value crossing a cut written to memory. LLVM's time grows
/// faster than linearly in the size of one loop body: a 2,000-line chain of
/// `f32[N, N]` updates (3 ops a line, a third of them `tanh`) built in
/// 9.4 / 8.8 / 7.8 / 8.3 / 10.4 s with groups of 32 / 64 / 128 / 256 / 1,024.
pub(super) const MAX_MEMBERS: usize = 128;

/// Whether `od` is an elementwise op a group can hold.
pub(super) fn fusable(e: &FnEmitter, od: &OpData) -> bool {
    let one_tensor = od.results.len() == 1 && e.f.ty(od.results[0]).as_tensor().is_some();
    one_tensor
        && match &od.kind {
            OpKind::Binary(agc_ir::BinaryOp::Add) => {
                contraction::accumulated_product(e, od).is_none()
            }
            OpKind::Unary(_)
            | OpKind::Binary(_)
            | OpKind::Compare(_)
            | OpKind::Select
            | OpKind::BroadcastTo => true,
            OpKind::Slice { dims } => gather::is_static_slice(e.ty(od.operands[0]), dims),
            OpKind::Cast => e.ty(od.operands[0]).dtype != e.ty(od.results[0]).dtype,
            _ => false,
        }
}

impl Pending {
    /// Holds back fusable op `op` in the group of its result shape, first
    /// emitting the other groups it reads from.
    pub(super) fn add(&mut self, e: &mut FnEmitter, op: OpId) -> Result<(), BackendError> {
        let od = e.f.op(op);
        let dims = e.ty(od.results[0]).dims.clone();
        // A slice reads its source as a tensor: a group holding it is emitted
        // first, whatever its shape.
        let slice = matches!(od.kind, OpKind::Slice { .. });
        let other_reads =
            |g: &Group| (slice || g.dims != dims) && od.operands.iter().any(|v| g.has(*v));
        self.emit_where(e, other_reads)?;
        let k = match self.groups.iter().position(|g| g.dims == dims) {
            Some(k) => k,
            None => {
                self.groups.push(Group {
                    dims,
                    ops: Vec::new(),
                    members: HashMap::new(),
                });
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[k];
        for v in &od.operands {
            if let Some(n) = g.members.get_mut(v) {
                *n += 1;
            }
        }
        g.members.insert(od.results[0], 0);
        g.ops.push(op);
        if g.ops.len() >= MAX_MEMBERS {
            let g = self.groups.swap_remove(k);
            g.emit(e)?;
        }
        Ok(())
    }

    /// Emits every group holding a value that op `od` (a non-fusable op, or a
    /// terminator) reads, directly or inside its regions.
    pub(super) fn before(&mut self, e: &mut FnEmitter, od: &OpData) -> Result<(), BackendError> {
        if self.groups.is_empty() {
            return Ok(());
        }
        let mut reads: Vec<Value> = od.operands.clone();
        if !od.regions.is_empty() {
            reads.extend(e.f.free_values(&od.regions));
        }
        self.emit_where(e, |g| reads.iter().any(|v| g.has(*v)))
    }

    /// Emits all pending groups (at the end of a region).
    pub(super) fn finish(&mut self, e: &mut FnEmitter) -> Result<(), BackendError> {
        self.emit_where(e, |_| true)
    }

    fn emit_where(
        &mut self,
        e: &mut FnEmitter,
        pick: impl Fn(&Group) -> bool,
    ) -> Result<(), BackendError> {
        let (now, later): (Vec<Group>, Vec<Group>) =
            std::mem::take(&mut self.groups).into_iter().partition(pick);
        self.groups = later;
        for g in now {
            g.emit(e)?;
        }
        Ok(())
    }
}

impl Group {
    fn has(&self, v: Value) -> bool {
        self.members.contains_key(&v)
    }

    /// Emits the group as one `linalg.generic` and binds its outputs (a
    /// lone slice as a view where it can be one: [`gather::static_slice`]).
    fn emit(self, e: &mut FnEmitter) -> Result<(), BackendError> {
        let f = e.f;
        if let [op] = self.ops[..] {
            let od = f.op(op);
            if let OpKind::Slice { dims } = &od.kind {
                let t = gather::static_slice(e, od, dims)?;
                bind_outputs(e, &od.results, vec![t]);
                return Ok(());
            }
        }
        let outputs: Vec<Value> = self
            .ops
            .iter()
            .map(|&op| f.op(op).results[0])
            .filter(|v| e.use_count(*v) > self.members[v])
            .collect();
        emit_generic(e, &self.ops, &outputs, &self.members)
    }
}

/// Emits `ops` (members of one group, in program order) as one
/// `linalg.generic` writing `outputs`, and binds those; `members` are the
/// group's values (read as scalars of the body, the rest as inputs).
fn emit_generic(
    e: &mut FnEmitter,
    ops: &[OpId],
    outputs: &[Value],
    members: &HashMap<Value, u32>,
) -> Result<(), BackendError> {
    let f = e.f;
    let out_ty = e.ty(f.op(ops[0]).results[0]);
    let rank = out_ty.rank();
    let mut inputs: Vec<Value> = Vec::new();
    let mut constants: HashMap<Value, String> = HashMap::new();
    // Sources of slices, read whole with `tensor.extract` in the body.
    let mut sliced: HashMap<Value, String> = HashMap::new();
    for &op in ops {
        let od = f.op(op);
        if let OpKind::Slice { .. } = od.kind {
            let v = od.operands[0];
            if let std::collections::hash_map::Entry::Vacant(slot) = sliced.entry(v) {
                slot.insert(e.val(v)?);
            }
            continue;
        }
        for &v in &od.operands {
            if members.contains_key(&v) || inputs.contains(&v) || constants.contains_key(&v) {
                continue;
            }
            if let Some(c) = constant::splat_scalar(e, v) {
                constants.insert(v, c);
            } else if e.ty(v).rank() == 0 {
                let t = e.val(v)?;
                let c = rank0::element(e, &t, e.ty(v));
                constants.insert(v, c);
            } else {
                inputs.push(v);
            }
        }
    }
    if rank == 0 {
        // Scalars: no loop, no buffer (see `rank0`).
        let scalars = member_scalars(e, ops, constants, &sliced, rank)?;
        let names = outputs
            .iter()
            .map(|v| rank0::wrap(e, &scalars[v], e.ty(*v)))
            .collect();
        bind_outputs(e, outputs, names);
        return Ok(());
    }
    let mut ins = Vec::with_capacity(inputs.len());
    for &v in &inputs {
        let t = e.ty(v);
        ins.push(operand(&e.val(v)?, t, broadcast_map(&t.dims, &out_ty.dims)));
    }
    let mut outs = Vec::with_capacity(outputs.len());
    for &v in outputs {
        let t = e.ty(v);
        let init = e.empty(t)?;
        outs.push(operand(&init, t, identity_map(rank)));
    }
    let spec = GenericSpec {
        iterators: vec!["parallel"; rank],
        ins,
        outs,
    };
    let names = e.generic(&spec, |e, args| {
        let mut scalars = constants;
        scalars.extend(inputs.iter().zip(args).map(|(&v, a)| (v, a.clone())));
        let scalars = member_scalars(e, ops, scalars, &sliced, rank)?;
        Ok(outputs.iter().map(|v| scalars[v].clone()).collect())
    })?;
    bind_outputs(e, outputs, names);
    Ok(())
}

/// The scalar of every member of `ops`, in program order, computed from
/// `scalars` (those of the values read from outside the group); a slice
/// member reads its source (`sliced`) at the coordinates of the loop nest of
/// rank `rank` (there is none at rank 0, where no slice is a member).
fn member_scalars(
    e: &mut FnEmitter,
    ops: &[OpId],
    mut scalars: HashMap<Value, String>,
    sliced: &HashMap<Value, String>,
    rank: usize,
) -> Result<HashMap<Value, String>, BackendError> {
    let f = e.f;
    let mut at: Vec<String> = Vec::new();
    for &op in ops {
        let od = f.op(op);
        let y = if let OpKind::Slice { dims } = &od.kind {
            if at.is_empty() {
                at = (0..rank)
                    .map(|axis| e.assign(&format!("linalg.index {axis} : index")))
                    .collect();
            }
            let src = od.operands[0];
            gather::slice_element(e, &sliced[&src], e.ty(src), dims, &at)
        } else {
            let x: Vec<String> = od.operands.iter().map(|v| scalars[v].clone()).collect();
            elementwise::scalar_op(e, od, &x)?
        };
        scalars.insert(od.results[0], y);
    }
    Ok(scalars)
}

/// Binds `outputs` to the MLIR values `names`.
fn bind_outputs(e: &mut FnEmitter, outputs: &[Value], names: Vec<String>) {
    for (&v, name) in outputs.iter().zip(names) {
        e.def_depth.insert(v, e.loop_depth);
        e.bind_new_syms(&name, e.ty(v));
        e.set_val(v, name);
    }
}

#[cfg(test)]
mod tests {
    use super::MAX_MEMBERS;
    use crate::mlir::function::{chain_function, emit_function};
    use agc_ir::{BinaryOp, DType, Dim, Function, OpKind, Span, TensorType};

    fn vector() -> TensorType {
        TensorType::new(DType::F32, vec![Dim::Sym("N".into())])
    }

    fn count(text: &str, what: &str) -> usize {
        text.lines().filter(|l| l.contains(what)).count()
    }

    #[test]
    fn a_chain_is_one_generic_per_max_members_ops() {
        let text = emit_function(&chain_function(BinaryOp::Add, &vector(), 200, true)).unwrap();
        assert_eq!(
            count(&text, "linalg.generic"),
            200usize.div_ceil(MAX_MEMBERS),
            "{text}"
        );
        assert_eq!(count(&text, "arith.addf"), 200, "{text}");
        assert!(!text.contains("linalg.copy"), "{text}");
    }

    #[test]
    fn static_slices_are_read_in_place_by_the_fused_body() {
        // g: f32[B, 8]; return sigmoid-like g[:, :4] * g[:, 4:]: one generic
        // reading g twice with tensor.extract, no gather of either half.
        let wide = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(8)]);
        let half = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(4)]);
        let mut f = Function::new("f", &[("g".into(), wide.into())], Span::UNKNOWN);
        let (body, g) = (f.body, f.params()[0]);
        let cut = |start, stop| agc_ir::SliceDim {
            start,
            stop,
            step: 1,
        };
        let slice = |f: &mut Function, d: agc_ir::SliceDim| {
            let dims = vec![agc_ir::SliceDim::FULL, d];
            let kind = OpKind::Slice { dims };
            f.append_op(
                body,
                kind,
                vec![g],
                vec![half.clone().into()],
                vec![],
                Span::UNKNOWN,
            )
            .1[0]
        };
        let lo = slice(&mut f, cut(None, Some(4)));
        let hi = slice(&mut f, cut(Some(4), None));
        let (_, p) = f.append_op(
            body,
            OpKind::Binary(BinaryOp::Mul),
            vec![lo, hi],
            vec![half.clone().into()],
            vec![],
            Span::UNKNOWN,
        );
        f.append_op(body, OpKind::Return, p, vec![], vec![], Span::UNKNOWN);
        f.result_types = vec![half.into()];
        let text = emit_function(&f).unwrap();
        assert_eq!(count(&text, "linalg.generic"), 1, "{text}");
        assert_eq!(count(&text, "tensor.extract %"), 2, "{text}");
        assert_eq!(count(&text, "arith.mulf"), 1, "{text}");
    }

    #[test]
    fn members_read_outside_are_outputs_and_computed_once() {
        // a = x + y; b = a * a; c = b - x; return a, c: one generic, a and c its outputs.
        let t = vector();
        let ty: agc_ir::Type = t.clone().into();
        let mut f = Function::new(
            "f",
            &[("x".into(), ty.clone()), ("y".into(), ty.clone())],
            Span::UNKNOWN,
        );
        let (body, x, y) = (f.body, f.params()[0], f.params()[1]);
        let op = |f: &mut Function, b: BinaryOp, l, r| {
            f.append_op(
                body,
                OpKind::Binary(b),
                vec![l, r],
                vec![ty.clone()],
                vec![],
                Span::UNKNOWN,
            )
            .1[0]
        };
        let a = op(&mut f, BinaryOp::Add, x, y);
        let b = op(&mut f, BinaryOp::Mul, a, a);
        let c = op(&mut f, BinaryOp::Sub, b, x);
        f.append_op(
            body,
            OpKind::Return,
            vec![a, c],
            vec![],
            vec![],
            Span::UNKNOWN,
        );
        f.result_types = vec![t.clone().into(), t.into()];
        let text = emit_function(&f).unwrap();
        assert_eq!(count(&text, "linalg.generic"), 1, "{text}");
        assert!(
            text.contains("linalg.generic") && text.contains(":2 = linalg.generic"),
            "{text}"
        );
        assert_eq!(count(&text, "arith.addf"), 1, "{text}");
        assert_eq!(count(&text, "arith.mulf"), 1, "{text}");
    }
}
