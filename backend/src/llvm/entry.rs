//! The C entry points of an export that run its kernel:
//!
//! ```c
//! int f(const DLTensor* x, const DLTensor* b, DLTensor** out0) {
//!     const DLTensor* args[] = {x, b};  DLTensor** outs[] = {out0};
//!     int64_t descs[...], ret[...] = {0}, syms[...];
//!     int st = agc_rt_import_args(&spec_f, args, outs, descs, syms);
//!     if (st) return st;
//!     _mlir_ciface_agc_impl_f(ret, &descs[0], &descs[7]);
//!     return agc_rt_export_results(&spec_f, ret, descs, outs);
//! }
//! ```
//!
//! and `f_into(const DLTensor* x, const DLTensor* b, DLTensor* out0)`, the
//! same with `agc_rt_import_into` and `agc_rt_finish_into` (see [`Entry`]).

use super::context::ContextFns;
use super::{builder_err, RuntimeFns};

/// The runtime's `INVALID_ARGUMENT` status (a call on something that is no live context).
const INVALID_ARGUMENT: u64 = 1;
use crate::signature::ExportSig;
use crate::BackendError;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

/// Words of a rank-`r` memref descriptor (`allocated`, `aligned`, `offset`, sizes, strides).
fn descriptor_words(rank: usize) -> u32 {
    (3 + 2 * rank) as u32
}

/// Which entry point running the kernel is emitted. Both take the
/// arguments and then one pointer per result, and call the runtime in the
/// same way: `import(spec, args, outs, descs, syms)` before the kernel,
/// `finish(spec, ret, descs, outs)` after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `int <NAME>_f(..., DLTensor** out0, ...)`: results allocated by the
    /// library (`agc_rt_import_args`, `agc_rt_export_results`).
    Results,
    /// `int <NAME>_f_into(..., DLTensor* out0, ...)`: results written into
    /// the caller's tensors (`agc_rt_import_into`, `agc_rt_finish_into`).
    Into,
}

/// Emits entry point `which` of `sig`; `spec` is its `FuncSpec` constant
/// and `cf` the context functions when the library has a context (then the
/// entry point takes the context first, runs the kernel holding it, with
/// the variables after the parameters, and commits the variables assigned).
pub(crate) fn entry_point<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    rt: &RuntimeFns<'ctx>,
    sig: &ExportSig,
    spec: PointerValue<'ctx>,
    which: Entry,
    cf: Option<&ContextFns<'ctx>>,
) -> Result<(), BackendError> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let (i32t, i64t) = (ctx.i32_type(), ctx.i64_type());
    let (np, nr) = (sig.params.len(), sig.results.len());
    let nc = usize::from(cf.is_some());
    let (symbol, import, finish) = match which {
        Entry::Results => (sig.c_name.clone(), rt.import_args, rt.export_results),
        Entry::Into => (sig.into_symbol(), rt.import_into, rt.finish_into),
    };
    let f = m.add_function(
        &symbol,
        i32t.fn_type(&vec![BasicMetadataTypeEnum::from(ptr); nc + np + nr], false),
        Some(Linkage::External),
    );
    let context_name = cf.map(|_| crate::signature::CONTEXT_ARG.to_string());
    let names = context_name
        .into_iter()
        .chain(crate::signature::c_arg_names(sig));
    for (p, name) in f.get_param_iter().zip(names) {
        p.set_name(&name);
    }
    // The kernel entry: (ret*, desc*...) with ret only when there are results.
    let kernel_results = nr + sig.assigns.len();
    let kernel_arity = np + sig.state.len() + usize::from(kernel_results > 0);
    let kernel = m.get_function(&sig.kernel_symbol).unwrap_or_else(|| {
        m.add_function(
            &sig.kernel_symbol,
            ctx.void_type()
                .fn_type(&vec![BasicMetadataTypeEnum::from(ptr); kernel_arity], false),
            Some(Linkage::External),
        )
    });

    let b = ctx.create_builder();
    let entry = ctx.append_basic_block(f, "entry");
    let fail = ctx.append_basic_block(f, "fail");
    let run = ctx.append_basic_block(f, "run");
    b.position_at_end(entry);
    let params: Vec<BasicValueEnum> = f.get_param_iter().collect();
    let context = params
        .first()
        .filter(|_| cf.is_some())
        .map(|c| c.into_pointer_value());
    let args = ptr_array(ctx, &b, &params[nc..nc + np], "args")?;
    let outs = ptr_array(ctx, &b, &params[nc + np..], "outs")?;
    let words = |list: &[crate::signature::TensorSig]| {
        list.iter()
            .map(|t| descriptor_words(t.dims.len()))
            .sum::<u32>()
    };
    let assigned: Vec<crate::signature::TensorSig> =
        sig.assigns.iter().map(|&k| sig.state[k].clone()).collect();
    let desc_words = words(&sig.params) + words(&sig.state);
    let ret_words = words(&sig.results) + words(&assigned);
    let desc_ty = i64t.array_type(desc_words.max(1));
    let descs = b.build_alloca(desc_ty, "descs").map_err(builder_err)?;
    let ret_ty = i64t.array_type(ret_words.max(1));
    let ret = b.build_alloca(ret_ty, "ret").map_err(builder_err)?;
    b.build_store(ret, ret_ty.const_zero())
        .map_err(builder_err)?;
    let syms = syms_scratch(ctx, &b, sig)?;

    let status = b
        .build_call(
            import,
            &[
                spec.into(),
                args.into(),
                outs.into(),
                descs.into(),
                syms.into(),
            ],
            "status",
        )
        .map_err(builder_err)?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| BackendError::Llvm("the runtime's import returns void".into()))?
        .into_int_value();
    let failed = b
        .build_int_compare(IntPredicate::NE, status, i32t.const_zero(), "failed")
        .map_err(builder_err)?;
    b.build_conditional_branch(failed, fail, run)
        .map_err(builder_err)?;
    b.position_at_end(fail);
    b.build_return(Some(&status)).map_err(builder_err)?;

    b.position_at_end(run);
    if let (Some(cf), Some(c)) = (cf, context) {
        // Hold the context: the variables' descriptors, the weight table.
        let table = b
            .build_call(cf.enter, &[c.into(), spec.into(), descs.into()], "table")
            .map_err(builder_err)?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| BackendError::Llvm("agc_rt_context_enter returns void".into()))?
            .into_pointer_value();
        let no_context = b.build_is_null(table, "no_context").map_err(builder_err)?;
        let held = ctx.append_basic_block(f, "held");
        let refused = ctx.append_basic_block(f, "refused");
        b.build_conditional_branch(no_context, refused, held)
            .map_err(builder_err)?;
        b.position_at_end(refused);
        b.build_return(Some(&i32t.const_int(INVALID_ARGUMENT, false)))
            .map_err(builder_err)?;
        b.position_at_end(held);
        cf.set_table(&b, table)?;
    }
    let mut call_args: Vec<BasicMetadataValueEnum> = Vec::new();
    if kernel_results > 0 {
        call_args.push(ret.into());
    }
    let mut offset = 0u32;
    for p in sig.params.iter().chain(&sig.state) {
        // SAFETY: offset within the descriptor buffer sized above.
        let d = unsafe {
            b.build_in_bounds_gep(
                desc_ty,
                descs,
                &[i32t.const_zero(), i32t.const_int(u64::from(offset), false)],
                "",
            )
        }
        .map_err(builder_err)?;
        call_args.push(d.into());
        offset += descriptor_words(p.dims.len());
    }
    if kernel.count_params() as usize != call_args.len() {
        return Err(BackendError::Llvm(format!(
            "kernel entry {} takes {} arguments, the C ABI passes {}",
            sig.kernel_symbol,
            kernel.count_params(),
            call_args.len()
        )));
    }
    // The kernel runs guarded (a call that runs out of memory is
    // abandoned), on the large stack when it calls functions (which may
    // recurse): agc_rt_run or agc_rt_guard(tramp, {args}).
    let tramp = trampoline(ctx, m, rt, sig, kernel, call_args.len())?;
    let env_vals = call_args
        .iter()
        .map(|a| {
            BasicValueEnum::try_from(*a)
                .map_err(|_| BackendError::Llvm("kernel arguments are pointers".into()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let env = ptr_array(ctx, &b, &env_vals, "env")?;
    b.build_call(
        if sig.calls { rt.run } else { rt.guard },
        &[
            tramp.as_global_value().as_pointer_value().into(),
            env.into(),
        ],
        "",
    )
    .map_err(builder_err)?;
    if let (Some(cf), Some(c), false) = (cf, context, sig.assigns.is_empty()) {
        b.build_call(
            cf.commit,
            &[c.into(), spec.into(), ret.into(), descs.into()],
            "",
        )
        .map_err(builder_err)?;
    }
    let status = b
        .build_call(
            finish,
            &[spec.into(), ret.into(), descs.into(), outs.into()],
            "status",
        )
        .map_err(builder_err)?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| BackendError::Llvm("the runtime's finish returns void".into()))?;
    if let (Some(cf), Some(c)) = (cf, context) {
        b.build_call(cf.leave, &[c.into(), spec.into()], "")
            .map_err(builder_err)?;
    }
    b.build_return(Some(&status)).map_err(builder_err)?;
    Ok(())
}

/// An `alloca`'d array of pointers holding `vals` (or NULL when empty), at
/// the builder's position.
pub(crate) fn ptr_array<'ctx>(
    ctx: &'ctx Context,
    b: &Builder<'ctx>,
    vals: &[BasicValueEnum<'ctx>],
    name: &str,
) -> Result<PointerValue<'ctx>, BackendError> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let i32t = ctx.i32_type();
    if vals.is_empty() {
        return Ok(ptr.const_null());
    }
    let arr_ty = ptr.array_type(vals.len() as u32);
    let a = b.build_alloca(arr_ty, name).map_err(builder_err)?;
    for (i, v) in vals.iter().enumerate() {
        // SAFETY: index within the array just allocated.
        let slot = unsafe {
            b.build_in_bounds_gep(
                arr_ty,
                a,
                &[i32t.const_zero(), i32t.const_int(i as u64, false)],
                "",
            )
        }
        .map_err(builder_err)?;
        b.build_store(slot, *v).map_err(builder_err)?;
    }
    Ok(a)
}

/// The `alloca`'d scratch for the values of `sig`'s symbolic dims.
pub(crate) fn syms_scratch<'ctx>(
    ctx: &'ctx Context,
    b: &Builder<'ctx>,
    sig: &ExportSig,
) -> Result<PointerValue<'ctx>, BackendError> {
    let words = (sig.syms.len() as u32).max(1);
    b.build_alloca(ctx.i64_type().array_type(words), "syms")
        .map_err(builder_err)
}

/// `static void tramp(void **env)`: calls `kernel(env[0], .., env[n-1])`,
/// or the best of its variants ([`RuntimeFns::variants`]) the running
/// CPU's level allows; one per export, shared by its entry points.
fn trampoline<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    rt: &RuntimeFns<'ctx>,
    sig: &ExportSig,
    kernel: inkwell::values::FunctionValue<'ctx>,
    n: usize,
) -> Result<inkwell::values::FunctionValue<'ctx>, BackendError> {
    let name = format!("agc_tramp_{}", sig.c_name);
    if let Some(f) = m.get_function(&name) {
        return Ok(f);
    }
    let ptr = ctx.ptr_type(AddressSpace::default());
    let i32t = ctx.i32_type();
    let f = m.add_function(
        &name,
        ctx.void_type().fn_type(&[ptr.into()], false),
        Some(Linkage::Internal),
    );
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    let env = f
        .get_first_param()
        .ok_or_else(|| BackendError::Llvm("trampoline without a parameter".into()))?
        .into_pointer_value();
    let env_ty = ptr.array_type(n.max(1) as u32);
    let mut args: Vec<BasicMetadataValueEnum> = Vec::new();
    for i in 0..n {
        // SAFETY: index within the caller's array of `n` pointers.
        let slot = unsafe {
            b.build_in_bounds_gep(
                env_ty,
                env,
                &[i32t.const_zero(), i32t.const_int(i as u64, false)],
                "",
            )
        }
        .map_err(builder_err)?;
        args.push(b.build_load(ptr, slot, "").map_err(builder_err)?.into());
    }
    if !rt.variants.is_empty() {
        let level = b
            .build_call(rt.cpu_level, &[], "level")
            .map_err(builder_err)?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| BackendError::Llvm("agc_rt_cpu_level returns a value".into()))?
            .into_int_value();
        for v in rt.variants {
            let name = format!("{}{}", kernel.get_name().to_string_lossy(), v.suffix);
            let variant = m.get_function(&name).unwrap_or_else(|| {
                m.add_function(&name, kernel.get_type(), Some(Linkage::External))
            });
            let threshold = i32t.const_int(v.level as u64, true);
            let runs = b
                .build_int_compare(IntPredicate::SGE, level, threshold, "")
                .map_err(builder_err)?;
            let (yes, no) = (
                ctx.append_basic_block(f, v.cpu),
                ctx.append_basic_block(f, "next"),
            );
            b.build_conditional_branch(runs, yes, no)
                .map_err(builder_err)?;
            b.position_at_end(yes);
            b.build_call(variant, &args, "").map_err(builder_err)?;
            b.build_return(None).map_err(builder_err)?;
            b.position_at_end(no);
        }
    }
    b.build_call(kernel, &args, "").map_err(builder_err)?;
    b.build_return(None).map_err(builder_err)?;
    Ok(f)
}
