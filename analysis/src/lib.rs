//! agc analyses.
//!
//! [`py`] holds analyses over the Python AST that the staging frontend asks
//! before it stages a construct: which names a function body binds (its
//! locals, Python's scoping rule); which names a block reads and writes (the
//! variables a staged `if` or loop must carry); and, over the control-flow
//! graph of a function body, liveness (which of those names are still read
//! afterwards) and reaching definitions (whether a loop's variable exists
//! before the loop).

pub mod py;
