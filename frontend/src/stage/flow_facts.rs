//! What the dataflow analyses on the Python AST say about the module's
//! function bodies, looked up by statement while staging.
//!
//! Every function body (nested ones and methods included) is analysed once,
//! before staging: its control-flow graph and liveness
//! (`agc_analysis::py`). A staged `if` returns, and a staged loop carries,
//! only the variables it assigns that are live after it (or at the loop
//! head), as in AutoGraph; whether a path runs off the end of a function
//! decides if a value returned under staged control flow is complete.

use agc_analysis::py::cfg::Cfg;
use agc_analysis::py::liveness::Liveness;
use agc_analysis::py::walk;
use rustpython_parser::ast::{Ranged, Stmt};
use rustpython_parser::text_size::TextRange;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// The analyses of one function body.
struct BodyFacts {
    liveness: Liveness,
    falls_off: bool,
}

/// The analyses of every function body of a module, by statement.
#[derive(Default)]
pub struct FlowFacts {
    /// Each statement's address, to the analyses of the body it belongs to.
    by_stmt: HashMap<usize, Rc<BodyFacts>>,
}

fn key(s: &Stmt) -> usize {
    s as *const Stmt as usize
}

impl FlowFacts {
    /// Analyses every function body in `module` (statements at module level
    /// have no facts: nothing is staged there).
    pub fn of_module(module: &[Stmt]) -> FlowFacts {
        let mut facts = FlowFacts::default();
        walk::all_stmts(module, true, &mut |s| {
            if let Stmt::FunctionDef(d) = s {
                let body = BodyFacts {
                    liveness: Liveness::analyse(&d.body),
                    falls_off: Cfg::build(&d.body).falls_off(),
                };
                let body_facts = Rc::new(body);
                walk::all_stmts(&d.body, false, &mut |inner| {
                    facts.by_stmt.insert(key(inner), body_facts.clone());
                });
            }
        });
        facts
    }

    /// The names live wherever control goes on leaving `stmts` (a run of
    /// statements of one body) by any way, `break`/`continue` included; `None`
    /// if unknown. What a staged region must hand on.
    pub fn live_leaving(&self, stmts: &[Stmt]) -> Option<BTreeSet<String>> {
        let (first, last) = (stmts.first()?, stmts.last()?);
        let facts = self.by_stmt.get(&key(first))?;
        Some(
            facts
                .liveness
                .live_leaving(TextRange::new(first.start(), last.end())),
        )
    }

    /// Whether some path runs off the end of the function body `body`
    /// (returning `None`), if known.
    pub fn falls_off(&self, body: &[Stmt]) -> Option<bool> {
        Some(self.by_stmt.get(&key(body.first()?))?.falls_off)
    }

    /// The names live when `s` completes normally (falls through), if known.
    pub fn live_after(&self, s: &Stmt) -> Option<&BTreeSet<String>> {
        self.by_stmt.get(&key(s))?.liveness.live_after(s)
    }

    /// The names live at the head of loop `s` (what the loop must carry), if known.
    pub fn live_at_loop_head(&self, s: &Stmt) -> Option<&BTreeSet<String>> {
        self.by_stmt.get(&key(s))?.liveness.live_at_loop_head(s)
    }
}
