//! `outline-long-regions`: a region of more than [`MAX_OPS`] ops is cut
//! into segments of about [`SEGMENT`] consecutive ops, and each segment
//! becomes a call of a new function holding it.
//!
//! Thousands of lines of straight-line code stage as one region, and some
//! of LLVM's function passes take time quadratic in a function's size
//! (jump threading and correlated-value propagation through their lazy
//! value analysis, SLP vectorisation): 2,000 lines with a matmul every
//! tenth spend 10 s in LLVM's optimiser, 20,000 lines over ten minutes.
//! Cut into functions of bounded size, which the backend keeps out of line
//! ([`agc_ir::Function::outlined`]), each analysis stays within one
//! segment and the build time grows linearly. A call per few hundred ops
//! costs nothing measurable; shorter regions are unchanged.
//!
//! A segment ends where every value crossing its boundary can be passed
//! ([`super::outline::can_pass`]) and they are at most [`MAX_CROSSING`]; it
//! never holds the region's terminator
//! or a continuation op. A function whose segments are moved out is
//! visited again for long regions nested inside them.

use super::outline::{call_in_place, can_pass, function_of, outline_each, reads};
use crate::copy::{Copier, Visit};
use crate::pipeline::{Note, Pass};
use agc_ir::{FuncId, Function, Module, OpId, OpKind, RegionId, Value};
use std::collections::{HashMap, HashSet};

/// Regions with more ops than this are cut.
pub const MAX_OPS: usize = 1024;

/// The ops a segment holds, at least (a segment grows until its boundary
/// can be passed, up to [`MAX_GROWTH`] ops more).
pub const SEGMENT: usize = 512;

/// How far a segment grows past [`SEGMENT`] looking for a boundary.
const MAX_GROWTH: usize = 64;

/// The most values a boundary may pass (parameters and results of the new
/// function together): thousands of values live across a cut (a concat of
/// 2,016 products, say) would make calls that cost more to build than the
/// cut saves.
pub const MAX_CROSSING: usize = 64;

/// The pass.
pub struct OutlineLongRegions;

impl Pass for OutlineLongRegions {
    fn name(&self) -> &'static str {
        "outline-long-regions"
    }

    fn purpose(&self) -> &'static str {
        "cut regions of more than 1,024 ops into calls of functions of about 512 ops"
    }

    fn run(&self, m: &mut Module) -> Vec<Note> {
        let outlined = outline_each(m, |f, first_id| {
            let segments = plan(f);
            if segments.is_empty() {
                return None;
            }
            let mut cutter = Cutter {
                members: segments
                    .iter()
                    .enumerate()
                    .flat_map(|(k, s)| s.ops.iter().map(move |&op| (op, k)))
                    .collect(),
                segments,
                first_id,
                new: Vec::new(),
            };
            let copy = Copier::run(f, &mut cutter);
            Some((copy, cutter.new))
        });
        vec![Note::module(format!("{outlined} segments outlined"))]
    }
}

/// Consecutive ops of one region to move into a function.
struct Segment {
    ops: Vec<OpId>,
    /// Values the ops read from before the segment.
    inputs: Vec<Value>,
    /// Values the ops define that are read after the segment.
    outputs: Vec<Value>,
}

/// The segments of every long region of `f` that is not itself inside a
/// segment (those are cut when the new function is visited).
fn plan(f: &Function) -> Vec<Segment> {
    let mut segments = Vec::new();
    let mut stack = vec![f.body];
    while let Some(r) = stack.pop() {
        let start = segments.len();
        plan_region(f, r, &mut segments);
        let inside: HashSet<OpId> = segments[start..]
            .iter()
            .flat_map(|s| s.ops.iter().copied())
            .collect();
        for &op in &f.region(r).ops {
            if !inside.contains(&op) {
                stack.extend(f.op(op).regions.iter().copied());
            }
        }
    }
    segments
}

/// Appends the segments of region `r` when it has more than [`MAX_OPS`] ops.
fn plan_region(f: &Function, r: RegionId, segments: &mut Vec<Segment>) {
    let ops = &f.region(r).ops;
    if ops.len() <= MAX_OPS {
        return;
    }
    let reads: Vec<Vec<Value>> = ops.iter().map(|&op| reads(f, op)).collect();
    let continuation: Vec<bool> = ops.iter().map(|&op| holds_continuation(f, op)).collect();
    let mut last_read: HashMap<Value, usize> = HashMap::new();
    for (i, values) in reads.iter().enumerate() {
        for &v in values {
            last_read.insert(v, i);
        }
    }
    // The terminator (the last op) stays in the region.
    let end = ops.len() - 1;
    let mut s = 0;
    while s + SEGMENT <= end {
        let found = (s + SEGMENT..=(s + SEGMENT + MAX_GROWTH).min(end))
            .filter(|&e| !continuation[s..e].contains(&true))
            .find_map(|e| segment(f, &ops[s..e], &reads[s..e], &last_read, e));
        match found {
            Some(seg) => {
                s += seg.ops.len();
                segments.push(seg);
            }
            None => s += SEGMENT,
        }
    }
}

/// The segment of `ops` (whose outside reads are `reads`; the op after
/// them is op `end` of the region), if its boundary can be passed.
fn segment(
    f: &Function,
    ops: &[OpId],
    reads: &[Vec<Value>],
    last_read: &HashMap<Value, usize>,
    end: usize,
) -> Option<Segment> {
    let defined: HashSet<Value> = ops
        .iter()
        .flat_map(|&op| f.op(op).results.iter().copied())
        .collect();
    let mut inputs = Vec::new();
    let mut seen = HashSet::new();
    for &v in reads.iter().flatten() {
        if !defined.contains(&v) && seen.insert(v) {
            inputs.push(v);
        }
    }
    let outputs: Vec<Value> = ops
        .iter()
        .flat_map(|&op| f.op(op).results.iter().copied())
        .filter(|v| last_read.get(v).is_some_and(|&i| i >= end))
        .collect();
    let few = inputs.len() + outputs.len() <= MAX_CROSSING;
    (few && can_pass(f, &inputs, &outputs)).then(|| Segment {
        ops: ops.to_vec(),
        inputs,
        outputs,
    })
}

/// Whether `op` or an op nested in it makes, applies or reads a continuation.
fn holds_continuation(f: &Function, op: OpId) -> bool {
    let mut stack = vec![op];
    while let Some(op) = stack.pop() {
        let od = f.op(op);
        if matches!(
            od.kind,
            OpKind::MakeCont { .. } | OpKind::Apply | OpKind::ContOutputs
        ) {
            return true;
        }
        for &r in &od.regions {
            stack.extend(f.region(r).ops.iter().copied());
        }
    }
    false
}

/// Copies a function, replacing the ops of each planned segment by a call.
struct Cutter {
    segments: Vec<Segment>,
    /// The segment of each op that is in one.
    members: HashMap<OpId, usize>,
    /// The id the first new function will get.
    first_id: usize,
    new: Vec<Function>,
}

impl Visit for Cutter {
    fn op(&mut self, c: &mut Copier, at: RegionId, op: OpId) {
        let Some(&k) = self.members.get(&op) else {
            c.keep(self, at, op);
            return;
        };
        let seg = &self.segments[k];
        if seg.ops[0] != op {
            return;
        }
        let index = self.first_id + self.new.len();
        self.new.push(function_of(
            c.src,
            &seg.ops,
            &seg.inputs,
            &seg.outputs,
            index,
        ));
        let span = c.src.op(op).span;
        call_in_place(c, at, FuncId(index as u32), &seg.inputs, &seg.outputs, span);
    }
}
