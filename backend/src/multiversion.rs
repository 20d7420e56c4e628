//! Variants of the kernels for newer x86-64 levels, chosen at run time.
//!
//! By default a CPU library runs on any CPU of its architecture and uses
//! the best instruction set the running CPU has (CONTRACT.md, section 2).
//! On x86-64 the code is compiled for the baseline (`x86-64`: SSE2), and the
//! kernel module is compiled again for each level of [`VARIANTS`]: a copy
//! whose functions and globals carry the variant's suffix and whose
//! functions are compiled for the level's CPU (LLVM's per-function
//! `target-cpu`, tuned for the build machine's CPU). Each export's
//! trampoline asks the runtime for the running CPU's level once per process
//! (`agc_rt_cpu_level`, which honours `AGC_CPU_MASK`) and calls the best
//! variant it may run. Each copy is a module of its own, optimised and
//! compiled on a thread of its own beside the host module
//! ([`crate::codegen`]).
//!
//! Only the default target gets variants (an explicit `--target-cpu`,
//! `--target-features` or `AGC_TARGET_CPU` is taken as asked), only on
//! x86-64, with optimisation on, and only for kernel modules of at most
//! [`MAX_INSTRUCTIONS`] LLVM instructions: each copy adds the optimiser's
//! and code generator's work (a 22k-instruction TreeLSTM gradient builds in
//! 2.8 s instead of 1.25 s; a 166k-instruction model took 63 s instead of
//! 21 s), which a large model should not pay. Such a module is compiled
//! once, for the build machine's CPU without AVX-512.

use inkwell::attributes::AttributeLoc;
use inkwell::module::Module;

/// One variant of the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The x86-64 level (`agc_rt_cpu_level` answers at least this for a
    /// CPU that runs it).
    pub level: i32,
    /// The LLVM CPU the variant is compiled for.
    pub cpu: &'static str,
    /// The suffix of its functions and globals.
    pub suffix: &'static str,
}

/// The variants, best first: x86-64-v4 (AVX-512 F/BW/CD/DQ/VL) and
/// x86-64-v3 (AVX2, FMA, BMI2).
pub const VARIANTS: [Variant; 2] = [
    Variant {
        level: 4,
        cpu: "x86-64-v4",
        suffix: "__v4",
    },
    Variant {
        level: 3,
        cpu: "x86-64-v3",
        suffix: "__v3",
    },
];

/// The CPU the code outside the variants is compiled for.
pub const BASELINE_CPU: &str = "x86-64";

/// Kernel modules above this many LLVM instructions get no variants.
pub const MAX_INSTRUCTIONS: usize = 30_000;

/// LLVM instructions in the functions of `m`.
pub fn instruction_count(m: &Module) -> usize {
    m.get_functions()
        .flat_map(|f| f.get_basic_blocks())
        .map(|bb| bb.get_instructions().count())
        .sum()
}

/// Variant `v` of `kernels`: a copy (in the same context) in which every
/// defined function and global is renamed with `v.suffix` (uses follow)
/// and every function is compiled for `v.cpu`, tuned for `tune`.
pub fn copy<'ctx>(kernels: &Module<'ctx>, v: &Variant, tune: &str) -> Module<'ctx> {
    let copy = kernels.clone();
    copy.set_name(&format!(
        "{}{}",
        kernels.get_name().to_string_lossy(),
        v.suffix
    ));
    let ctx = copy.get_context();
    for f in copy.get_functions() {
        if f.count_basic_blocks() == 0 {
            continue;
        }
        let name = format!("{}{}", f.get_name().to_string_lossy(), v.suffix);
        f.as_global_value().set_name(&name);
        f.remove_string_attribute(AttributeLoc::Function, "target-features");
        for (key, value) in [("target-cpu", v.cpu), ("tune-cpu", tune)] {
            f.remove_string_attribute(AttributeLoc::Function, key);
            f.add_attribute(
                AttributeLoc::Function,
                ctx.create_string_attribute(key, value),
            );
        }
    }
    for g in copy.get_globals() {
        if !g.is_declaration() {
            let name = format!("{}{}", g.get_name().to_string_lossy(), v.suffix);
            g.set_name(&name);
        }
    }
    copy
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    #[test]
    fn a_copy_renames_definitions_and_sets_the_cpu() {
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
        let copy = copy(&m, &VARIANTS[0], "znver5");
        let text = copy.print_to_string().to_string();
        assert!(text.contains("@caller__v4()"), "{text}");
        assert!(text.contains("call i32 @callee__v4()"), "{text}");
        assert!(text.contains("declare i32 @extern_fn()"), "{text}");
        assert!(text.contains("\"target-cpu\"=\"x86-64-v4\""), "{text}");
        assert!(text.contains("\"tune-cpu\"=\"znver5\""), "{text}");
        assert!(
            m.get_function("caller").is_some(),
            "the original is unchanged"
        );
        assert_eq!(instruction_count(&m), 3);
    }

    #[test]
    fn variants_come_best_first() {
        assert!(VARIANTS.windows(2).all(|w| w[0].level > w[1].level));
    }
}
