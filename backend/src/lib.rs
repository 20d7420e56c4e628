//! agc backend: from the agc IR to a native library.
//!
//! Kernels and function bodies go through MLIR ([`mlir`]: linalg on tensors →
//! bufferization → loops → LLVM dialect → LLVM IR); the C ABI entry points are
//! host code written with inkwell ([`llvm`]); [`link`] turns the object into
//! `lib<NAME>.so` and `lib<NAME>.a` with the runtime linked in, and [`header`]
//! writes `<NAME>.h`. [`build`] runs the whole path in memory and returns the
//! artifacts, so nothing is written to the user's output directory on failure.
//!
//! The C ABI itself (structs, status codes, ownership, metadata) is described
//! in `docs/c-abi.md`; [`signature`] derives each export's C signature once
//! for the host code, the header and the metadata.

pub mod allocator_attrs;
pub mod codegen;
pub mod error;
pub mod header;
pub mod header_cpp;
pub mod link;
pub mod llvm;
pub mod llvm_diagnostics;
pub mod metadata;
pub mod mlir;
pub mod multiversion;
pub mod object;
pub mod packaging;
pub mod param_attrs;
pub mod signature;
pub mod state;
pub mod target_names;
pub mod vector_variants;
pub mod weights_file;

pub use error::BackendError;

use inkwell::context::Context;

/// The device the generated code runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Target {
    /// The host CPU (x86-64 with the build machine's features).
    #[default]
    Cpu,
    /// NVIDIA GPUs: parallel loops as PTX kernels, the rest host code
    /// (see `mlir::gpu`).
    Cuda,
}

/// Extra text artifacts `build` can return besides the libraries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// `<NAME>.mlir`: the kernels' MLIR before lowering.
    Mlir,
    /// `<NAME>.ll`: the optimised LLVM IR of the whole library (host + kernels).
    Llvm,
    /// `<NAME>.s`: its assembly.
    Asm,
    /// `<NAME>.ptx`: the GPU kernels' PTX (`--target cuda`), one module
    /// after the other, each after a line `// agc kernel module: <name>`.
    Ptx,
}

/// Options of [`build`].
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Library name: `lib<NAME>.so`, `<NAME>.h`, `<NAME>_last_error`, ...; a C identifier.
    pub name: String,
    /// 0..=3, as `-O0`..`-O3`.
    pub opt_level: u8,
    /// Device to compile for.
    pub target: Target,
    /// Extra artifacts to return.
    pub emit: Vec<Emit>,
    /// Where the weights go (`--weights embed|external`).
    pub weights: mlir::Placement,
    /// SHA-256 of the model's source (hex), for the metadata.
    pub source_sha256: String,
    /// `--fast-math` ([`mlir::EmitOptions::fast_math`]).
    pub fast_math: bool,
    /// `--target-cpu`: the LLVM CPU to compile for (default: see [`object`]).
    pub target_cpu: Option<String>,
    /// `--target-features`: LLVM feature string (`+avx2,-avx512f`), with `target_cpu` or alone.
    pub target_features: Option<String>,
    /// With [`Target::Cuda`]: run the kernels as host loops, with tensors
    /// tagged as on the GPU (a test build that needs no GPU).
    pub emulate_device: bool,
}

impl BuildOptions {
    /// Where the kernels run.
    pub fn device(&self) -> mlir::Device {
        match (self.target, self.emulate_device) {
            (Target::Cpu, _) => mlir::Device::Cpu,
            (Target::Cuda, false) => mlir::Device::Cuda,
            (Target::Cuda, true) => mlir::Device::CudaEmulated,
        }
    }
}

/// One output file, in memory or spooled to a temporary file.
#[derive(Debug)]
pub struct Artifact {
    /// File name (no directory).
    pub file_name: String,
    /// Contents.
    pub contents: Contents,
}

/// What an [`Artifact`] holds.
#[derive(Debug)]
pub enum Contents {
    /// Bytes in memory.
    Bytes(Vec<u8>),
    /// A temporary file (removed when dropped), for contents too large for memory.
    Spooled(tempfile::TempPath),
    /// An existing file, hard-linked into place (copied where it cannot be):
    /// its size costs the build nothing.
    Linked(std::path::PathBuf),
}

impl Artifact {
    /// An artifact of `bytes`.
    pub fn bytes(file_name: impl Into<String>, bytes: Vec<u8>) -> Self {
        Artifact {
            file_name: file_name.into(),
            contents: Contents::Bytes(bytes),
        }
    }

    /// Writes the artifact into `dir` under its file name.
    pub fn write_into(&self, dir: &std::path::Path) -> std::io::Result<()> {
        let to = dir.join(&self.file_name);
        match &self.contents {
            Contents::Bytes(b) => std::fs::write(to, b),
            Contents::Spooled(p) => {
                std::fs::rename(p, &to).or_else(|_| std::fs::copy(p, &to).map(|_| ()))?;
                // A temporary file is private to its owner; an output is not.
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o644))
            }
            Contents::Linked(from) => {
                if to.exists() {
                    std::fs::remove_file(&to)?;
                }
                std::fs::hard_link(from, &to).or_else(|_| std::fs::copy(from, &to).map(|_| ()))
            }
        }
    }
}

/// Compiles `m` into `lib<NAME>.so`, `lib<NAME>.a`, `<NAME>.h` and the
/// requested emits, all in memory.
pub fn build(m: &agc_ir::Module, opts: &BuildOptions) -> Result<Vec<Artifact>, BackendError> {
    let started = std::time::Instant::now();
    let emitted = mlir::emit_module(
        m,
        &mlir::EmitOptions {
            weights: opts.weights,
            fast_math: opts.fast_math,
            gpu: opts.target == Target::Cuda,
        },
    )?;
    tracing::info!(ms = millis(started), "emitted MLIR");
    build_with_kernels(m, opts, Some(&emitted), |ctx| {
        mlir::lower_to_llvm(&emitted.text, opts.opt_level, opts.device(), ctx)
    })
}

/// The variants of the kernels ([`multiversion`]): all of them for the
/// default target of an optimised x86-64 CPU library whose kernel module
/// has at most [`multiversion::MAX_INSTRUCTIONS`]; none otherwise.
fn kernel_variants(
    opts: &BuildOptions,
    kernels: &inkwell::module::Module,
) -> &'static [multiversion::Variant] {
    let size = multiversion::instruction_count(kernels);
    tracing::debug!(instructions = size, "kernel module size");
    let eligible =
        object::default_target(opts.target_cpu.as_deref(), opts.target_features.as_deref())
            && opts.device() == mlir::Device::Cpu
            && opts.opt_level > 0
            && object::host_triple().starts_with("x86_64")
            && size <= multiversion::MAX_INSTRUCTIONS;
    if eligible {
        &multiversion::VARIANTS
    } else {
        &[]
    }
}

/// [`build`] with the kernels supplied by the caller: `mlir` (its text is
/// returned as `<NAME>.mlir` when requested, and the weights it reads
/// packed are packed here), and `lower` produces the kernel
/// LLVM module (defining every `_mlir_ciface_agc_impl_<f>`) in the context it
/// is given. [`build`] passes the [`mlir`] pipeline; tests pass hand-written
/// LLVM IR.
pub fn build_with_kernels(
    m: &agc_ir::Module,
    opts: &BuildOptions,
    mlir: Option<&mlir::Emitted>,
    lower: impl for<'ctx> FnOnce(&'ctx Context) -> Result<inkwell::module::Module<'ctx>, BackendError>,
) -> Result<Vec<Artifact>, BackendError> {
    let name = &opts.name;
    let packed = mlir.map_or(&[][..], |e| &e.packed[..]);
    let state = state::LibraryState::of(m, opts.weights, &mlir::function_symbols(m), packed);
    let sigs = signature::signatures_with(m, name, &state)?;
    let api = signature::api_symbols(name, &sigs, state.context);
    let ctx = Context::create();
    let kernels = lower(&ctx)?;
    let variants = kernel_variants(opts, &kernels);
    // With variants, the rest is compiled for the baseline: the library
    // runs on any x86-64 CPU.
    let tm = if variants.is_empty() {
        object::host_target_machine(
            opts.opt_level,
            opts.target_cpu.as_deref(),
            opts.target_features.as_deref(),
        )?
    } else {
        object::host_target_machine(opts.opt_level, Some(multiversion::BASELINE_CPU), None)?
    };
    let host = llvm::host_module(
        &ctx,
        name,
        &sigs,
        &metadata::metadata_json(
            name,
            &sigs,
            &state,
            &object::build_info(&tm, &opts.source_sha256, opts.device(), variants),
        ),
        &state,
        &llvm::CpuFeatures {
            base: &tm.get_feature_string().to_string_lossy(),
            variants,
        },
        opts.device(),
    )?;
    let ptx = opts
        .emit
        .contains(&Emit::Ptx)
        .then(|| llvm::device::ptx_text(&kernels));
    let mut spooled = Vec::new();
    match opts.weights {
        mlir::Placement::Embedded => llvm::weights::define(&ctx, &host, m, packed)?,
        mlir::Placement::External => {
            let used = mlir::weight::used(m);
            if used.contains(&true) {
                let contents = match weights_file::single_source(m, &used) {
                    // The model's own safetensors file serves as it is.
                    Some(source) => Contents::Linked(source),
                    None => {
                        let file = tempfile::NamedTempFile::new()?.into_temp_path();
                        weights_file::write(m, &used, &file)?;
                        Contents::Spooled(file)
                    }
                };
                spooled.push(Artifact {
                    file_name: format!("{name}.weights"),
                    contents,
                });
            }
        }
    }
    if opts.device() != mlir::Device::Cpu {
        llvm::device::place_device_data(&kernels);
        llvm::device::place_device_data(&host);
    }
    let tune = inkwell::targets::TargetMachine::get_host_cpu_name();
    let copies = variants
        .iter()
        .map(|v| multiversion::copy(&kernels, v, &tune.to_string_lossy()))
        .collect();
    let compiled = object::compile(
        host,
        kernels,
        copies,
        &api,
        &tm,
        opts.opt_level,
        opts.emit.contains(&Emit::Asm),
        opts.emit.contains(&Emit::Llvm),
    )?;
    let dir = tempfile::Builder::new().prefix("agc-build-").tempdir()?;
    let linking = std::time::Instant::now();
    let libs = link::link(dir.path(), name, &compiled.objects, &api)?;
    tracing::info!(ms = millis(linking), "linked the libraries");
    let mut out = vec![
        Artifact::bytes(format!("lib{name}.so"), libs.shared),
        Artifact::bytes(format!("lib{name}.a"), libs.archive),
        Artifact::bytes(
            format!("{name}.h"),
            header::header(name, &sigs, &state).into_bytes(),
        ),
        Artifact::bytes(
            format!("{name}.hpp"),
            header_cpp::header(name, &sigs, &state).into_bytes(),
        ),
    ];
    out.push(Artifact::bytes(
        format!("{name}.pc"),
        packaging::pkg_config(name).into_bytes(),
    ));
    out.push(Artifact::bytes(
        format!("{name}Config.cmake"),
        packaging::cmake_config(name, state.external_weights()).into_bytes(),
    ));
    out.push(Artifact::bytes(
        format!("{name}ConfigVersion.cmake"),
        packaging::cmake_version().into_bytes(),
    ));
    out.extend(spooled);
    for e in &opts.emit {
        let (ext, text) = match e {
            Emit::Mlir => ("mlir", mlir.map(|e| e.text.clone())),
            Emit::Llvm => ("ll", compiled.llvm_ir.clone()),
            Emit::Asm => ("s", compiled.asm.clone()),
            Emit::Ptx => ("ptx", ptx.clone()),
        };
        let text = text
            .ok_or_else(|| BackendError::Unsupported(format!("--emit {ext} without its text")))?;
        out.push(Artifact::bytes(format!("{name}.{ext}"), text.into_bytes()));
    }
    tracing::info!(library = %name, files = out.len(), "built");
    Ok(out)
}

/// Milliseconds since `t`, for the phase timings `-v` logs.
pub(crate) fn millis(t: std::time::Instant) -> u128 {
    t.elapsed().as_millis()
}
