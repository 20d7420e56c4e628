//! The result-shape query of an export, which runs no kernel:
//!
//! ```c
//! int f_result_shapes(const DLTensor* x, const DLTensor* b, int64_t* out0) {
//!     const DLTensor* args[] = {x, b};  int64_t* shapes[] = {out0};
//!     int64_t syms[...];
//!     return agc_rt_result_shapes(&spec_f, args, shapes, syms);
//! }
//! ```

use super::entry::{ptr_array, syms_scratch};
use super::{builder_err, RuntimeFns};
use crate::signature::ExportSig;
use crate::BackendError;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicValueEnum, PointerValue};
use inkwell::AddressSpace;

/// Emits `<NAME>_f_result_shapes` of `sig`; `spec` is its `FuncSpec` constant.
pub(crate) fn result_shapes_entry<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    rt: &RuntimeFns<'ctx>,
    sig: &ExportSig,
    spec: PointerValue<'ctx>,
) -> Result<(), BackendError> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let np = sig.params.len();
    let f = m.add_function(
        &sig.result_shapes_symbol(),
        ctx.i32_type().fn_type(
            &vec![BasicMetadataTypeEnum::from(ptr); np + sig.results.len()],
            false,
        ),
        Some(Linkage::External),
    );
    for (p, name) in f.get_param_iter().zip(crate::signature::c_arg_names(sig)) {
        p.set_name(&name);
    }
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    let params: Vec<BasicValueEnum> = f.get_param_iter().collect();
    let args = ptr_array(ctx, &b, &params[..np], "args")?;
    let shapes = ptr_array(ctx, &b, &params[np..], "shapes")?;
    let syms = syms_scratch(ctx, &b, sig)?;
    let status = b
        .build_call(
            rt.result_shapes,
            &[spec.into(), args.into(), shapes.into(), syms.into()],
            "status",
        )
        .map_err(builder_err)?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| BackendError::Llvm("agc_rt_result_shapes returns void".into()))?;
    b.build_return(Some(&status)).map_err(builder_err)?;
    Ok(())
}
