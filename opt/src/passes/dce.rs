//! `dce`: removes pure ops whose results nothing needs. An op is needed
//! when it is not pure (checked and opaque ops stay, so run-time errors
//! and control flow are kept) or when a needed op uses one of its results,
//! at any depth of nested regions.

use crate::copy::{Copier, Visit};
use crate::effects::{effect, Effect};
use crate::pipeline::{Note, Pass};
use agc_ir::{Function, Module, OpId, RegionId, ValueDef};

/// The pass.
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn purpose(&self) -> &'static str {
        "remove pure ops whose results are unused"
    }

    fn run(&self, m: &mut Module) -> Vec<Note> {
        let mut removed = 0;
        for f in &mut m.funcs {
            let mut v = Needed {
                needed: needed(f),
                removed: 0,
            };
            *f = Copier::run(f, &mut v);
            removed += v.removed;
        }
        vec![Note::module(format!("{removed} ops removed"))]
    }
}

/// Marks the ops of `f` that must stay.
fn needed(f: &Function) -> Vec<bool> {
    let mut needed = vec![false; f.num_ops()];
    let mut work: Vec<OpId> = f
        .ops_within(f.body)
        .into_iter()
        .filter(|&op| effect(f, f.op(op)) != Effect::Pure)
        .collect();
    for op in &work {
        needed[op.index()] = true;
    }
    while let Some(op) = work.pop() {
        for v in &f.op(op).operands {
            if let ValueDef::Result { op: def, .. } = f.value(*v).def {
                if !std::mem::replace(&mut needed[def.index()], true) {
                    work.push(def);
                }
            }
        }
    }
    needed
}

/// Copies the needed ops only.
struct Needed {
    needed: Vec<bool>,
    removed: usize,
}

impl Visit for Needed {
    fn op(&mut self, c: &mut Copier, at: RegionId, op: OpId) {
        if self.needed[op.index()] {
            c.keep(self, at, op);
        } else {
            self.removed += 1;
        }
    }
}
