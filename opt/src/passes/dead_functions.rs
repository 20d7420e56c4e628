//! `dead-functions`: drops the functions no export (nor the module's
//! variable initialiser) reaches through calls
//! and continuations (staging and AD leave helpers behind: the plain
//! version of a function only its gradient calls, gradient functions of
//! paths not taken). The functions kept are compacted: ops no region holds
//! any more are not carried over.

use crate::copy::{Copier, KeepAll};
use crate::pipeline::{Note, Pass};
use agc_ir::{FuncId, Module, OpKind};

/// The pass.
pub struct DeadFunctions;

impl Pass for DeadFunctions {
    fn name(&self) -> &'static str {
        "dead-functions"
    }

    fn purpose(&self) -> &'static str {
        "drop functions no export reaches"
    }

    fn run(&self, m: &mut Module) -> Vec<Note> {
        let reached = reachable(m);
        let before = m.funcs.len();
        let mut new_id = vec![None; before];
        let mut kept = Vec::new();
        for (i, f) in m.funcs.iter().enumerate() {
            if reached[i] {
                new_id[i] = Some(FuncId(kept.len() as u32));
                kept.push(Copier::run(f, &mut KeepAll));
            }
        }
        for f in &mut kept {
            f.rename_functions(|g| new_id[g.index()]);
        }
        for e in &mut m.exports {
            e.func = new_id[e.func.index()].expect("exports are reached");
        }
        m.init = m
            .init
            .map(|f| new_id[f.index()].expect("the initialiser is reached"));
        m.funcs = kept;
        vec![Note::module(format!(
            "{} of {before} functions kept",
            m.funcs.len()
        ))]
    }
}

/// Which functions the exports reach.
fn reachable(m: &Module) -> Vec<bool> {
    let mut seen = vec![false; m.funcs.len()];
    let mut work: Vec<FuncId> = m.exports.iter().map(|e| e.func).chain(m.init).collect();
    while let Some(id) = work.pop() {
        if std::mem::replace(&mut seen[id.index()], true) {
            continue;
        }
        let f = m.func(id);
        for op in f.ops_within(f.body) {
            if let OpKind::Call { callee: g } | OpKind::MakeCont { func: g } = f.op(op).kind {
                work.push(g);
            }
        }
    }
    seen
}
