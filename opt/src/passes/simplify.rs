//! `simplify`: the egg equality-saturation optimiser over each region's
//! pure dataflow (see [`crate::egg`]).

use crate::pipeline::{Note, Pass};
use agc_ir::Module;

/// The pass; `fast_math`: also the rules that assume finite values
/// (`agc build --fast-math`).
pub struct Simplify {
    /// Run the fast-math rules too.
    pub fast_math: bool,
}

impl Simplify {
    /// The pass with exact rules only (the default).
    pub const EXACT: Simplify = Simplify { fast_math: false };
}

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }

    fn purpose(&self) -> &'static str {
        "equality saturation (egg) over pure dataflow, cheapest equivalent extracted"
    }

    fn run(&self, m: &mut Module) -> Vec<Note> {
        crate::egg::optimise_module(m, self.fast_math)
    }
}
