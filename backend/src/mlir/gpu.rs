//! The CUDA pass pipeline: the CPU pipeline's tensor passes and
//! bufferization, then the data-parallel loops as GPU kernels and the rest
//! as host code on managed memory (see `runtime/src/device`).
//!
//! 1. linalg → `scf.parallel` nests, each collapsed to one dim
//!    ([`gpu_text::collapse_parallel`]);
//! 2. tiled by [`BLOCK`] threads and mapped to the grid, then unmapped where
//!    the body cannot run on the GPU ([`gpu_map::keep_kernels`]); the mapped
//!    nests become `gpu.launch` ops;
//! 3. for the GPU: kernels outlined, lowered to NVVM and to PTX for
//!    [`CHIP`] (embedded in the library, JIT-compiled by the driver for the
//!    GPU it runs on), host code to LLVM with the launches as calls of the
//!    runtime's `mgpu*` functions; emulated: each launch becomes host loops
//!    over its grid ([`gpu_text::launches_to_loops`]), then the CPU lowering.
//!
//! Every launch is synchronous (the stream is synchronised after it), so
//! host code never reads a buffer a kernel is still writing.

use super::pipeline::{self, MlirSession};
use super::{gpu_map, gpu_text};
use crate::BackendError;
use melior::ir::Module;

/// Threads per block of every kernel.
pub const BLOCK: usize = 256;

/// The PTX target: sm_80 (Ampere) code runs on every later GPU through the
/// driver's JIT.
pub const CHIP: &str = "sm_80";

/// Step 1 of the module doc, after bufferization.
const TO_PARALLEL_LOOPS: &str = "convert-linalg-to-parallel-loops,canonicalize,cse";

/// GPU kernels through PTX, host code through LLVM dialect (step 3, after
/// outlining and [`gpu_text::native_math_in_kernels`]).
fn device_lowering() -> String {
    format!(
        "convert-linalg-to-loops,expand-strided-metadata,lower-affine,convert-scf-to-cf,\
nvvm-attach-target{{chip={CHIP} O=3}},\
gpu.module(convert-gpu-to-nvvm{{index-bitwidth=64}},canonicalize,cse,reconcile-unrealized-casts),\
convert-vector-to-llvm,convert-math-to-funcs,convert-math-to-llvm,convert-math-to-libm,\
finalize-memref-to-llvm{{use-generic-functions=1}},convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,\
convert-cf-to-llvm,convert-ub-to-llvm,gpu-to-llvm,gpu-module-to-binary{{format=isa}},reconcile-unrealized-casts"
    )
}

/// Runs the CUDA pipeline on `module` (parsed in `s`), returning the
/// LLVM-dialect module; `emulated` runs the kernels as host loops.
pub fn lower<'c>(
    s: &'c MlirSession,
    mut module: Module<'c>,
    opt_level: u8,
    emulated: bool,
) -> Result<Module<'c>, BackendError> {
    let passes = |inner: &str| format!("builtin.module({inner})");
    pipeline::bufferize(s, &mut module, opt_level, TO_PARALLEL_LOOPS)?;
    let collapsed = gpu_text::collapse_parallel(&module.as_operation().to_string());
    drop(module);
    let mut module = pipeline::parse(s, &collapsed)?;
    pipeline::run_passes(
        s,
        &mut module,
        &passes(&format!(
            "func.func(scf-parallel-loop-tiling{{parallel-loop-tile-sizes={BLOCK} no-min-max-bounds=true}}),\
func.func(gpu-map-parallel-loops)"
        )),
    )?;
    let count = gpu_map::keep_kernels(&mut module);
    tracing::debug!(
        "CUDA: {} loop nests become kernels, {} stay on the host",
        count.kernels,
        count.host
    );
    pipeline::run_passes(s, &mut module, &passes("convert-parallel-loops-to-gpu"))?;
    if emulated {
        let text = gpu_text::launches_to_loops(&module.as_operation().to_string())
            .ok_or_else(|| BackendError::Mlir("a GPU launch has an unexpected form".into()))?;
        drop(module);
        // AGC_DUMP_GPU=<file>: keep the emulated module's text (as AGC_DUMP_MLIR does for the input).
        if let Some(path) = std::env::var_os("AGC_DUMP_GPU") {
            let _ = std::fs::write(path, &text);
        }
        let mut module = pipeline::parse(s, &text)?;
        pipeline::run_passes(s, &mut module, &passes(pipeline::LOOPS_TO_LLVM))?;
        return Ok(module);
    }
    pipeline::run_passes(s, &mut module, &passes("gpu-kernel-outlining"))?;
    let text = gpu_text::native_math_in_kernels(&module.as_operation().to_string());
    drop(module);
    let mut module = pipeline::parse(s, &text)?;
    pipeline::run_passes(s, &mut module, &passes(&device_lowering()))?;
    Ok(module)
}
