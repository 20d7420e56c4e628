//! agc lowering: IR-to-IR passes over [`agc_ir::Module`].
//!
//! - [`ad`]: reverse-mode automatic differentiation ([`ad::value_and_grad`]),
//!   which appends gradient functions to a module;
//! - [`builder`]: the typed op builder the passes emit code with.

pub mod ad;
pub mod builder;
