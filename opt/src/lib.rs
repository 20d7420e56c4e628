//! agc's middle end: the IR → IR pass pipeline between staging and the
//! backend ([`pipeline`]), and its passes ([`passes`]): dead functions,
//! exact CSE, equality saturation with egg ([`egg`]) and dead code.
//!
//! Every pass rewrites a function by copying it ([`copy`]), deciding per op
//! by what the op may do ([`effects`]): pure ops may be merged, moved and
//! removed; ops that can fail at run time may be merged but stay; control
//! flow, calls and continuations are left alone.

pub mod copy;
pub mod effects;
pub mod egg;
pub mod estimate;
pub mod opt_ir;
pub mod passes;
pub mod pipeline;

pub use pipeline::{passes_named, run, run_passes, Note, Options, Pass, PipelineError, Report};
