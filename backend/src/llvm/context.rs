//! The context of a library that has one ([`crate::state::LibraryState`]):
//! its `StateSpec` constant (`runtime/src/context.rs`), the thread-local
//! weight table pointer the kernels read external weights through, the
//! initialiser entry, `<NAME>_create`, `_destroy`, `_save`, `_restore`,
//! and the runtime calls an entry point makes around its kernel
//! ([`ContextFns`]).
//!
//! ```c
//! struct StateSpec { const char* library; int64_t nweights; const TensorSpec* weights;
//!                    int64_t nvars; const TensorSpec* vars;
//!                    void (*init)(const void* const* table, int64_t* ret);
//!                    int64_t npacked; const int64_t* packed; };  /* {weight, transposed} pairs */
//! ```

use super::builder_err;
use super::spec::{c_string, private_const, tensor_specs};
use crate::mlir::weight::TLS_SYMBOL;
use crate::signature::TensorSig;
use crate::state::LibraryState;
use crate::BackendError;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, FunctionValue, GlobalValue, PointerValue};
use inkwell::AddressSpace;

/// The runtime's context functions, and the weight table pointer.
pub(crate) struct ContextFns<'ctx> {
    /// `const void* const* agc_rt_context_enter(ctx, spec, descs)`.
    pub enter: FunctionValue<'ctx>,
    /// `int32_t agc_rt_context_commit(ctx, spec, ret, descs)`.
    pub commit: FunctionValue<'ctx>,
    /// `void agc_rt_context_leave(ctx, spec)`.
    pub leave: FunctionValue<'ctx>,
    /// The thread-local weight table pointer and `llvm.threadlocal.address`
    /// (external weights only).
    tls: Option<(GlobalValue<'ctx>, FunctionValue<'ctx>)>,
}

impl<'ctx> ContextFns<'ctx> {
    /// Declares the runtime's context functions in `m` (and defines the
    /// thread-local table pointer when the weights are external).
    pub(crate) fn declare(
        ctx: &'ctx Context,
        m: &Module<'ctx>,
        state: &LibraryState,
    ) -> Result<Self, BackendError> {
        let ptr = ctx.ptr_type(AddressSpace::default());
        let i32t = ctx.i32_type();
        let ext = Some(Linkage::External);
        let tls = if state.external_weights() {
            let g = m.add_global(ptr, None, TLS_SYMBOL);
            g.set_thread_local(true);
            g.set_initializer(&ptr.const_null());
            let address = Intrinsic::find("llvm.threadlocal.address")
                .and_then(|i| i.get_declaration(m, &[ptr.into()]))
                .ok_or_else(|| BackendError::Llvm("no llvm.threadlocal.address".into()))?;
            Some((g, address))
        } else {
            None
        };
        Ok(ContextFns {
            enter: m.add_function(
                "agc_rt_context_enter",
                ptr.fn_type(&[ptr.into(); 3], false),
                ext,
            ),
            commit: m.add_function(
                "agc_rt_context_commit",
                i32t.fn_type(&[ptr.into(); 4], false),
                ext,
            ),
            leave: m.add_function(
                "agc_rt_context_leave",
                ctx.void_type().fn_type(&[ptr.into(); 2], false),
                ext,
            ),
            tls,
        })
    }

    /// Points this thread's weight table at `table` (nothing without external weights).
    pub(crate) fn set_table(
        &self,
        b: &Builder<'ctx>,
        table: PointerValue<'ctx>,
    ) -> Result<(), BackendError> {
        if let Some((g, address)) = self.tls {
            let slot = b
                .build_call(address, &[g.as_pointer_value().into()], "tls")
                .map_err(builder_err)?
                .try_as_basic_value()
                .basic()
                .ok_or_else(|| BackendError::Llvm("llvm.threadlocal.address returns void".into()))?
                .into_pointer_value();
            b.build_store(slot, table).map_err(builder_err)?;
        }
        Ok(())
    }
}

/// Emits the `StateSpec` of `state`, the initialiser entry and the context
/// functions of library `name`; returns the spec (each export's `FuncSpec`
/// points to it: a context is checked to be this library's).
pub(crate) fn context_functions<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    fns: &ContextFns<'ctx>,
    name: &str,
    state: &LibraryState,
) -> Result<PointerValue<'ctx>, BackendError> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let i32t = ctx.i32_type();
    let i64t = ctx.i64_type();
    let no_syms = |_: &str| None;
    let weights: Vec<Option<&TensorSig>> = state.weights.iter().map(Option::as_ref).collect();
    let vars: Vec<Option<&TensorSig>> = state.variables.iter().map(Some).collect();
    let init = match &state.init_kernel {
        Some(kernel) => init_entry(ctx, m, fns, kernel)?
            .as_global_value()
            .as_pointer_value(),
        None => ptr.const_null(),
    };
    let packed = if state.packed.is_empty() {
        ptr.const_null()
    } else {
        let pairs: Vec<_> = state
            .packed
            .iter()
            .flat_map(|p| [u64::from(p.weight), u64::from(p.transposed)])
            .map(|v| i64t.const_int(v, false))
            .collect();
        private_const(m, "agc.state.packed", &i64t.const_array(&pairs)).as_pointer_value()
    };
    let spec = ctx.const_struct(
        &[
            c_string(ctx, m, "agc.state.library", name).into(),
            i64t.const_int(weights.len() as u64, false).into(),
            tensor_specs(ctx, m, &weights, "agc.state.weight", &no_syms).into(),
            i64t.const_int(vars.len() as u64, false).into(),
            tensor_specs(ctx, m, &vars, "agc.state.var", &no_syms).into(),
            init.into(),
            i64t.const_int(state.packed.len() as u64, false).into(),
            packed.into(),
        ],
        false,
    );
    let spec = private_const(m, "agc.state", &spec).as_pointer_value();
    let rt = |fname: &str, ret: Option<inkwell::types::IntType<'ctx>>, arity: usize| {
        let params = vec![BasicMetadataTypeEnum::from(ptr); arity];
        let ty = match ret {
            Some(r) => r.fn_type(&params, false),
            None => ctx.void_type().fn_type(&params, false),
        };
        m.add_function(fname, ty, Some(Linkage::External))
    };
    // (C function, runtime function, returns a status, parameter names); the
    // runtime function takes the library's spec first.
    let forwards = [
        (
            "create",
            rt("agc_rt_context_create", Some(i32t), 3),
            true,
            &["ctx", "weights_path"][..],
        ),
        (
            "destroy",
            rt("agc_rt_context_destroy", None, 2),
            false,
            &["ctx"][..],
        ),
        (
            "save",
            rt("agc_rt_context_save", Some(i32t), 3),
            true,
            &["ctx", "path"][..],
        ),
        (
            "restore",
            rt("agc_rt_context_restore", Some(i32t), 3),
            true,
            &["ctx", "path"][..],
        ),
    ];
    let b = ctx.create_builder();
    for (fname, runtime, status, params) in forwards {
        let types = vec![BasicMetadataTypeEnum::from(ptr); params.len()];
        let ty = if status {
            i32t.fn_type(&types, false)
        } else {
            ctx.void_type().fn_type(&types, false)
        };
        let f = m.add_function(&format!("{name}_{fname}"), ty, Some(Linkage::External));
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        let mut args: Vec<BasicMetadataValueEnum> = vec![spec.into()];
        for (p, pname) in f.get_param_iter().zip(params) {
            p.set_name(pname);
            args.push(p.into());
        }
        let r = b.build_call(runtime, &args, "r").map_err(builder_err)?;
        match r.try_as_basic_value().basic() {
            Some(v) if status => b.build_return(Some(&v)),
            _ => b.build_return(None),
        }
        .map_err(builder_err)?;
    }
    Ok(spec)
}

/// `static void agc_init(const void* const* table, int64_t* ret)`: runs the
/// variables' initialiser kernel with weight table `table`.
fn init_entry<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    fns: &ContextFns<'ctx>,
    kernel: &str,
) -> Result<FunctionValue<'ctx>, BackendError> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let kernel = m.get_function(kernel).unwrap_or_else(|| {
        m.add_function(
            kernel,
            ctx.void_type().fn_type(&[ptr.into()], false),
            Some(Linkage::External),
        )
    });
    let f = m.add_function(
        "agc_init",
        ctx.void_type().fn_type(&[ptr.into(), ptr.into()], false),
        Some(Linkage::Internal),
    );
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    let (table, ret) = match (f.get_nth_param(0), f.get_nth_param(1)) {
        (Some(t), Some(r)) => (t.into_pointer_value(), r),
        _ => return Err(BackendError::Llvm("agc_init without its parameters".into())),
    };
    fns.set_table(&b, table)?;
    b.build_call(kernel, &[ret.into()], "")
        .map_err(builder_err)?;
    b.build_return(None).map_err(builder_err)?;
    Ok(f)
}
