//! LLVM's diagnostics during optimisation and code generation, through
//! `tracing` instead of LLVM's default handler, which prints them on
//! standard error.
//!
//! The loops agc asks LLVM to vectorise (`mlir::short_loops`) make LLVM
//! report each one it cannot vectorise ("remark: loop not vectorized: ...",
//! printed whatever the remark settings): facts about generated code, not
//! about the user's model, so they are debug logs (`agc build -v` shows
//! them). Errors stay errors: logged as such, and the operation that met
//! them fails as before.

use inkwell::context::AsContextRef;
use inkwell::llvm_sys::core::{
    LLVMContextSetDiagnosticHandler, LLVMDisposeMessage, LLVMGetDiagInfoDescription,
    LLVMGetDiagInfoSeverity,
};
use inkwell::llvm_sys::prelude::LLVMDiagnosticInfoRef;
use inkwell::llvm_sys::LLVMDiagnosticSeverity;
use std::ffi::{c_void, CStr};

/// Routes the diagnostics of `ctx` (the context of the module about to be
/// optimised) through [`log_diagnostic`].
pub fn route_to_tracing<'ctx>(ctx: &impl AsContextRef<'ctx>) {
    // SAFETY: the context is alive (borrowed), and the handler keeps no state.
    unsafe {
        LLVMContextSetDiagnosticHandler(
            ctx.as_ctx_ref(),
            Some(log_diagnostic),
            std::ptr::null_mut(),
        )
    }
}

/// The handler: each diagnostic as a `tracing` event of its severity
/// (warnings, remarks and notes at debug level).
extern "C" fn log_diagnostic(info: LLVMDiagnosticInfoRef, _: *mut c_void) {
    // SAFETY: LLVM passes a valid diagnostic for the duration of the call;
    // the description is an LLVM message this function owns and disposes.
    let (severity, text) = unsafe {
        let message = LLVMGetDiagInfoDescription(info);
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeMessage(message);
        (LLVMGetDiagInfoSeverity(info), text)
    };
    match severity {
        LLVMDiagnosticSeverity::LLVMDSError => tracing::error!(target: "llvm", "{text}"),
        _ => tracing::debug!(target: "llvm", ?severity, "{text}"),
    }
}
