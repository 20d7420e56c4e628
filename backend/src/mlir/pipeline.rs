//! MLIR text → LLVM IR: parse with melior, run the CPU pass pipeline, and
//! translate into an inkwell module of the caller's LLVM context.
//!
//! Phases of [`lower_to_llvm`], in order (the CUDA pipeline of
//! [`super::gpu`] shares phases 1, 2 and most of 4):
//! 1. tensor-level cleanup (elementwise ops arrive fused: `fusion`): canonicalize, CSE, then
//!    loop-invariant code motion (a matmul by loop-invariant weights packs
//!    them once, before the loop) (all skipped at `opt_level` 0);
//! 2. bufferization: one-shot over function boundaries with identity-layout
//!    signatures, identity layouts where a type cannot be inferred (an
//!    `scf.if` result would otherwise get a fully dynamic layout, and copying
//!    that into a result is a `memrefCopy` runtime call), new buffers allowed
//!    to flow out of loops (long chains of control flow arrive broken into
//!    pieces the analysis types without recursion: [`super::chain_break`]);
//!    then the ownership-based deallocation pipeline
//!    (frees every temporary; results stay owned by the caller), and
//!    [`super::dealloc_scratch`]: the scratch arrays of the run-time alias
//!    checks it lowers to live on the stack instead of the heap;
//! 3. loops: linalg → scf loops, short innermost loops marked for vectorisation
//!    ([`super::short_loops`], above opt level 0), strided metadata, affine → arith, scf → cf;
//! 4. LLVM dialect: vector (the packing of matmul operands: 1-D transfers become
//!    plain or masked loads and stores), `math.ipowi` → a generated function, math → LLVM
//!    intrinsics or libm calls, memref (allocation through the runtime's
//!    `_mlir_memref_to_llvm_alloc`/`_free`, a per-thread cache of freed
//!    blocks: `agc_runtime::alloc`), arith, index, func
//!    (with the `_mlir_ciface_` wrappers), cf, ub, cast reconciliation.
//!
//! Every MLIR diagnostic (parse, verify, pass failure) is collected and put
//! into the [`BackendError::Mlir`] message. The result calls only the runtime's
//! allocator and libm (through LLVM intrinsics such as
//! `llvm.exp.f32`, or calls such as `tanhf`).

use crate::BackendError;
use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::{
    parse_pass_pipeline, register_all_dialects, register_all_llvm_translations, register_all_passes,
};
use melior::Context;
use std::sync::{Arc, Mutex};

/// Tensor-level cleanup and fusion, before bufferization.
const OPTIMIZE: &str = "canonicalize,cse,loop-invariant-code-motion,";

/// Cleanup only (opt level 0).
const CLEANUP: &str = "canonicalize,cse,";

/// Bufferization and deallocation (phase 2 of the module doc).
const BUFFERIZE: &str = "one-shot-bufferize{bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map \
unknown-type-conversion=identity-layout-map allow-return-allocs-from-loops buffer-alignment=0},\
buffer-deallocation-pipeline,convert-bufferization-to-memref";

/// Linalg ops to loops (the start of phase 3).
const LINALG_TO_LOOPS: &str = "convert-linalg-to-loops";

/// Loops through LLVM dialect (phases 3-4 of the module doc, after
/// [`LINALG_TO_LOOPS`]; the CUDA pipeline has made its loops already).
pub const LOOPS_TO_LLVM: &str = "expand-strided-metadata,lower-affine,convert-scf-to-cf,\
convert-vector-to-llvm,convert-math-to-funcs,convert-math-to-llvm,convert-math-to-libm,\
finalize-memref-to-llvm{use-generic-functions=1},convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,\
convert-cf-to-llvm,convert-ub-to-llvm,reconcile-unrealized-casts";

/// The tensor-level passes of an optimisation level (phase 1).
pub fn tensor_passes(opt_level: u8) -> &'static str {
    if opt_level == 0 {
        CLEANUP
    } else {
        OPTIMIZE
    }
}

/// Runs phases 1 and 2 of the module doc on `module`: tensor-level passes,
/// bufferization and deallocation (`then`: passes to run after them in the
/// same pass manager), then [`super::dealloc_scratch`].
pub(super) fn bufferize(
    s: &MlirSession,
    module: &mut Module,
    opt_level: u8,
    then: &str,
) -> Result<(), BackendError> {
    let text = format!(
        "builtin.module({}{BUFFERIZE}{}{then})",
        tensor_passes(opt_level),
        if then.is_empty() { "" } else { "," }
    );
    run_passes(s, module, &text)?;
    let moved = super::dealloc_scratch::stack_dealloc_scratch(&s.context, module);
    tracing::debug!("{moved} scratch arrays of deallocation moved to the stack");
    Ok(())
}

/// An MLIR context with every dialect, pass and LLVM translation
/// registered, and a diagnostic handler that collects messages.
pub(super) struct MlirSession {
    /// The context.
    pub(super) context: Context,
    diagnostics: Arc<Mutex<Vec<String>>>,
}

impl MlirSession {
    pub(super) fn new() -> Self {
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        let context = Context::new();
        context.append_dialect_registry(&registry);
        context.load_all_available_dialects();
        register_all_llvm_translations(&context);
        register_all_passes();
        let diagnostics = Arc::new(Mutex::new(Vec::new()));
        let sink = diagnostics.clone();
        context.attach_diagnostic_handler(move |d| {
            let mut msg = format!("{}: {d}", d.location());
            for i in 0..d.note_count() {
                if let Ok(n) = d.note(i) {
                    msg.push_str(&format!("\n  note: {n}"));
                }
            }
            sink.lock().unwrap().push(msg);
            true
        });
        MlirSession {
            context,
            diagnostics,
        }
    }

    /// An error for `what`, with the diagnostics collected so far.
    pub(super) fn error(&self, what: &str) -> BackendError {
        let diags = std::mem::take(&mut *self.diagnostics.lock().unwrap());
        if diags.is_empty() {
            BackendError::Mlir(what.to_string())
        } else {
            BackendError::Mlir(format!("{what}:\n{}", diags.join("\n")))
        }
    }
}

/// Where the kernels of [`lower_to_llvm`] run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Device {
    /// The host CPU.
    #[default]
    Cpu,
    /// An NVIDIA GPU: parallel loops become PTX kernels ([`super::gpu`]).
    Cuda,
    /// The CUDA library with its kernels run as host loops (for tests).
    CudaEmulated,
}

/// Parses `mlir_text`, lowers it to the LLVM dialect for `device` and
/// translates it into an LLVM module owned by `ctx`.
///
/// `opt_level` 0 skips elementwise fusion; LLVM-level optimisation is left
/// to the caller (it runs on the linked module).
pub fn lower_to_llvm<'ctx>(
    mlir_text: &str,
    opt_level: u8,
    device: Device,
    ctx: &'ctx inkwell::context::Context,
) -> Result<inkwell::module::Module<'ctx>, BackendError> {
    // AGC_DUMP_MLIR=<file>: keep the MLIR text (for a pass that fails or crashes).
    if let Some(path) = std::env::var_os("AGC_DUMP_MLIR") {
        let _ = std::fs::write(path, mlir_text);
    }
    let started = std::time::Instant::now();
    let s = MlirSession::new();
    let mut module = parse(&s, mlir_text)?;
    match device {
        Device::Cpu => {
            bufferize(&s, &mut module, opt_level, LINALG_TO_LOOPS)?;
            if opt_level > 0 {
                let marked = super::short_loops::mark_short_loops(&s.context, &module);
                tracing::debug!("{marked} short loops marked for vectorisation");
            }
            run_passes(&s, &mut module, &format!("builtin.module({LOOPS_TO_LLVM})"))?;
        }
        Device::Cuda | Device::CudaEmulated => {
            module = super::gpu::lower(&s, module, opt_level, device == Device::CudaEmulated)?;
        }
    }
    let llvm = translate(&s, &module, ctx)?;
    bind_buffer_calls(&llvm);
    tracing::info!(ms = crate::millis(started), "lowered MLIR to LLVM IR");
    Ok(llvm)
}

/// Parses and verifies an MLIR module.
pub(super) fn parse<'c>(s: &'c MlirSession, text: &str) -> Result<Module<'c>, BackendError> {
    let module =
        Module::parse(&s.context, text).ok_or_else(|| s.error("cannot parse the MLIR module"))?;
    if !module.as_operation().verify() {
        return Err(s.error("the MLIR module does not verify"));
    }
    Ok(module)
}

/// Runs the pass pipeline `text` (`builtin.module(...)`) on `module`.
pub(super) fn run_passes(
    s: &MlirSession,
    module: &mut Module,
    text: &str,
) -> Result<(), BackendError> {
    let pm = PassManager::new(&s.context);
    parse_pass_pipeline(pm.as_operation_pass_manager(), text)
        .map_err(|e| BackendError::Mlir(format!("bad pass pipeline: {e}")))?;
    pm.run(module)
        .map_err(|e| s.error(&format!("pass pipeline failed ({e})")))
}

/// Replaces each declaration `@f__m` (through which calls reach `@f`, see
/// `control::call`) by the definition `@f`: after bufferization both have
/// the same signature.
pub(super) fn bind_buffer_calls(m: &inkwell::module::Module) {
    let decls: Vec<_> = m
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0)
        .filter_map(|f| {
            let name = f.get_name().to_str().ok()?.to_string();
            let target = name
                .strip_suffix(super::control::BUFFER_CALL_SUFFIX)
                .or_else(|| name.strip_suffix(super::continuation::RAW_CALL_SUFFIX))?;
            Some((f, m.get_function(target)?))
        })
        .collect();
    for (decl, def) in decls {
        decl.as_global_value()
            .as_pointer_value()
            .replace_all_uses_with(def.as_global_value().as_pointer_value());
        // SAFETY: the declaration has no uses left.
        unsafe { decl.delete() };
    }
}

/// Translates an LLVM-dialect module into `ctx`.
pub(super) fn translate<'ctx>(
    s: &MlirSession,
    module: &Module,
    ctx: &'ctx inkwell::context::Context,
) -> Result<inkwell::module::Module<'ctx>, BackendError> {
    use inkwell::context::AsContextRef;
    // SAFETY: the operation is a live module in the LLVM dialect; the LLVM
    // context outlives the returned module ('ctx), which owns the new
    // LLVMModuleRef from here on.
    let raw = unsafe {
        mlir_sys::mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), ctx.as_ctx_ref() as _)
    };
    if raw.is_null() {
        return Err(s.error("translation to LLVM IR failed"));
    }
    Ok(unsafe { inkwell::module::Module::new(raw as _) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_carry_mlir_diagnostics() {
        let ctx = inkwell::context::Context::create();
        let err = lower_to_llvm("func.func @f() { %0 = arith.bogus }", 1, Device::Cpu, &ctx)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot parse"), "{err}");
        assert!(err.contains("loc("), "no MLIR location in: {err}");
    }

    #[test]
    fn verifier_errors_carry_mlir_diagnostics() {
        let ctx = inkwell::context::Context::create();
        let text = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n\
                    func.func @g(%a: tensor<4xf32>) -> tensor<3xf32> {\n  return %a : tensor<4xf32>\n}";
        let err = lower_to_llvm(text, 1, Device::Cpu, &ctx)
            .unwrap_err()
            .to_string();
        assert!(err.contains("type of return operand"), "{err}");
    }

    #[test]
    fn a_trivial_module_translates_into_the_given_context() {
        let ctx = inkwell::context::Context::create();
        let text = "func.func @id(%a: tensor<?xf32>) -> tensor<?xf32> attributes {llvm.emit_c_interface} {\n\
                    %c = bufferization.alloc_tensor() copy(%a) : tensor<?xf32>\n  return %c : tensor<?xf32>\n}";
        let m = lower_to_llvm(text, 0, Device::Cpu, &ctx).unwrap();
        assert!(m.get_function("_mlir_ciface_id").is_some());
        assert!(m.verify().is_ok());
    }
}
