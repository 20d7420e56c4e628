//! Command-line arguments (the doc comments are the `--help` text).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// agc: compile numpy-style Python models to native libraries.
#[derive(Parser, Debug)]
#[command(version, about)]
pub struct Cli {
    /// Log what the compiler does (to stderr).
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compile MODEL.py to lib<NAME>.so, lib<NAME>.a and <NAME>.h.
    Build(BuildArgs),
    /// Run conversion and staging only, reporting any diagnostics.
    Check(CheckArgs),
    /// Run IR passes on IR text (as `--emit ir` writes it); print the result.
    Opt(OptArgs),
}

/// Where the code runs.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetArg {
    /// The host CPU.
    Cpu,
    /// NVIDIA GPUs (PTX).
    Cuda,
}

/// Intermediate forms `--emit` can write next to the libraries.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmitArg {
    /// The staged agc IR (`<NAME>.ir`).
    Ir,
    /// The agc IR handed to the backend, after the IR pipeline (`<NAME>.opt.ir`),
    /// each function preceded by its statistics in `//` comments.
    OptIr,
    /// MLIR before lowering (`<NAME>.mlir`).
    Mlir,
    /// Optimised LLVM IR (`<NAME>.ll`).
    Llvm,
    /// PTX for `--target cuda` (`<NAME>.ptx`).
    Ptx,
    /// Assembly (`<NAME>.s`).
    Asm,
}

/// Where `agc.weights` data goes.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightsArg {
    /// In the library's read-only data (up to 2 GiB).
    Embed,
    /// In `<NAME>.weights`, mapped by `<NAME>_create` (any size; replaceable without a rebuild).
    External,
}

/// How diagnostics are printed.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorFormatArg {
    /// `file:line:col: error: message`, the source line and a caret.
    Human,
    /// One JSON object per diagnostic and line, as rustc's `--error-format=json`.
    Json,
}

/// When the human format is coloured.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorArg {
    /// When stderr is a terminal, NO_COLOR is unset or empty and TERM is not `dumb`.
    Auto,
    /// Always (even into a file or a pipe).
    Always,
    /// Never.
    Never,
}

/// How `build` and `check` print their diagnostics.
#[derive(Args, Clone, Copy, Debug)]
pub struct DiagnosticArgs {
    /// How to print errors.
    #[arg(
        long = "error-format",
        value_enum,
        value_name = "FORMAT",
        default_value = "human"
    )]
    pub error_format: ErrorFormatArg,
    /// When to colour errors in the human format.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorArg,
}

/// `agc build` arguments.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The model source file.
    pub model: PathBuf,
    /// How errors are printed.
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
    /// Output directory (created if missing).
    #[arg(short = 'o', long = "out-dir", default_value = "build")]
    pub out_dir: PathBuf,
    /// Target device.
    #[arg(long, value_enum, default_value = "cpu")]
    pub target: TargetArg,
    /// Target triple; only the host's is supported (cross-compiling is not yet).
    #[arg(long = "target-triple", value_name = "TRIPLE")]
    pub target_triple: Option<String>,
    /// LLVM CPU to compile for (e.g. x86-64-v3, znver4, sapphirerapids; default: the build machine's, without AVX-512).
    #[arg(long = "target-cpu", value_name = "CPU")]
    pub target_cpu: Option<String>,
    /// LLVM CPU features, e.g. +avx2,+fma,-avx512f (with --target-cpu, or for the build machine's CPU).
    #[arg(long = "target-features", value_name = "FEATURES")]
    pub target_features: Option<String>,
    /// Let float + - * / be reassociated and fused, and let the optimiser assume finite
    /// values: (a*b)/b, (a+b)-b and log(exp(a)) become a (results may differ from numpy in
    /// the last bits, and where a value would overflow or be NaN).
    #[arg(long = "fast-math")]
    pub fast_math: bool,
    /// With --target cuda: run the kernels on the host, tensors tagged as on
    /// the GPU (a test build of the CUDA library that needs no GPU).
    #[arg(long = "emulate-device", hide = true)]
    pub emulate_device: bool,
    /// Where the data of `agc.weights` files goes.
    #[arg(long, value_enum, default_value = "embed")]
    pub weights: WeightsArg,
    /// Library name (default: the model's file stem).
    #[arg(long)]
    pub name: Option<String>,
    /// Also write these intermediate forms (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub emit: Vec<EmitArg>,
    /// Also write the agc IR after these passes of the IR pipeline
    /// (`<NAME>.after-<PASS>.ir`; comma-separated pass names).
    #[arg(long = "ir-after", value_delimiter = ',', value_name = "PASS")]
    pub ir_after: Vec<String>,
    /// Verify the IR after every pass of the IR pipeline (always on in debug builds).
    #[arg(long = "verify-each")]
    pub verify_each: bool,
    /// Optimisation level, -O0 to -O3.
    #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
}

/// `agc check` arguments.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The model source file.
    pub model: PathBuf,
    /// How errors are printed.
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

/// `agc opt` arguments.
#[derive(Args, Debug)]
pub struct OptArgs {
    /// The IR text file.
    pub input: PathBuf,
    /// The passes to run, in order (comma-separated; none: parse, verify and print).
    #[arg(long, value_delimiter = ',', value_name = "PASS")]
    pub passes: Vec<String>,
    /// Write the result here instead of standard output.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}
