//! `cse`: exact common-subexpression elimination. An op identical to one
//! that dominates it (same kind and attributes, same operands, same result
//! types) reuses that op's results. Structured control flow makes
//! dominance lexical: an op sees the ops before it in its region and in
//! the regions enclosing it. Pure and checked ops are merged (a checked op
//! that already succeeded succeeds again); opaque ops never are.

use crate::copy::{Copier, Visit};
use crate::effects::{effect, Effect};
use crate::pipeline::{Note, Pass};
use agc_ir::{Module, OpId, RegionId, Value};
use std::collections::HashMap;

/// The pass.
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn purpose(&self) -> &'static str {
        "merge identical ops that dominate one another"
    }

    fn run(&self, m: &mut Module) -> Vec<Note> {
        let mut merged = 0;
        for f in &mut m.funcs {
            let mut v = Scopes {
                tables: vec![HashMap::new()],
                merged: 0,
            };
            *f = Copier::run(f, &mut v);
            merged += v.merged;
        }
        vec![Note::module(format!("{merged} ops merged"))]
    }
}

/// One table of available ops per enclosing region, innermost last.
struct Scopes {
    tables: Vec<HashMap<String, Vec<Value>>>,
    merged: usize,
}

impl Visit for Scopes {
    fn op(&mut self, c: &mut Copier, at: RegionId, op: OpId) {
        let od = c.src.op(op);
        if effect(c.src, od) == Effect::Opaque {
            c.keep(self, at, op);
            return;
        }
        let key = key(c, op);
        if let Some(found) = self.tables.iter().rev().find_map(|t| t.get(&key)) {
            for (r, v) in od.results.iter().zip(found.clone()) {
                c.alias(*r, v);
            }
            self.merged += 1;
            return;
        }
        let results = c.keep(self, at, op);
        self.tables
            .last_mut()
            .expect("the body's table")
            .insert(key, results);
    }

    fn enter(&mut self, _c: &Copier, _region: RegionId) {
        self.tables.push(HashMap::new());
    }

    fn leave(&mut self, _c: &Copier, _region: RegionId) {
        self.tables.pop();
    }
}

/// What makes two ops the same: kind with attributes, renamed operands, result types.
fn key(c: &Copier, op: OpId) -> String {
    let od = c.src.op(op);
    let operands: Vec<String> = od
        .operands
        .iter()
        .map(|v| c.mapped(*v).to_string())
        .collect();
    let types: Vec<String> = od
        .results
        .iter()
        .map(|v| c.src.ty(*v).to_string())
        .collect();
    format!("{:?}({}):{}", od.kind, operands.join(","), types.join(","))
}
