//! The library-wide C functions: `<NAME>_last_error`, `<NAME>_release`,
//! `<NAME>_metadata` and `<NAME>_set_num_threads`, thin wrappers over the
//! runtime (so that two agc libraries in one program each export their own
//! names).

use super::{builder_err, spec::c_string, RuntimeFns};
use crate::BackendError;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};

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

    let release = m.add_function(
        &format!("{name}_release"),
        ctx.void_type().fn_type(&[ptr.into()], false),
        ext,
    );
    let t = release
        .get_nth_param(0)
        .ok_or_else(|| BackendError::Llvm("release has no parameter".into()))?;
    t.set_name("tensor");
    b.position_at_end(ctx.append_basic_block(release, "entry"));
    b.build_call(rt.release, &[t.into()], "")
        .map_err(builder_err)?;
    b.build_return(None).map_err(builder_err)?;

    let threads = m.add_function(
        &format!("{name}_set_num_threads"),
        ctx.void_type().fn_type(&[ctx.i32_type().into()], false),
        ext,
    );
    let n = threads
        .get_nth_param(0)
        .ok_or_else(|| BackendError::Llvm("set_num_threads has no parameter".into()))?;
    n.set_name("n");
    b.position_at_end(ctx.append_basic_block(threads, "entry"));
    b.build_call(rt.set_num_threads, &[n.into()], "")
        .map_err(builder_err)?;
    b.build_return(None).map_err(builder_err)?;

    let meta = m.add_function(&format!("{name}_metadata"), ptr.fn_type(&[], false), ext);
    b.position_at_end(ctx.append_basic_block(meta, "entry"));
    let text = c_string(ctx, m, "agc.metadata", metadata);
    b.build_return(Some(&text)).map_err(builder_err)?;
    Ok(())
}
