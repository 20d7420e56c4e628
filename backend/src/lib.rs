//! agc backend: from the agc IR to a native library.
//!
//! Kernels and function bodies go through MLIR ([`mlir`]: linalg on tensors →
//! bufferization → loops → LLVM dialect → LLVM IR); the C ABI entry points are
//! host code written with inkwell ([`llvm`]); [`link`] turns the object into
//! `lib<NAME>.so` and `lib<NAME>.a` with the runtime linked in, and [`header`]
//! writes `<NAME>.h`. [`build`] runs the whole path in memory and returns the
//! artifacts, so nothing is written to the user's output directory on failure.

pub mod error;
pub mod mlir;

pub use error::BackendError;
