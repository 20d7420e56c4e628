//! The library-wide C functions: `<NAME>_last_error`, `<NAME>_release`,
//! `<NAME>_metadata` and `<NAME>_set_num_threads`, thin wrappers over the
//! runtime (so that two agc libraries in one program each export their own
//! names).

use super::{builder_err, spec::c_string, RuntimeFns};
use crate::BackendError;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::FunctionValue;

/// Emits the API functions of library `name`.
pub(crate) fn api_functions<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    rt: &RuntimeFns<'ctx>,
    name: &str,
    metadata: &str,
) -> Result<(), BackendError> {
    let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
    let b = ctx.create_builder();
    let ext = Some(Linkage::External);

    let last_error = m.add_function(&format!("{name}_last_error"), ptr.fn_type(&[], false), ext);
    b.position_at_end(ctx.append_basic_block(last_error, "entry"));
    let msg = b
        .build_call(rt.last_error, &[], "msg")
        .map_err(builder_err)?
        .try_as_basic_value()
        .basic();
    let msg = msg.ok_or_else(|| BackendError::Llvm("agc_rt_last_error returns void".into()))?;
    b.build_return(Some(&msg)).map_err(builder_err)?;

    let tensor = ptr.into();
    forward_void(
        ctx,
        m,
        &format!("{name}_release"),
        rt.release,
        tensor,
        "tensor",
    )?;
    let n = ctx.i32_type().into();
    forward_void(
        ctx,
        m,
        &format!("{name}_set_num_threads"),
        rt.set_num_threads,
        n,
        "n",
    )?;

    let meta = m.add_function(&format!("{name}_metadata"), ptr.fn_type(&[], false), ext);
    b.position_at_end(ctx.append_basic_block(meta, "entry"));
    let text = c_string(ctx, m, "agc.metadata", metadata);
    b.build_return(Some(&text)).map_err(builder_err)?;
    Ok(())
}

/// Emits `void <symbol>(<param> <param_name>)`, which calls the runtime's
/// `target` with its parameter.
fn forward_void<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    symbol: &str,
    target: FunctionValue<'ctx>,
    param: BasicMetadataTypeEnum<'ctx>,
    param_name: &str,
) -> Result<(), BackendError> {
    let f = m.add_function(
        symbol,
        ctx.void_type().fn_type(&[param], false),
        Some(Linkage::External),
    );
    let p = f
        .get_nth_param(0)
        .ok_or_else(|| BackendError::Llvm(format!("{symbol} has no parameter")))?;
    p.set_name(param_name);
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    b.build_call(target, &[p.into()], "").map_err(builder_err)?;
    b.build_return(None).map_err(builder_err)?;
    Ok(())
}
