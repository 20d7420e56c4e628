//! Analyses over the Python AST (rustpython-parser's `ast`).
//!
//! [`walk`] enumerates child nodes; [`activity`] computes the names a block
//! of statements binds and reads (AutoGraph's activity analysis,
//! `pyct/static_analysis/activity.py`). [`cfg`](mod@cfg) builds the control-flow graph
//! of a function body; [`liveness`] and [`reaching`] are dataflow analyses
//! over it, solved by [`dataflow`].

pub mod activity;
pub mod cfg;
pub mod dataflow;
pub mod liveness;
pub mod reaching;
pub mod walk;
