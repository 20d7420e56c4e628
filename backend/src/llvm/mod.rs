//! Host code for the C ABI, written with inkwell: three entry points per
//! export (`<NAME>_f`, `<NAME>_f_into` and `<NAME>_f_result_shapes`) plus the
//! library's `<NAME>_last_error`, `<NAME>_release` and `<NAME>_metadata`.
//!
//! An entry point `int f(const DLTensor* x, ..., DLTensor** out0, ...)` does
//! no checking itself: it hands its compile-time signature (a constant
//! `agc_rt` `FuncSpec`, see [`spec`]) to the runtime, which validates the
//! arguments and fills the memref descriptors, calls the kernel entry
//! `_mlir_ciface_agc_impl_<f>`, and lets the runtime wrap the results
//! ([`entry`]). Everything the runtime does is unit-tested in Rust; the
//! generated code is straight-line.
//!
//! Descriptors and results live in `alloca`s of the entry's frame, so calls
//! are re-entrant and thread-safe as long as the kernels are.
//!
//! Every kernel runs as a guarded call, so that one that runs out of memory
//! is abandoned with a status: the entry point passes a small trampoline
//! and the kernel's arguments to `agc_rt_run` (on the runtime's large
//! per-thread stack, for an export whose function makes calls: staged
//! recursion) or `agc_rt_guard` (on the caller's stack).
//!
//! `<NAME>_f_into` is the same straight line with the runtime's `_into`
//! import and finish ([`entry::Entry`]); `<NAME>_f_result_shapes` only calls
//! the runtime ([`shapes`]).

mod api;
mod context;
pub(crate) mod device;
mod entry;
mod shapes;
mod spec;
pub mod weights;

use crate::multiversion::Variant;
use crate::signature::ExportSig;
use crate::BackendError;
use inkwell::builder::BuilderError;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::FunctionValue;
use inkwell::AddressSpace;

/// The runtime functions the host code calls (declared in the host module).
pub(crate) struct RuntimeFns<'ctx> {
    /// `int32_t agc_rt_import_args(spec, args, outs, descs, syms)`.
    pub import_args: FunctionValue<'ctx>,
    /// `int32_t agc_rt_export_results(spec, ret, descs, outs)`.
    pub export_results: FunctionValue<'ctx>,
    /// `int32_t agc_rt_import_into(spec, args, outs, descs, syms)`.
    pub import_into: FunctionValue<'ctx>,
    /// `int32_t agc_rt_finish_into(spec, ret, descs, outs)`.
    pub finish_into: FunctionValue<'ctx>,
    /// `int32_t agc_rt_result_shapes(spec, args, shapes, syms)`.
    pub result_shapes: FunctionValue<'ctx>,
    /// `const char* agc_rt_last_error(void)`.
    pub last_error: FunctionValue<'ctx>,
    /// `void agc_rt_release(DLTensor*)`.
    pub release: FunctionValue<'ctx>,
    /// `void agc_rt_run(void (*f)(void*), void* env)`: `f(env)` on the large
    /// stack, abandoned if it runs out of memory.
    pub run: FunctionValue<'ctx>,
    /// `void agc_rt_guard(void (*f)(void*), void* env)`: `f(env)` on the
    /// current stack, abandoned if it runs out of memory.
    pub guard: FunctionValue<'ctx>,
    /// `void agc_rt_set_num_threads(int32_t n)`.
    pub set_num_threads: FunctionValue<'ctx>,
    /// `int32_t agc_rt_cpu_level(void)`: the running CPU's x86-64 level.
    pub cpu_level: FunctionValue<'ctx>,
    /// The variants of the kernels ([`crate::multiversion`]), best first,
    /// among which trampolines choose by the CPU's level; none where the
    /// kernels are compiled once.
    pub variants: &'static [Variant],
}

impl<'ctx> RuntimeFns<'ctx> {
    fn declare(ctx: &'ctx Context, m: &Module<'ctx>, variants: &'static [Variant]) -> Self {
        let ptr = ctx.ptr_type(AddressSpace::default());
        let i32t = ctx.i32_type();
        let ext = Some(Linkage::External);
        RuntimeFns {
            import_args: m.add_function(
                "agc_rt_import_args",
                i32t.fn_type(&[ptr.into(); 5], false),
                ext,
            ),
            export_results: m.add_function(
                "agc_rt_export_results",
                i32t.fn_type(&[ptr.into(); 4], false),
                ext,
            ),
            import_into: m.add_function(
                "agc_rt_import_into",
                i32t.fn_type(&[ptr.into(); 5], false),
                ext,
            ),
            finish_into: m.add_function(
                "agc_rt_finish_into",
                i32t.fn_type(&[ptr.into(); 4], false),
                ext,
            ),
            result_shapes: m.add_function(
                "agc_rt_result_shapes",
                i32t.fn_type(&[ptr.into(); 4], false),
                ext,
            ),
            last_error: m.add_function("agc_rt_last_error", ptr.fn_type(&[], false), ext),
            release: m.add_function(
                "agc_rt_release",
                ctx.void_type().fn_type(&[ptr.into()], false),
                ext,
            ),
            run: m.add_function(
                "agc_rt_run",
                ctx.void_type().fn_type(&[ptr.into(), ptr.into()], false),
                ext,
            ),
            guard: m.add_function(
                "agc_rt_guard",
                ctx.void_type().fn_type(&[ptr.into(), ptr.into()], false),
                ext,
            ),
            set_num_threads: m.add_function(
                "agc_rt_set_num_threads",
                ctx.void_type().fn_type(&[i32t.into()], false),
                ext,
            ),
            cpu_level: m.add_function("agc_rt_cpu_level", i32t.fn_type(&[], false), ext),
            variants,
        }
    }
}

/// What a library's code is compiled for: the LLVM features every call
/// checks the CPU for, and the variants of the kernels
/// ([`crate::multiversion`]).
pub struct CpuFeatures<'a> {
    /// The features the library is compiled for.
    pub base: &'a str,
    /// The kernels' variants, best first (none: compiled once).
    pub variants: &'static [Variant],
}

/// Converts an inkwell builder error.
pub(crate) fn builder_err(e: BuilderError) -> BackendError {
    BackendError::Llvm(format!("building host code: {e}"))
}

/// Builds the host module of library `library_name`: the entry points of
/// `sigs` (calling kernel entries that the kernel module defines) and the
/// API functions, `metadata` being the string `<NAME>_metadata()` returns.
pub fn host_module<'ctx>(
    ctx: &'ctx Context,
    library_name: &str,
    sigs: &[ExportSig],
    metadata: &str,
    state: &crate::state::LibraryState,
    cpu_features: &CpuFeatures,
    device: crate::mlir::Device,
) -> Result<Module<'ctx>, BackendError> {
    let m = ctx.create_module(&format!("{library_name}_host"));
    let features = spec::c_string(ctx, &m, "agc.cpu_features", cpu_features.base);
    let device = device::device_spec(ctx, &m, device)?;
    let library = spec::LibraryConsts {
        cpu_features: features,
        device,
    };
    let rt = RuntimeFns::declare(ctx, &m, cpu_features.variants);
    let (cf, state_spec) = if state.context {
        let cf = context::ContextFns::declare(ctx, &m, state)?;
        let spec = context::context_functions(ctx, &m, &cf, library_name, state)?;
        (Some(cf), Some(spec))
    } else {
        (None, None)
    };
    for sig in sigs {
        let spec = spec::func_spec(ctx, &m, sig, state_spec, &library);
        entry::entry_point(ctx, &m, &rt, sig, spec, entry::Entry::Results, cf.as_ref())?;
        entry::entry_point(ctx, &m, &rt, sig, spec, entry::Entry::Into, cf.as_ref())?;
        shapes::result_shapes_entry(ctx, &m, &rt, sig, spec)?;
    }
    api::api_functions(ctx, &m, &rt, library_name, metadata)?;
    m.verify()
        .map_err(|e| BackendError::Llvm(format!("host module: {}", e.to_string_lossy())))?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{signatures, tests::add_bias_module};

    #[test]
    fn host_module_verifies_and_has_the_api() {
        let ctx = Context::create();
        let sigs = signatures(&add_bias_module(), "demo").unwrap();
        let m = host_module(
            &ctx,
            "demo",
            &sigs,
            "{}",
            &Default::default(),
            &CpuFeatures {
                base: "",
                variants: &[],
            },
            crate::mlir::Device::Cpu,
        )
        .unwrap();
        let text = m.print_to_string().to_string();
        assert!(
            text.contains("define i32 @demo_add_bias(ptr %x, ptr %b, ptr %out0)"),
            "{text}"
        );
        assert!(
            text.contains("declare void @_mlir_ciface_agc_impl_add_bias(ptr, ptr, ptr)"),
            "{text}"
        );
        assert!(
            text.contains("define i32 @demo_add_bias_into(ptr %x, ptr %b, ptr %out0)"),
            "{text}"
        );
        assert!(text.contains("call i32 @agc_rt_finish_into("), "{text}");
        assert!(
            text.contains("define i32 @demo_add_bias_result_shapes(ptr %x, ptr %b, ptr %out0)"),
            "{text}"
        );
        for f in [
            "demo_last_error",
            "demo_release",
            "demo_metadata",
            "demo_set_num_threads",
        ] {
            assert!(
                m.get_function(f)
                    .is_some_and(|f| f.count_basic_blocks() > 0),
                "{f}"
            );
        }
    }
}
