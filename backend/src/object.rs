//! From LLVM modules to machine code: link the kernel module into the host
//! module, internalize everything but the C API (and what the host and the
//! kernel variants use of each other, hidden), verify, and have
//! [`crate::codegen`] optimise with `default<O{n}>` and write PIC objects
//! for the host CPU, plus assembly and the optimised LLVM IR text on
//! request.
//!
//! Internalizing before the pass pipeline lets LLVM inline kernels into the
//! entry points and drop what is unused; it also keeps kernel symbols out of
//! the library's symbol tables.

use crate::BackendError;
use inkwell::module::{Linkage, Module};
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::GlobalVisibility;
use inkwell::OptimizationLevel;

/// What [`compile`] produced.
#[derive(Debug)]
pub struct Compiled {
    /// The ELF relocatable objects: the host module's, then one per variant.
    pub objects: Vec<Vec<u8>>,
    /// Assembly text, when requested (the modules' in that order).
    pub asm: Option<String>,
    /// Optimised LLVM IR text, when requested (likewise).
    pub llvm_ir: Option<String>,
}

/// An LLVM failure while doing `what`.
pub(crate) fn llvm_err(what: &str, e: impl std::fmt::Display) -> BackendError {
    BackendError::Llvm(format!("{what}: {e}"))
}

/// Environment variable choosing the CPU to compile for:
/// - unset or empty: the build machine's CPU and features, without AVX-512
///   (valgrind cannot run AVX-512 code, and these kernels gain little from it);
/// - `native`: the build machine's CPU with all its features;
/// - an LLVM CPU name such as `x86-64-v3`: that CPU, for libraries that must
///   run on other machines.
pub const TARGET_CPU_ENV: &str = "AGC_TARGET_CPU";

/// Host features with the AVX-512 family (and what needs it) turned off.
fn without_avx512(features: &str) -> String {
    let off = ["+avx512", "+evex512", "+avx10", "+amx"];
    features
        .split(',')
        .map(|f| {
            if off.iter().any(|p| f.starts_with(p)) {
                format!("-{}", &f[1..])
            } else {
                f.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The build machine's CPU name and all its features.
fn native_cpu() -> (String, String) {
    (
        TargetMachine::get_host_cpu_name()
            .to_string_lossy()
            .into_owned(),
        TargetMachine::get_host_cpu_features()
            .to_string_lossy()
            .into_owned(),
    )
}

/// Whether a build with `--target-cpu` `cpu` and `--target-features`
/// `features` targets the default (neither given, [`TARGET_CPU_ENV`]
/// unset or empty).
pub fn default_target(cpu: Option<&str>, features: Option<&str>) -> bool {
    cpu.is_none()
        && features.is_none()
        && std::env::var(TARGET_CPU_ENV).unwrap_or_default().is_empty()
}

/// The (cpu, features) pair `$AGC_TARGET_CPU` asks for.
fn target_cpu() -> (String, String) {
    let (host, features) = native_cpu();
    match std::env::var(TARGET_CPU_ENV).unwrap_or_default().as_str() {
        "" => (host, without_avx512(&features)),
        "native" => (host, features),
        cpu => (cpu.to_string(), String::new()),
    }
}

/// A target machine for the host triple, position-independent code: for
/// CPU `cpu` with `features` where given (`--target-cpu`,
/// `--target-features`; features alone apply to the host CPU), else the
/// CPU [`TARGET_CPU_ENV`] selects.
pub fn host_target_machine(
    opt_level: u8,
    cpu: Option<&str>,
    features: Option<&str>,
) -> Result<TargetMachine, BackendError> {
    Target::initialize_native(&InitializationConfig::default())
        .map_err(|e| llvm_err("initializing the native target", e))?;
    let (cpu, features) = match (cpu, features) {
        (Some("native"), f) => {
            let (host, host_features) = native_cpu();
            (host, f.map_or(host_features, str::to_string))
        }
        (Some(c), f) => (c.to_string(), f.unwrap_or("").to_string()),
        (None, Some(f)) => (
            TargetMachine::get_host_cpu_name()
                .to_string_lossy()
                .into_owned(),
            f.to_string(),
        ),
        (None, None) => target_cpu(),
    };
    tracing::debug!(%cpu, %features, "target CPU");
    target_machine(&cpu, &features, opt_level)
}

/// A target machine for the host triple, position-independent code, CPU
/// `cpu` with `features`, once the native target is initialised (by
/// [`host_target_machine`]; for the threads of [`crate::codegen`]).
pub fn target_machine(
    cpu: &str,
    features: &str,
    opt_level: u8,
) -> Result<TargetMachine, BackendError> {
    let triple = TargetMachine::get_default_triple();
    let target =
        Target::from_triple(&triple).map_err(|e| llvm_err("target", e.to_string_lossy()))?;
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    target
        .create_target_machine(
            &triple,
            cpu,
            features,
            level,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| {
            BackendError::Llvm(format!(
                "no target machine for {}",
                triple.as_str().to_string_lossy()
            ))
        })
}

/// The host's LLVM target triple (`x86_64-pc-linux-gnu`).
pub fn host_triple() -> String {
    TargetMachine::get_default_triple()
        .as_str()
        .to_string_lossy()
        .into_owned()
}

/// Whether triples `a` and `b` name the same target: the same architecture
/// and OS (the vendor may be omitted or differ: `x86_64-linux-gnu` is
/// `x86_64-pc-linux-gnu`).
pub fn same_triple(a: &str, b: &str) -> bool {
    let parts = |t: &str| -> (String, String) {
        let p: Vec<&str> = t.split('-').collect();
        let arch = p.first().copied().unwrap_or("").replace("amd64", "x86_64");
        let rest = if p.len() >= 4 {
            p[2..].join("-")
        } else {
            p.get(1..).map(|r| r.join("-")).unwrap_or_default()
        };
        (
            arch,
            rest.trim_start_matches("unknown-")
                .trim_start_matches("pc-")
                .to_string(),
        )
    };
    parts(a) == parts(b)
}

/// The target of `tm`, the kernels' variants, the device and the model's
/// source hash, for the metadata.
pub fn build_info(
    tm: &TargetMachine,
    source_sha256: &str,
    device: crate::mlir::Device,
    variants: &[crate::multiversion::Variant],
) -> crate::metadata::BuildInfo {
    crate::metadata::BuildInfo {
        device: match device {
            crate::mlir::Device::Cpu => "cpu",
            crate::mlir::Device::Cuda => "cuda",
            crate::mlir::Device::CudaEmulated => "cuda-emulated",
        },
        triple: tm.get_triple().as_str().to_string_lossy().into_owned(),
        cpu: tm.get_cpu().to_string_lossy().into_owned(),
        features: tm.get_feature_string().to_string_lossy().into_owned(),
        source_sha256: source_sha256.to_string(),
        variants: variants.iter().map(|v| v.cpu).collect(),
    }
}

/// Gives every defined function and global internal linkage but `api` and
/// `shared`, and `shared` (what other objects of the library use) hidden
/// visibility: seen by those objects, not outside the library.
fn internalize(m: &Module, api: &[String], shared: &[String]) {
    let kept = |name: &[u8]| {
        name.starts_with(b"llvm.") || api.iter().chain(shared).any(|a| a.as_bytes() == name)
    };
    for f in m.get_functions() {
        if f.count_basic_blocks() > 0 && !kept(f.get_name().to_bytes()) {
            f.set_linkage(Linkage::Internal);
        }
    }
    for g in m.get_globals() {
        if !g.is_declaration()
            && !kept(g.get_name().to_bytes())
            && g.get_linkage() != Linkage::Private
        {
            g.set_linkage(Linkage::Internal);
        }
    }
    for n in shared {
        if let Some(f) = m.get_function(n) {
            f.as_global_value().set_visibility(GlobalVisibility::Hidden);
        } else if let Some(g) = m.get_global(n) {
            g.set_visibility(GlobalVisibility::Hidden);
        }
    }
}

/// The functions and globals that `m` defines and one of `users` declares:
/// what must stay visible (hidden, not internal) between the objects.
fn used_across(m: &Module, users: &[&Module]) -> Vec<String> {
    let declared = |name: &std::ffi::CStr| {
        users.iter().any(|u| {
            u.get_function(&name.to_string_lossy())
                .is_some_and(|f| f.count_basic_blocks() == 0)
                || u.get_global(&name.to_string_lossy())
                    .is_some_and(|g| g.is_declaration())
        })
    };
    let functions = m
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_owned());
    let globals = m
        .get_globals()
        .filter(|g| !g.is_declaration())
        .map(|g| g.get_name().to_owned());
    functions
        .chain(globals)
        .filter(|n| declared(n))
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// Links `kernels` into `host`, keeps only `api` external (and what the
/// host and the variants `copies` ([`crate::multiversion`]) use of each
/// other, hidden), optimises at `opt_level` and emits code for `tm`: the
/// host module here, each variant on a thread of its own
/// ([`crate::codegen`]).
#[allow(clippy::too_many_arguments)]
pub fn compile<'ctx>(
    host: Module<'ctx>,
    kernels: Module<'ctx>,
    copies: Vec<Module<'ctx>>,
    api: &[String],
    tm: &TargetMachine,
    opt_level: u8,
    want_asm: bool,
    want_llvm_ir: bool,
) -> Result<Compiled, BackendError> {
    let layout = tm.get_target_data().get_data_layout();
    for m in [&host, &kernels].into_iter().chain(&copies) {
        m.set_triple(&tm.get_triple());
        m.set_data_layout(&layout);
    }
    host.link_in_module(kernels)
        .map_err(|e| llvm_err("linking kernels into the host module", e.to_string_lossy()))?;
    let copy_refs: Vec<&Module> = copies.iter().collect();
    internalize(&host, api, &used_across(&host, &copy_refs));
    for c in &copies {
        internalize(c, &[], &used_across(c, &[&host]));
    }
    let mut marked = 0;
    for m in std::iter::once(&host).chain(&copies) {
        crate::allocator_attrs::annotate(m);
        marked += crate::param_attrs::annotate(m);
        if opt_level > 0 {
            crate::vector_variants::annotate(m);
        }
        m.verify()
            .map_err(|e| llvm_err("verifying the linked module", e.to_string_lossy()))?;
    }
    tracing::debug!(marked, "tensor parameters marked noalias");
    // AGC_DUMP_LLVM=<file>: keep the modules before LLVM's optimiser (to
    // ask `opt -pass-remarks-missed` why a loop stays scalar): the host
    // module in <file>, variant k in <file>.k.
    if let Some(path) = std::env::var_os("AGC_DUMP_LLVM") {
        for (k, m) in std::iter::once(&host).chain(&copies).enumerate() {
            let mut file = std::path::PathBuf::from(&path);
            if k > 0 {
                file.as_mut_os_string().push(format!(".{k}"));
            }
            if let Err(e) = m.print_to_file(&file) {
                tracing::warn!("AGC_DUMP_LLVM: {}", e.to_string_lossy());
            }
        }
    }
    let bitcode: Vec<(String, Vec<u8>)> = copies
        .iter()
        .map(|c| {
            let name = c.get_name().to_string_lossy().into_owned();
            (name, c.write_bitcode_to_memory().as_slice().to_vec())
        })
        .collect();
    drop(copies);
    let texts = crate::codegen::Texts {
        asm: want_asm,
        llvm_ir: want_llvm_ir,
    };
    let parts = crate::codegen::in_parallel(&host, tm, &bitcode, opt_level, texts)?;
    let joined = |text: fn(&crate::codegen::Part) -> &Option<String>| {
        parts
            .iter()
            .map(|p| text(p).as_ref())
            .collect::<Option<Vec<&String>>>()
            .map(|t| t.iter().map(|s| s.as_str()).collect::<String>())
    };
    Ok(Compiled {
        asm: joined(|p| &p.asm),
        llvm_ir: joined(|p| &p.llvm_ir),
        objects: parts.into_iter().map(|p| p.object).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avx512_is_turned_off() {
        assert_eq!(
            without_avx512("+sse2,+avx512f,-avx512bw,+avx2,+evex512"),
            "+sse2,-avx512f,-avx512bw,+avx2,-evex512"
        );
    }
}
