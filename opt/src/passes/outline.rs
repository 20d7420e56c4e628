//! `outline-deep-regions`: a region op (`if`, `while`) nested deeper than
//! [`MAX_NESTING`] regions, or a `while` inside [`MAX_LOOP_NESTING`] loops,
//! becomes a call of a new function holding it.
//!
//! A chain of thousands of `elif`s stages as `if`s nested as deep: MLIR's
//! one-shot bufferization and canonicalizer take time quadratic in that
//! depth (1,000 `elif`s: 14 s of MLIR, 5,000: minutes), since the result of
//! the outermost `if` may alias a value of every level. Cut every
//! [`MAX_NESTING`] levels into functions, each level's analysis stays
//! within one function and the build time grows linearly. Nested loops
//! cost more: the analysis of a loop's state follows it through every loop
//! inside, and its time doubles with each level (22 nested loops: 2.8 s,
//! 25: 22 s), so loops are cut every [`MAX_LOOP_NESTING`] levels. The call
//! costs nothing a program that deep would notice; shallower code is
//! unchanged.
//!
//! An op is outlined only when every value it reads from outside and every
//! result is a tensor whose symbolic dims are plain names that the callee
//! binds from its arguments (no dim expression naming a value of the
//! caller, no continuation).

use crate::copy::{Copier, KeepAll, Visit};
use crate::pipeline::{Note, Pass};
use agc_ir::{Dim, FuncId, Function, Module, OpId, OpKind, RegionId, Type, Value};
use std::collections::BTreeSet;

/// Regions an op may be nested in before it is outlined.
pub const MAX_NESTING: usize = 32;

/// Loops a `while` may be nested in before it is outlined.
pub const MAX_LOOP_NESTING: usize = 8;

/// The pass.
pub struct OutlineDeepRegions;

impl Pass for OutlineDeepRegions {
    fn name(&self) -> &'static str {
        "outline-deep-regions"
    }

    fn purpose(&self) -> &'static str {
        "move region ops nested deeper than 32 levels, and loops inside 8 loops, into functions of their own"
    }

    fn run(&self, m: &mut Module) -> Vec<Note> {
        let outlined = outline_each(m, |f, first_id| {
            let (depth, loops) = max_depth(f, f.body);
            if depth <= MAX_NESTING && loops <= MAX_LOOP_NESTING {
                return None;
            }
            let mut visit = Outliner {
                depth: 0,
                loops: 0,
                first_id,
                new: Vec::new(),
            };
            let copy = Copier::run(f, &mut visit);
            Some((copy, visit.new))
        });
        vec![Note::module(format!("{outlined} region ops outlined"))]
    }
}

/// Rewrites every function of `m` with `cut`, which returns the function's
/// copy and the new functions it calls (their ids from `first_id` on), or
/// `None` to leave it; new functions are cut in turn. Returns how many
/// functions were made.
pub(super) fn outline_each(
    m: &mut Module,
    mut cut: impl FnMut(&Function, usize) -> Option<(Function, Vec<Function>)>,
) -> usize {
    let mut made = 0;
    let mut work: Vec<usize> = (0..m.funcs.len()).collect();
    while let Some(i) = work.pop() {
        let Some((copy, new)) = cut(&m.funcs[i], m.funcs.len()) else {
            continue;
        };
        m.funcs[i] = copy;
        for f in new {
            work.push(m.funcs.len());
            m.funcs.push(f);
            made += 1;
        }
    }
    made
}

/// The deepest nesting of regions below `r`, and of loops.
fn max_depth(f: &Function, r: RegionId) -> (usize, usize) {
    let (mut deepest, mut deepest_loop) = (0, 0);
    let mut stack = vec![(r, 0usize, 0usize)];
    while let Some((r, depth, loops)) = stack.pop() {
        deepest = deepest.max(depth);
        deepest_loop = deepest_loop.max(loops);
        for &op in &f.region(r).ops {
            let inner_loops = loops + usize::from(f.op(op).kind == OpKind::While);
            for &inner in &f.op(op).regions {
                stack.push((inner, depth + 1, inner_loops));
            }
        }
    }
    (deepest, deepest_loop)
}

/// Whether a callee can take or return a value of type `t` unchanged: a
/// tensor whose symbolic dims are plain names.
pub(super) fn passable(t: &Type) -> bool {
    let Type::Tensor(t) = t else {
        return false;
    };
    t.dims.iter().all(|d| match d {
        Dim::Static(_) => true,
        Dim::Sym(name) => name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '#'),
    })
}

/// The symbolic dim names of a tensor type.
pub(super) fn symbols(t: &Type) -> impl Iterator<Item = &str> {
    t.as_tensor().into_iter().flat_map(|t| {
        t.dims.iter().filter_map(|d| match d {
            Dim::Sym(s) => Some(s.as_str()),
            Dim::Static(_) => None,
        })
    })
}

/// Copies a function, replacing each outlinable region op at depth
/// [`MAX_NESTING`], and each outlinable loop inside [`MAX_LOOP_NESTING`]
/// loops, by a call of a new function.
struct Outliner {
    depth: usize,
    /// Loops around the op being copied.
    loops: usize,
    /// The id the first new function will get.
    first_id: usize,
    new: Vec<Function>,
}

impl Outliner {
    /// The values `op` reads from outside itself, if it can be outlined.
    fn inputs(f: &Function, op: OpId) -> Option<Vec<Value>> {
        let inputs = reads(f, op);
        can_pass(f, &inputs, &f.op(op).results).then_some(inputs)
    }
}

/// The values `op` reads from outside itself (its operands and the free
/// values of its regions), each once, operands first.
pub(super) fn reads(f: &Function, op: OpId) -> Vec<Value> {
    let od = f.op(op);
    let mut inputs: Vec<Value> = Vec::with_capacity(od.operands.len());
    let mut seen: BTreeSet<Value> = BTreeSet::new();
    for v in od
        .operands
        .iter()
        .copied()
        .chain(f.free_values(&od.regions))
    {
        if seen.insert(v) {
            inputs.push(v);
        }
    }
    inputs
}

/// Whether a function of `inputs` can return `outputs`: every value
/// [`passable`], and every symbolic dim of an output bound by an input.
pub(super) fn can_pass(f: &Function, inputs: &[Value], outputs: &[Value]) -> bool {
    let bound: BTreeSet<&str> = inputs.iter().flat_map(|v| symbols(f.ty(*v))).collect();
    inputs.iter().all(|v| passable(f.ty(*v)))
        && outputs
            .iter()
            .all(|v| passable(f.ty(*v)) && symbols(f.ty(*v)).all(|s| bound.contains(s)))
}

/// A new function `<src name>.outlined<index>` of `inputs` that runs `ops`
/// of `src` (consecutive ops of one region, in order) and returns
/// `outputs`, values that `ops` define.
pub(super) fn function_of(
    src: &Function,
    ops: &[OpId],
    inputs: &[Value],
    outputs: &[Value],
    index: usize,
) -> Function {
    let params: Vec<(String, Type)> = (0..inputs.len())
        .map(|k| (format!("in{k}"), src.ty(inputs[k]).clone()))
        .collect();
    let span = src.op(ops[0]).span;
    let name = format!("{}.outlined{index}", src.name);
    let mut shell = Function::new(name, &params, span);
    shell.result_types = outputs.iter().map(|v| src.ty(*v).clone()).collect();
    shell.outlined = true;
    let mut c = Copier::onto(src, shell);
    for (v, p) in inputs.iter().zip(c.dst.params().to_vec()) {
        c.alias(*v, p);
    }
    let body = c.dst.body;
    for &op in ops {
        c.keep(&mut KeepAll, body, op);
    }
    let results = outputs.iter().map(|v| c.mapped(*v)).collect();
    c.dst
        .append_op(body, OpKind::Return, results, Vec::new(), Vec::new(), span);
    c.dst
}

/// Appends to region `at` of the copy a call of function `callee` with the
/// copies of `inputs`, its results standing for `outputs` from then on.
pub(super) fn call_in_place(
    c: &mut Copier,
    at: RegionId,
    callee: FuncId,
    inputs: &[Value],
    outputs: &[Value],
    span: agc_ir::Span,
) {
    let operands = inputs.iter().map(|v| c.mapped(*v)).collect();
    let types = outputs.iter().map(|v| c.src.ty(*v).clone()).collect();
    let (_, results) = c.dst.append_op(
        at,
        OpKind::Call { callee },
        operands,
        types,
        Vec::new(),
        span,
    );
    for (r, n) in outputs.iter().zip(results) {
        c.alias(*r, n);
    }
}

impl Visit for Outliner {
    fn op(&mut self, c: &mut Copier, at: RegionId, op: OpId) {
        let od = c.src.op(op);
        let is_loop = od.kind == OpKind::While;
        let too_deep = (self.depth >= MAX_NESTING && !od.regions.is_empty())
            || (is_loop && self.loops >= MAX_LOOP_NESTING);
        let inputs = if too_deep {
            Self::inputs(c.src, op)
        } else {
            None
        };
        let Some(inputs) = inputs else {
            self.loops += usize::from(is_loop);
            c.keep(self, at, op);
            self.loops -= usize::from(is_loop);
            return;
        };
        let index = self.first_id + self.new.len();
        let outputs = od.results.clone();
        self.new
            .push(function_of(c.src, &[op], &inputs, &outputs, index));
        call_in_place(c, at, FuncId(index as u32), &inputs, &outputs, od.span);
    }

    fn enter(&mut self, _c: &Copier, _region: RegionId) {
        self.depth += 1;
    }

    fn leave(&mut self, _c: &Copier, _region: RegionId) {
        self.depth -= 1;
    }
}
