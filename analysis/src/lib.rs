//! agc analyses.
//!
//! [`py`] holds analyses over the Python AST that the staging frontend asks
//! before it stages a construct: which names a function body binds (its
//! locals, Python's scoping rule), and which names a block reads and writes
//! (the variables a staged `if` or loop must carry).

pub mod py;
