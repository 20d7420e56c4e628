//! What LLVM may assume about the tensor parameters of generated
//! functions, stated on them before the linked module is optimised.
//!
//! A generated function (`agc_impl_*`, its CPU-level copies and its
//! continuation entries) receives each tensor as a memref descriptor whose
//! allocated and aligned addresses are `ptr` parameters. It only reads
//! them: a parameter is a `bufferization.writable = false` tensor or a view
//! read through `to_tensor restrict` (`mlir::function`), and nothing else
//! writes that buffer while the function runs: a buffer is written in
//! place only by the frame that owns it once its value is dead, and the
//! value a parameter holds is alive in the caller (continuations read
//! their captures through views and write none of them, `mlir::continuation`).
//!
//! To LLVM, though, a loaded or passed-in address may point anywhere,
//! including into a buffer the function has just allocated and returns:
//! after inlining into a continuation entry, a fused elementwise loop over
//! 18 such inputs and 16 fresh outputs (a TreeLSTM cell) needed hundreds of
//! run-time overlap checks and stayed scalar. `noalias` on the parameters
//! states the guarantee above: memory read through a parameter is not
//! written through any other pointer while the function runs (LLVM's
//! `noalias` constrains only memory that is modified, so two parameters
//! viewing one buffer are fine). Inlining keeps it as scoped alias
//! metadata.

use crate::mlir::IMPL_PREFIX;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::types::BasicMetadataTypeEnum;

/// Adds `noalias` to every pointer parameter of the generated functions
/// defined in `m`; returns how many parameters it marked.
pub fn annotate(m: &Module) -> usize {
    let ctx = m.get_context();
    let noalias = ctx.create_enum_attribute(Attribute::get_named_enum_kind_id("noalias"), 0);
    let mut marked = 0;
    for f in m.get_functions() {
        let generated = f
            .get_name()
            .to_str()
            .is_ok_and(|n| n.starts_with(IMPL_PREFIX));
        if !generated || f.count_basic_blocks() == 0 {
            continue;
        }
        let params = f.get_type().get_param_types();
        for (i, ty) in params.iter().enumerate() {
            if matches!(ty, BasicMetadataTypeEnum::PointerType(_)) {
                f.add_attribute(AttributeLoc::Param(i as u32), noalias);
                marked += 1;
            }
        }
    }
    marked
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    #[test]
    fn pointer_parameters_of_generated_definitions_become_noalias() {
        let ctx = Context::create();
        let m = ctx.create_module("m");
        let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
        let i64t = ctx.i64_type();
        let ty = ctx
            .void_type()
            .fn_type(&[i64t.into(), ptr.into(), ptr.into()], false);
        for name in ["agc_impl_f__0", "helper", "agc_impl_declared"] {
            m.add_function(name, ty, None);
        }
        for name in ["agc_impl_f__0", "helper"] {
            let f = m.get_function(name).unwrap();
            let b = ctx.create_builder();
            b.position_at_end(ctx.append_basic_block(f, "entry"));
            b.build_return(None).unwrap();
        }
        assert_eq!(annotate(&m), 2);
        let text = m.print_to_string().to_string();
        assert!(
            text.contains("define void @agc_impl_f__0(i64 %0, ptr noalias %1, ptr noalias %2)"),
            "{text}"
        );
        assert!(
            text.contains("define void @helper(i64 %0, ptr %1, ptr %2)"),
            "{text}"
        );
        assert!(
            text.contains("declare void @agc_impl_declared(i64, ptr, ptr)"),
            "{text}"
        );
    }
}
