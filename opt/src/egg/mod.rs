//! The equality-saturation optimiser: each region's pure dataflow goes into
//! an egg e-graph ([`lang`], with types and constants from [`analysis`]),
//! the [`rules`] run until saturation or a limit ([`region::Limits`]), and
//! the cheapest equivalent program by [`cost`] (tree optimum, [`extract`],
//! then improved by DAG cost, [`dag`]) is written back, with the source
//! spans, in place of the original ([`region`]); [`check`] tests the
//! saturated graph in debug builds. Checked and opaque ops (run-time errors,
//! control flow, calls) are leaves: never removed, moved or reordered.

pub mod analysis;
pub mod check;
pub mod cost;
pub mod dag;
pub mod extract;
pub mod lang;
pub mod region;
pub mod rules;

use crate::pipeline::Note;
use agc_ir::Module;
use region::{Limits, Saturate};
use std::collections::BTreeMap;

/// Optimises every function of `m` (with the [`rules::all`] of
/// `fast_math`); returns one note of statistics per function, then one
/// with how often each rule fired over the module (rules that never did
/// are left out).
pub fn optimise_module(m: &mut Module, fast_math: bool) -> Vec<Note> {
    let rules = rules::all(fast_math);
    let mut notes = Vec::new();
    let mut hits: BTreeMap<String, usize> = BTreeMap::new();
    for f in &mut m.funcs {
        let (out, s) = Saturate::function(f, &rules, !fast_math, Limits::default());
        for (rule, n) in &s.hits {
            *hits.entry(rule.clone()).or_default() += n;
        }
        let text = format!(
            "pure ops {} -> {}, {} regions, {} e-nodes, {} iterations, {}",
            s.pure_before, s.pure_after, s.regions, s.enodes, s.iterations, s.stop
        );
        notes.push(Note::function(&f.name, text).timed(s.millis));
        *f = out;
    }
    let fired: Vec<String> = hits.iter().map(|(r, n)| format!("{r} {n}")).collect();
    notes.push(Note::module(format!(
        "rule hits: {}",
        if fired.is_empty() {
            "none".to_string()
        } else {
            fired.join(", ")
        }
    )));
    notes
}
