//! Analyses over the Python AST (rustpython-parser's `ast`).
//!
//! [`walk`] enumerates child nodes; [`activity`] computes the names a block
//! of statements binds and reads (AutoGraph's activity analysis, `pyct/static_analysis/activity.py`).

pub mod activity;
pub mod walk;
