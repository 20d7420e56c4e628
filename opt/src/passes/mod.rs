//! The passes of the pipeline, one per file.

pub mod cse;
pub mod dce;
pub mod dead_functions;
pub mod outline;
pub mod simplify;
