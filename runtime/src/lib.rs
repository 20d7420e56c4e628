//! The agc runtime: C ABI support linked into every generated library.
//!
//! Every exported entry point of a generated library is a small piece of host
//! code (written by `agc_backend::llvm`) that calls into this crate:
//!
//! 1. [`import::agc_rt_import_args`] checks each `const DLTensor*` argument
//!    against the compile-time signature ([`spec::FuncSpec`]: dtypes, ranks,
//!    static dims, symbolic dims shared across parameters), requires compact
//!    row-major CPU tensors, and fills one MLIR memref descriptor per
//!    parameter;
//! 2. the kernel entry `_mlir_ciface_agc_impl_<f>` runs;
//! 3. [`export::agc_rt_export_results`] wraps each result descriptor into a
//!    library-allocated `DLTensor` ([`export::agc_rt_release`] frees it).
//!
//! `<NAME>_f_into`, which writes into result tensors the caller passes,
//! replaces steps 1 and 3 with [`into::agc_rt_import_into`] (also checking
//! the caller's tensors) and [`into::agc_rt_finish_into`] (copying the
//! results into them); `<NAME>_f_result_shapes` is
//! [`result_shapes::agc_rt_result_shapes`].
//!
//! Failures never unwind or abort: they become a non-zero status
//! ([`error::Status`]) and a thread-local message ([`error::agc_rt_last_error`]).
//! Kernels report run-time errors (index out of range, recursion too deep)
//! through [`error::agc_rt_raise`]; the status is picked up when the results
//! are exported.
//!
//! Every buffer of generated code, results included, comes from
//! [`alloc`] (a per-thread cache of freed blocks over libc).
//!
//! The crate is std-only with no dependencies. `agc-backend`'s build script
//! compiles this file tree into `libagc_runtime.a` (`panic=abort`), which is
//! linked, with every symbol made local, into each generated library. The
//! crate is also an ordinary rlib so that `cargo test` runs the unit tests.
//!
//! Invariant kept by every `extern "C"` function here: no panic can happen on
//! any input (indices are checked, arithmetic on user sizes is checked), since
//! a panic would abort the host process.

pub mod abandon;
pub mod alloc;
pub mod context;
pub mod cpu;
pub mod device;
pub mod dlpack;
pub mod error;
pub mod export;
pub mod gemm;
mod gemm_avx512;
#[cfg(target_arch = "x86_64")]
mod gemm_narrow;
mod gemm_wide;
pub mod import;
pub mod into;
pub mod json;
pub mod mapping;
pub mod memref_copy;
pub mod pairwise;
pub mod panels;
pub mod pool;
pub mod result_shapes;
pub mod rwlock;
pub mod safetensors;
pub mod spec;
pub mod stack;
pub mod stack_reserve;
pub mod variables;

#[cfg(test)]
mod fuzz_tests;
