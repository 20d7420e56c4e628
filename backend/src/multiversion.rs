//! An AVX-512 variant of the kernels, chosen at run time.
//!
//! By default a CPU library is compiled for the build machine without
//! AVX-512 ([`crate::object`]), so that it runs on every machine with the
//! build machine's AVX2 generation and under valgrind. Where that leaves
//! AVX-512 unused on a machine that has it, the kernel module is compiled
//! twice: once as it is, and once as a copy whose functions and globals
//! carry [`SUFFIX`] and whose functions are compiled with the x86-64-v4
//! AVX-512 features on (LLVM's per-function `target-features`). Each
//! export's trampoline asks the runtime once per process whether the
//! running CPU has those features (`agc_rt_cpu_supports`, which honours
//! `AGC_CPU_MASK`) and calls the variant it may run.
//!
//! Only the default target gets the variant (an explicit `--target-cpu`,
//! `--target-features` or `AGC_TARGET_CPU` is taken as asked), only on
//! x86-64, with optimisation on, and only for kernel modules of at most
//! [`MAX_INSTRUCTIONS`] LLVM instructions: the copy doubles the optimiser's
//! and code generator's work, which a large straight-line model (where
//! wider vectors gain little) should not pay.

use inkwell::attributes::AttributeLoc;
use inkwell::module::Module;
use inkwell::values::FunctionValue;

/// The suffix of the AVX-512 variant's functions and globals.
pub const SUFFIX: &str = "__avx512";

/// Kernel modules above this many LLVM instructions get no variant.
pub const MAX_INSTRUCTIONS: usize = 200_000;

/// The AVX-512 features of the x86-64-v4 level, turned on in the variant.
const V4_FEATURES: [&str; 5] = ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];

/// The variant's feature string for a library whose code is compiled with
/// `base` (an LLVM feature string): `base` with the x86-64-v4 AVX-512
/// features (and `evex512`, where `base` names it) turned on; `None` where
/// `base` already has AVX-512F or is not an x86-64 string.
pub fn wide_features(base: &str) -> Option<String> {
    let names: Vec<&str> = base.split(',').filter(|f| !f.is_empty()).collect();
    if names.contains(&"+avx512f") || !names.contains(&"+avx2") {
        return None;
    }
    let on = |f: &str| V4_FEATURES.contains(&f) || f == "evex512";
    let mut out: Vec<String> = names
        .iter()
        .map(|f| match f.strip_prefix('-') {
            Some(name) if on(name) => format!("+{name}"),
            _ => f.to_string(),
        })
        .collect();
    for f in V4_FEATURES {
        if !names.iter().any(|n| n.len() > 1 && &n[1..] == f) {
            out.push(format!("+{f}"));
        }
    }
    Some(out.join(","))
}

/// LLVM instructions in the functions of `m`.
pub fn instruction_count(m: &Module) -> usize {
    m.get_functions()
        .flat_map(|f| f.get_basic_blocks())
        .map(|bb| bb.get_instructions().count())
        .sum()
}

/// The variant of `kernels`: a copy (in the same context) in which every
/// defined function and global is renamed with [`SUFFIX`] (uses follow)
/// and every function compiled for `cpu` with `features`.
pub fn wide_copy<'ctx>(kernels: &Module<'ctx>, cpu: &str, features: &str) -> Module<'ctx> {
    let copy = kernels.clone();
    let ctx = copy.get_context();
    for f in copy.get_functions() {
        if f.count_basic_blocks() == 0 {
            continue;
        }
        rename_function(f);
        for (key, value) in [("target-cpu", cpu), ("target-features", features)] {
            f.remove_string_attribute(AttributeLoc::Function, key);
            f.add_attribute(
                AttributeLoc::Function,
                ctx.create_string_attribute(key, value),
            );
        }
    }
    for g in copy.get_globals() {
        if !g.is_declaration() {
            let name = format!("{}{SUFFIX}", g.get_name().to_string_lossy());
            g.set_name(&name);
        }
    }
    copy
}

/// Appends [`SUFFIX`] to `f`'s name.
fn rename_function(f: FunctionValue) {
    let name = format!("{}{SUFFIX}", f.get_name().to_string_lossy());
    f.as_global_value().set_name(&name);
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    #[test]
    fn the_variant_turns_on_the_v4_features_only() {
        assert_eq!(
            wide_features("+sse2,+avx2,-avx512f,-avx512vnni,-evex512,+fma").as_deref(),
            Some("+sse2,+avx2,+avx512f,-avx512vnni,+evex512,+fma,+avx512bw,+avx512cd,+avx512dq,+avx512vl")
        );
        assert_eq!(wide_features("+avx2,+avx512f"), None);
        assert_eq!(wide_features("+neon"), None);
    }

    #[test]
    fn the_copy_renames_definitions_and_sets_the_features() {
        let ctx = Context::create();
        let m = ctx.create_module("k");
        let i32t = ctx.i32_type();
        let callee = m.add_function("callee", i32t.fn_type(&[], false), None);
        let b = ctx.create_builder();
        b.position_at_end(ctx.append_basic_block(callee, "entry"));
        b.build_return(Some(&i32t.const_int(7, false))).unwrap();
        let caller = m.add_function("caller", i32t.fn_type(&[], false), None);
        b.position_at_end(ctx.append_basic_block(caller, "entry"));
        let v = b.build_call(callee, &[], "").unwrap();
        let v = v.try_as_basic_value().basic().unwrap();
        b.build_return(Some(&v)).unwrap();
        m.add_function("extern_fn", i32t.fn_type(&[], false), None);
        let copy = wide_copy(&m, "znver4", "+avx2,+avx512f");
        let text = copy.print_to_string().to_string();
        assert!(text.contains("@caller__avx512()"), "{text}");
        assert!(text.contains("call i32 @callee__avx512()"), "{text}");
        assert!(text.contains("declare i32 @extern_fn()"), "{text}");
        assert!(
            text.contains("\"target-features\"=\"+avx2,+avx512f\""),
            "{text}"
        );
        assert!(
            m.get_function("caller").is_some(),
            "the original is unchanged"
        );
        assert_eq!(instruction_count(&m), 3);
    }
}
