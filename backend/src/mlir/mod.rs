//! agc IR → MLIR (linalg on tensors) → LLVM IR, for the CPU.
//!
//! Two steps, two functions:
//! - [`emit_module`] writes MLIR text: each IR function `f` becomes
//!   `func.func @agc_impl_<f>` over ranked tensors (the symbol made a unique
//!   C identifier by [`function_symbols`]), one small emitter per op
//!   pattern (`elementwise`, `contraction`, `reduce`, `layout`,
//!   `gather`, `index`, `take`, `constant`, `control`; symbolic sizes in `emitter`);
//! - [`lower_to_llvm`] parses it with melior, runs the pass pipeline of the
//!   `pipeline` module and translates the result into an inkwell module.
//!
//! # Calling convention of the generated code
//!
//! Each function carries `llvm.emit_c_interface`, so besides
//! `agc_impl_<f>` (expanded descriptor fields as scalar arguments, an
//! implementation detail) the module defines the entry point to call:
//!
//! ```c
//! void _mlir_ciface_agc_impl_<f>(RET *ret, DESC_0 *arg0, DESC_1 *arg1, ...);
//! ```
//!
//! - A rank-`r` tensor is passed as a memref descriptor, the struct
//!   `{ void *allocated; void *aligned; int64_t offset; int64_t sizes[r];
//!   int64_t strides[r]; }` (rank 0: the first three fields only). Sizes and
//!   strides count elements; element `(i0, .., ik)` is at
//!   `aligned + offset + Σ i_j * strides[j]`. Element types: `f32`, `f64`,
//!   `i32`, `i64`, and `bool` as one byte holding 0 or 1.
//! - Arguments: one pointer to a descriptor per IR parameter, in order,
//!   after `ret`. Inputs must be contiguous and row-major: `aligned` points
//!   at element 0, `offset` is 0, `strides` are the row-major strides (the
//!   code may compute addresses from either the sizes or the strides).
//!   `allocated` is never read or freed; it may equal `aligned`. Inputs are
//!   only read, and stay owned by the caller.
//! - Sizes are trusted: static dims must match, and every parameter dim
//!   that shares a symbol name must have the same size (the code reads a
//!   symbol's size from the first parameter axis that carries it). The C ABI
//!   wrapper checks this before the call.
//! - Results: `ret` points to caller-provided storage for the result
//!   descriptor (one result) or for a struct of the result descriptors in
//!   order, laid out as C lays out `struct { DESC_0 r0; DESC_1 r1; ... }`
//!   (every field is 8 bytes, so there is no padding). A function without
//!   results has no `ret` parameter.
//! - Ownership: every returned buffer is freshly allocated by the runtime's
//!   allocator (`runtime/src/alloc.rs`; results never alias each other, a
//!   parameter or a constant), has the identity row-major layout (`offset`
//!   0, `strides` the row-major strides), and belongs to the caller, who
//!   releases it with `_mlir_memref_to_llvm_free(allocated)`; note
//!   `aligned` may differ from `allocated`. A zero-size result still owns
//!   its (small) allocation.
//! - The code calls libc, libm and a few functions of agc's runtime
//!   (`runtime/src/error.rs`, `runtime/src/stack.rs`, `runtime/src/alloc.rs`):
//!   `agc_rt_raise_index`, `agc_rt_raise_empty`, `agc_rt_raise_size`,
//!   `agc_rt_pairwise_rows_f32`/`_f64` (numpy's summation order, `runtime/src/pairwise.rs`),
//!   `agc_rt_enter`, `agc_rt_ok` (see below) and the allocator's
//!   `_mlir_memref_to_llvm_alloc`/`_aligned_alloc`/`_free`. It needs no MLIR runtime library.
//!
//! Calls between the module's functions (recursion included) follow the
//! same convention and ownership rules; they go through memref-typed
//! declarations `@agc_impl_<f>__m`, bound to the definitions in LLVM IR
//! (see `control::call`), so that bufferization copies no argument.
//!
//! # Run-time errors
//!
//! A kernel never stops early: on an error it records a status with the
//! runtime (the first one of a call wins) and goes on with safe
//! substitutes, so that no memory outside a tensor is touched and every
//! buffer is still freed:
//! - an integer index out of range (`dyn_index`, `dyn_update`): status
//!   `INDEX_OUT_OF_RANGE`, numpy's message; reads give zeros, writes are
//!   dropped;
//! - `max`/`min`/`argmax`/`argmin` over an empty axis: `INVALID_ARGUMENT`,
//!   numpy's `ValueError` message;
//! - a recursion too deep: every function that is called starts with
//!   `agc_rt_enter()`, which compares the stack pointer with the thread's
//!   stack limit; past it (or once the call has failed) the body is
//!   skipped and zeros are returned (`RECURSION_TOO_DEEP`). Exports that
//!   make calls run on the runtime's large per-thread stack
//!   (`agc_rt_run`, in the host code), so deep recursions succeed;
//! - a `while` stops once the call has failed (`agc_rt_ok()`), since it
//!   runs on substitutes from then on;
//! - a size that contradicts the types (a call's result, or an op that
//!   computes a size whose symbol is bound already): `INTERNAL`, with
//!   zeros of the expected size (`FnEmitter::conform`).
//!
//! The C entry point returns the status (the message prefixed with the
//! function's name) and frees the results.
//!

mod alloc_size;
mod approx;
mod capture_lifetime;
mod chain_break;
mod checks;
mod constant;
mod continuation;
mod contraction;
mod control;
mod counted_loop;
mod dealloc_scratch;
mod elementwise;
mod emitter;
mod function;
mod fusion;
mod gather;
mod gpu;
pub mod gpu_map;
mod gpu_text;
mod index;
mod layout;
mod pairwise_sum;
mod pipeline;
mod rank0;
mod reduce;
mod result_alias;
mod scalar;
mod short_loops;
mod take;
mod types;
pub mod weight;

pub use approx::{definitions as approx_definitions, vector_symbol, Approximation, VECTOR_LANES};
pub use function::{emit_module, function_symbols, makes_calls, EmitOptions, Emitted, IMPL_PREFIX};
pub use pipeline::{lower_to_llvm, Device};
pub use weight::Placement;
