//! What LLVM may assume about the runtime's allocator, stated on its
//! declarations before the linked module is optimised.
//!
//! Generated code allocates every buffer through
//! `_mlir_memref_to_llvm_alloc`/`_aligned_alloc` and frees it through
//! `_mlir_memref_to_llvm_free` (`agc_runtime::alloc`). To LLVM those are
//! opaque calls, so a loop that writes a fresh buffer while reading others
//! is vectorised only behind run-time overlap checks, and not at all when it
//! writes several buffers ("too many memory checks"). The runtime's contract
//! is `malloc`'s: a returned block overlaps no live object and is aligned to
//! [`PAYLOAD_ALIGN`] bytes; freeing keeps no pointer the caller can see. The
//! attributes below say exactly that: `noalias` and `align` on the results,
//! `captures(none)` on the pointer given to free.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;

/// The alignment of every payload the runtime hands out
/// (`agc_runtime::alloc::ALIGN`).
pub const PAYLOAD_ALIGN: u64 = 64;

/// The allocation entry points generated code calls.
const ALLOCATORS: [&str; 2] = [
    "_mlir_memref_to_llvm_alloc",
    "_mlir_memref_to_llvm_aligned_alloc",
];

/// The release entry point generated code calls.
const RELEASE: &str = "_mlir_memref_to_llvm_free";

/// Adds the allocator's guarantees to its declarations in `m` (those it
/// does not declare are skipped).
pub fn annotate(m: &Module) {
    let ctx = m.get_context();
    let attr = |name: &str, value: u64| {
        ctx.create_enum_attribute(Attribute::get_named_enum_kind_id(name), value)
    };
    for name in ALLOCATORS {
        if let Some(f) = m.get_function(name) {
            f.add_attribute(AttributeLoc::Return, attr("noalias", 0));
            f.add_attribute(AttributeLoc::Return, attr("align", PAYLOAD_ALIGN));
        }
    }
    if let Some(f) = m.get_function(RELEASE) {
        // `captures(none)`: the capture-info encoding of "no components".
        f.add_attribute(AttributeLoc::Param(0), attr("captures", 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    #[test]
    fn declarations_get_the_allocator_contract() {
        let ctx = Context::create();
        let m = ctx.create_module("m");
        let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
        let i64t = ctx.i64_type();
        m.add_function(ALLOCATORS[0], ptr.fn_type(&[i64t.into()], false), None);
        m.add_function(RELEASE, ctx.void_type().fn_type(&[ptr.into()], false), None);
        annotate(&m);
        let text = m.print_to_string().to_string();
        assert!(
            text.contains("declare noalias align 64 ptr @_mlir_memref_to_llvm_alloc(i64)"),
            "{text}"
        );
        assert!(
            text.contains("declare void @_mlir_memref_to_llvm_free(ptr captures(none))"),
            "{text}"
        );
    }
}
