//! Function summaries for activity, solved to a fixed point over (mutual)
//! recursion.
//!
//! A summary maps a function and a mask over one end of it to a mask over
//! the other: forward ([`Direction::Forward`]), which results are varied
//! when some parameters are; backward ([`Direction::Backward`]), which
//! parameters are useful when some results are. One key is analysed by
//! [`super::vary`] or [`super::useful`], reading the summaries of its
//! callees; a recursive call reads the current, possibly incomplete,
//! summary (initially nothing). A pass analyses every key reachable from
//! the one asked for once; passes repeat until none changes a summary.
//! Summaries only grow (the analyses are monotone in their inputs and in
//! the summaries they read), so this ends, after at most one pass per mask
//! bit. Once a pass changes nothing, the keys it visited are final.

use agc_ir::{FuncId, Module};
use std::collections::{HashMap, HashSet};

/// Which way a summary maps masks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Direction {
    /// Varied parameters → varied results.
    Forward,
    /// Useful results → useful parameters.
    Backward,
}

type Key = (FuncId, Vec<bool>);

/// The summaries of one direction, solved on demand.
pub(crate) struct Summaries {
    dir: Direction,
    table: HashMap<Key, Vec<bool>>,
    /// Keys whose summary is final.
    solved: HashSet<Key>,
    /// Keys analysed in the current pass.
    pass: HashSet<Key>,
    /// Whether the current pass changed a summary.
    changed: bool,
}

impl Summaries {
    /// No summaries yet.
    pub fn new(dir: Direction) -> Self {
        Summaries {
            dir,
            table: HashMap::new(),
            solved: HashSet::new(),
            pass: HashSet::new(),
            changed: false,
        }
    }

    /// The final summary of `f` for `mask`.
    pub fn solve(&mut self, m: &Module, f: FuncId, mask: Vec<bool>) -> Vec<bool> {
        let key = (f, mask);
        if let Some(out) = self.final_summary(&key) {
            return out;
        }
        loop {
            self.pass.clear();
            self.changed = false;
            let out = self.visit(m, key.clone());
            if !self.changed {
                self.solved.extend(self.pass.drain());
                return out;
            }
        }
    }

    /// The per-value analysis of `f` for `mask` (varied or useful values,
    /// indexed by value), with the final summaries of its callees.
    pub fn values(&mut self, m: &Module, f: FuncId, mask: &[bool]) -> Vec<bool> {
        let (func, dir) = (m.func(f), self.dir);
        let mut callee = |g: FuncId, mk: Vec<bool>| self.solve(m, g, mk);
        match dir {
            Direction::Forward => super::vary::analyze(func, mask, &mut callee),
            Direction::Backward => super::useful::analyze(func, mask, &mut callee),
        }
    }

    fn final_summary(&self, key: &Key) -> Option<Vec<bool>> {
        self.solved.contains(key).then(|| self.table[key].clone())
    }

    /// Analyses `key` once in this pass (later visits in the pass, the
    /// recursive ones included, read its current summary).
    fn visit(&mut self, m: &Module, key: Key) -> Vec<bool> {
        if let Some(out) = self.final_summary(&key) {
            return out;
        }
        let f = m.func(key.0);
        let width = match self.dir {
            Direction::Forward => f.result_types.len(),
            Direction::Backward => f.params().len(),
        };
        if !self.pass.insert(key.clone()) {
            return self
                .table
                .get(&key)
                .cloned()
                .unwrap_or_else(|| vec![false; width]);
        }
        let dir = self.dir;
        let mut callee = |g: FuncId, mk: Vec<bool>| self.visit(m, (g, mk));
        let out: Vec<bool> = match dir {
            Direction::Forward => {
                let varied = super::vary::analyze(f, &key.1, &mut callee);
                super::terminator_operands(f, f.body)
                    .iter()
                    .map(|v| varied[v.index()])
                    .collect()
            }
            Direction::Backward => {
                let useful = super::useful::analyze(f, &key.1, &mut callee);
                f.params().iter().map(|v| useful[v.index()]).collect()
            }
        };
        let old = self.table.entry(key).or_insert_with(|| vec![false; width]);
        for (o, n) in old.iter_mut().zip(out) {
            // Summaries only grow: keep what earlier passes found.
            self.changed |= n && !*o;
            *o |= n;
        }
        old.clone()
    }
}
