//! The backend's integration tests, in one test binary: each binary links
//! all of LLVM and MLIR (about 250 MB), so one binary instead of eight keeps
//! a clean build's disk use and link time down.

mod abi;
mod mlir_control;
mod mlir_errors;
mod mlir_gemm;
mod mlir_kernels;
mod mlir_layout_abi;
mod mlir_recursion;
mod mlir_scalars;
mod mlir_support;
