//! From LLVM modules to machine code: link the kernel module into the host
//! module (one inkwell `Context`), internalize everything but the C API,
//! verify, optimise with `default<O{n}>`, and write a PIC object for the host
//! CPU, plus assembly and the optimised LLVM IR text on request.
//!
//! Internalizing before the pass pipeline lets LLVM inline kernels into the
//! entry points and drop what is unused; it also keeps kernel symbols out of
//! the library's symbol tables.

use crate::BackendError;
use inkwell::module::{Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine,
};
use inkwell::OptimizationLevel;

/// What [`compile`] produced.
#[derive(Debug)]
pub struct Compiled {
    /// The ELF relocatable object.
    pub object: Vec<u8>,
    /// Assembly text, when requested.
    pub asm: Option<String>,
    /// Optimised LLVM IR text, when requested.
    pub llvm_ir: Option<String>,
}

fn llvm_err(what: &str, e: impl std::fmt::Display) -> BackendError {
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
    let triple = TargetMachine::get_default_triple();
    let target =
        Target::from_triple(&triple).map_err(|e| llvm_err("target", e.to_string_lossy()))?;
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
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
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
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

/// Gives every defined function and global but `api` internal linkage.
fn internalize(m: &Module, api: &[String]) {
    let keep = |name: &[u8]| name.starts_with(b"llvm.") || api.iter().any(|a| a.as_bytes() == name);
    for f in m.get_functions() {
        if f.count_basic_blocks() > 0 && !keep(f.get_name().to_bytes()) {
            f.set_linkage(Linkage::Internal);
        }
    }
    for g in m.get_globals() {
        if !g.is_declaration()
            && !keep(g.get_name().to_bytes())
            && g.get_linkage() != Linkage::Private
        {
            g.set_linkage(Linkage::Internal);
        }
    }
}

/// Links `kernels` and their variants `copies` ([`crate::multiversion`])
/// into `host`, keeps only `api` external, optimises at `opt_level` and
/// emits code for `tm`.
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
    for m in std::iter::once(kernels).chain(copies) {
        host.link_in_module(m)
            .map_err(|e| llvm_err("linking kernels into the host module", e.to_string_lossy()))?;
    }
    internalize(&host, api);
    crate::allocator_attrs::annotate(&host);
    let marked = crate::param_attrs::annotate(&host);
    tracing::debug!(marked, "tensor parameters marked noalias");
    host.verify()
        .map_err(|e| llvm_err("verifying the linked module", e.to_string_lossy()))?;
    // AGC_DUMP_LLVM=<file>: keep the linked module before LLVM's optimiser
    // (to ask `opt -pass-remarks-missed` why a loop stays scalar).
    if let Some(path) = std::env::var_os("AGC_DUMP_LLVM") {
        if let Err(e) = host.print_to_file(&path) {
            tracing::warn!("AGC_DUMP_LLVM: {}", e.to_string_lossy());
        }
    }
    let passes = format!("default<O{}>", opt_level.min(3));
    tracing::debug!(%passes, "optimising the linked module");
    let optimising = std::time::Instant::now();
    host.run_passes(&passes, tm, PassBuilderOptions::create())
        .map_err(|e| llvm_err("optimising", e.to_string_lossy()))?;
    tracing::info!(ms = crate::millis(optimising), %passes, "optimised the LLVM module");
    let emit = |kind: FileType| {
        tm.write_to_memory_buffer(&host, kind)
            .map(|b| b.as_slice().to_vec())
            .map_err(|e| llvm_err("code generation", e.to_string_lossy()))
    };
    let generating = std::time::Instant::now();
    let object = emit(FileType::Object)?;
    tracing::info!(ms = crate::millis(generating), "generated machine code");
    let asm = if want_asm {
        Some(String::from_utf8_lossy(&emit(FileType::Assembly)?).into_owned())
    } else {
        None
    };
    let llvm_ir = want_llvm_ir.then(|| host.print_to_string().to_string());
    Ok(Compiled {
        object,
        asm,
        llvm_ir,
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
