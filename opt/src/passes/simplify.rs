//! `simplify`: the egg equality-saturation optimiser over each region's
//! pure dataflow (see [`crate::egg`]).

use crate::pipeline::Pass;
use agc_ir::Module;

/// The pass.
pub struct Simplify;

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }

    fn purpose(&self) -> &'static str {
        "equality saturation (egg) over pure dataflow, cheapest equivalent extracted"
    }

    fn run(&self, m: &mut Module) -> Vec<String> {
        crate::egg::optimise_module(m)
    }
}
