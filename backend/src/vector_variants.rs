//! The vector variants of the out-of-line approximations
//! ([`crate::mlir::Approximation`]) made known to LLVM's loop vectoriser,
//! before the linked modules are optimised.
//!
//! Each call of a scalar approximation names its variants in the
//! `vector-function-abi-variant` attribute (the vector function ABI's
//! `_ZGV_LLVM_N<lanes>v_<scalar>(<variant>)` form), so that a vectorised
//! loop calls the variant of its width. The functions are `noinline` (an
//! inlined call is no longer a call the vectoriser can widen, and inlining
//! copies is what the out-of-line form avoids) and have no memory effects;
//! the variants of a called function stay in `llvm.compiler.used`, since no
//! call names them until the vectoriser makes one.

use crate::mlir::{vector_symbol, Approximation, VECTOR_LANES};
use crate::multiversion::VARIANTS;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::{Linkage, Module};
use inkwell::values::{AnyValueEnum, BasicValue, BasicValueEnum, CallSiteValue, FunctionValue};
use inkwell::AddressSpace;

/// Annotates the approximations `m` defines and their calls (under the
/// names of the baseline and of every kernel variant); returns how many
/// scalar functions are called.
pub fn annotate(m: &Module) -> usize {
    let mut kept = Vec::new();
    let mut called = 0;
    let suffixes = std::iter::once("").chain(VARIANTS.iter().map(|v| v.suffix));
    for suffix in suffixes {
        for which in Approximation::ALL {
            let scalar = format!("{}{suffix}", which.symbol());
            let Some(f) = m.get_function(&scalar) else {
                continue;
            };
            let variants: Vec<(u32, FunctionValue)> = VECTOR_LANES
                .iter()
                .filter_map(|&n| {
                    let name = format!("{}{suffix}", vector_symbol(which.symbol(), n));
                    Some((n, m.get_function(&name)?))
                })
                .collect();
            for g in std::iter::once(f).chain(variants.iter().map(|&(_, v)| v)) {
                set_pure_and_noinline(m, g);
            }
            let mapping = variants
                .iter()
                .map(|(n, v)| {
                    let name = v.get_name().to_string_lossy();
                    format!("_ZGV_LLVM_N{n}v_{scalar}({name})")
                })
                .collect::<Vec<_>>()
                .join(",");
            if name_variants_at_calls(m, f, &mapping) > 0 {
                called += 1;
                kept.extend(variants.iter().map(|&(_, v)| v));
            }
        }
    }
    keep(m, &kept);
    called
}

/// Marks `f` `noinline` and free of memory effects and unwinding.
fn set_pure_and_noinline(m: &Module, f: FunctionValue) {
    let ctx = m.get_context();
    let attr = |name: &str, value: u64| {
        ctx.create_enum_attribute(Attribute::get_named_enum_kind_id(name), value)
    };
    // `memory(none)` is the memory attribute with no effect bits.
    for (name, value) in [
        ("noinline", 0),
        ("nounwind", 0),
        ("willreturn", 0),
        ("nosync", 0),
        ("nofree", 0),
        ("memory", 0),
    ] {
        f.add_attribute(AttributeLoc::Function, attr(name, value));
    }
}

/// Gives every call of `f` in `m` the variant `mapping`; returns how many.
/// Follows `f`'s use list (not every instruction of the module).
fn name_variants_at_calls(m: &Module, f: FunctionValue, mapping: &str) -> usize {
    let ctx = m.get_context();
    let mut calls = 0;
    let mut next = f.as_global_value().as_pointer_value().get_first_use();
    while let Some(u) = next {
        next = u.get_next_use();
        // A call's user value is typed by its result (a float for the
        // approximations), not an `InstructionValue`.
        let inst = match u.get_user() {
            AnyValueEnum::InstructionValue(i) => Some(i),
            other => BasicValueEnum::try_from(other)
                .ok()
                .and_then(|b| b.as_instruction_value()),
        };
        let Some(inst) = inst else {
            continue;
        };
        let Ok(call) = CallSiteValue::try_from(inst) else {
            continue;
        };
        if call.get_called_fn_value() == Some(f) {
            call.add_attribute(
                AttributeLoc::Function,
                ctx.create_string_attribute("vector-function-abi-variant", mapping),
            );
            calls += 1;
        }
    }
    calls
}

/// Adds `fs` to `llvm.compiler.used` (made here: no other code of the
/// module uses it).
fn keep(m: &Module, fs: &[FunctionValue]) {
    if fs.is_empty() {
        return;
    }
    let ptr = m.get_context().ptr_type(AddressSpace::default());
    let used = m.add_global(ptr.array_type(fs.len() as u32), None, "llvm.compiler.used");
    used.set_linkage(Linkage::Appending);
    used.set_section(Some("llvm.metadata"));
    let ptrs: Vec<_> = fs
        .iter()
        .map(|f| f.as_global_value().as_pointer_value())
        .collect();
    used.set_initializer(&ptr.const_array(&ptrs));
}

#[cfg(test)]
mod tests {
    use crate::mlir::{lower_to_llvm, Device};
    use inkwell::context::Context;
    use inkwell::passes::PassBuilderOptions;

    /// `tanh` over a vector through the out-of-line approximation, as the
    /// emitter writes it for a module with many approximations.
    fn module_text() -> String {
        format!(
            "module {{
func.func @f(%a: tensor<1000xf32>) -> tensor<1000xf32> {{
  %e = tensor.empty() : tensor<1000xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} ins(%a : tensor<1000xf32>) outs(%e : tensor<1000xf32>) {{
  ^bb0(%x: f32, %o: f32):
    %y = func.call @agc_approx_tanh_f32(%x) : (f32) -> f32
    linalg.yield %y : f32
  }} -> tensor<1000xf32>
  return %r : tensor<1000xf32>
}}
{}}}",
            crate::mlir::approx_definitions()
        )
    }

    #[test]
    fn vectorised_loops_call_the_variant_of_their_width() {
        let ctx = Context::create();
        let m = lower_to_llvm(&module_text(), 1, Device::Cpu, &ctx).unwrap();
        // As in a library: nothing but the entry point is visible.
        for f in m.get_functions().filter(|f| f.count_basic_blocks() > 0) {
            if f.get_name().to_bytes() != b"f" && f.get_name().to_bytes() != b"_mlir_ciface_f" {
                f.set_linkage(inkwell::module::Linkage::Internal);
            }
        }
        assert_eq!(super::annotate(&m), 1, "only tanh is called");
        let before = m.print_to_string().to_string();
        assert!(
            before.contains("_ZGV_LLVM_N16v_agc_approx_tanh_f32(agc_approx_tanh_f32_v16)"),
            "{before}"
        );
        assert!(before.contains("@llvm.compiler.used"), "{before}");
        for f in m.get_functions() {
            f.add_attribute(
                inkwell::attributes::AttributeLoc::Function,
                ctx.create_string_attribute("target-cpu", "x86-64-v4"),
            );
        }
        let tm = crate::object::host_target_machine(2, Some("x86-64-v4"), Some("")).unwrap();
        m.run_passes("default<O2>", &tm, PassBuilderOptions::create())
            .unwrap();
        let after = m.print_to_string().to_string();
        assert!(
            after.contains("call <16 x float> @agc_approx_tanh_f32_v16("),
            "{after}"
        );
        // The scalar function serves the remainder; exp and log, never
        // called, are gone with their variants (internal, and not kept).
        assert!(
            after
                .lines()
                .any(|l| l.contains(" call ") && l.contains("float @agc_approx_tanh_f32(float")),
            "{after}"
        );
        assert!(!after.contains("agc_approx_exp_f32_v16"), "{after}");
    }
}
