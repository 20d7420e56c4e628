//! The passes of the pipeline, one per file.

pub mod cse;
pub mod dce;
pub mod dead_functions;
pub mod outline;
pub mod outline_long;
pub mod simplify;
