//! `agc build`: stage, compile, and only then write every output file.

use crate::cli::{BuildArgs, EmitArg, TargetArg, WeightsArg};
use crate::report::Reporter;
use crate::source;
use agc_backend::{Artifact, BuildOptions, Emit, Target};
use agc_frontend::diagnostics::Diagnostic;
use std::time::Instant;

/// Runs the subcommand (`verbose`: print the IR pipeline's table); returns the exit code.
pub fn run(args: &BuildArgs, verbose: bool) -> u8 {
    let reporter = Reporter::new(&args.diagnostics);
    let model = Some(args.model.as_path());
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| source::default_name(&args.model));
    if name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || name.starts_with(|c: char| c.is_ascii_digit())
    {
        reporter.error(None, format!("--name '{name}' is not a C identifier"));
        return 1;
    }
    if let Some(triple) = &args.target_triple {
        let host = agc_backend::object::host_triple();
        if !agc_backend::object::same_triple(triple, &host) {
            reporter.error(None, format!("--target-triple {triple}: cross-compiling is not supported yet (this agc builds for {host})"));
            return 1;
        }
    }
    let triple = args
        .target_triple
        .clone()
        .unwrap_or_else(agc_backend::object::host_triple);
    let checked = [
        args.target_cpu
            .as_deref()
            .map(|c| agc_backend::target_names::check_cpu(&triple, c)),
        args.target_features
            .as_deref()
            .map(|f| agc_backend::target_names::check_features(&triple, f)),
    ];
    if let Some(Err(e)) = checked.into_iter().flatten().find(Result::is_err) {
        reporter.error(None, e);
        return 1;
    }
    if args.emit.contains(&EmitArg::Ptx) && args.target != TargetArg::Cuda {
        eprintln!("error: --emit ptx needs --target cuda");
        return 1;
    }
    let started = Instant::now();
    let mut module = match source::stage(&args.model, &name, &reporter) {
        Ok(m) => m,
        Err(code) => return code,
    };
    tracing::debug!(ir = %agc_ir::print::print_module(&module), "staged IR");
    let mut files = Vec::new();
    if args.emit.contains(&EmitArg::Ir) {
        files.push(text_artifact(
            format!("{name}.ir"),
            agc_ir::print::print_module(&module),
        ));
    }
    let pipeline = agc_opt::Options {
        opt_level: args.opt_level,
        verify_each: args.verify_each,
        print_after: args.ir_after.clone(),
        fast_math: args.fast_math,
        estimates: args.emit.contains(&EmitArg::OptIr),
    };
    let report = match agc_opt::run(&mut module, &pipeline) {
        Ok(r) => r,
        Err(e @ (agc_opt::PipelineError::UnknownPass(..) | agc_opt::PipelineError::NotRun(_))) => {
            reporter.error(None, format!("--ir-after: {e}"));
            return 1;
        }
        Err(e) => {
            reporter.internal(model, e);
            return 2;
        }
    };
    if verbose {
        eprint!("{}", report.table());
    }
    for (pass, text) in &report.printed {
        files.push(text_artifact(
            format!("{name}.after-{pass}.ir"),
            text.clone(),
        ));
    }
    if args.emit.contains(&EmitArg::OptIr) {
        files.push(text_artifact(
            format!("{name}.opt.ir"),
            agc_opt::opt_ir::print_with_stats(&module, &report),
        ));
    }
    let opts = BuildOptions {
        name: name.clone(),
        opt_level: args.opt_level,
        target: match args.target {
            TargetArg::Cpu => Target::Cpu,
            TargetArg::Cuda => Target::Cuda,
        },
        emit: args
            .emit
            .iter()
            .filter_map(|e| match e {
                EmitArg::Mlir => Some(Emit::Mlir),
                EmitArg::Llvm => Some(Emit::Llvm),
                EmitArg::Asm => Some(Emit::Asm),
                EmitArg::Ptx => Some(Emit::Ptx),
                _ => None,
            })
            .collect(),
        source_sha256: source::sha256_hex(&args.model),
        fast_math: args.fast_math,
        emulate_device: args.emulate_device,
        target_cpu: args.target_cpu.clone(),
        target_features: args.target_features.clone(),
        weights: match args.weights {
            WeightsArg::Embed => agc_backend::mlir::Placement::Embedded,
            WeightsArg::External => agc_backend::mlir::Placement::External,
        },
    };
    let backend_started = Instant::now();
    match agc_backend::build(&module, &opts) {
        Ok(artifacts) => files.extend(artifacts),
        Err(agc_backend::BackendError::Unsupported(what)) => {
            reporter.error(model, format!("not supported yet: {what}"));
            return 1;
        }
        Err(agc_backend::BackendError::UnsupportedAt(what, span)) => {
            let message = format!("not supported yet: {what}");
            match source::read(&args.model) {
                Some(file) => reporter.diagnostic(&Diagnostic::error(span, message), &file),
                None => reporter.error(model, message),
            }
            return 1;
        }
        Err(e @ agc_backend::BackendError::Weights(_)) => {
            reporter.error(model, e);
            return 1;
        }
        Err(agc_backend::BackendError::MissingTool(what)) => {
            reporter.error(None, what);
            return 1;
        }
        Err(e) => {
            reporter.internal(model, e);
            return 2;
        }
    }
    if let Err(e) = write_all(&args.out_dir, &files) {
        reporter.error(
            None,
            format!("cannot write to {}: {e}", args.out_dir.display()),
        );
        return 1;
    }
    tracing::info!(out = %args.out_dir.display(), files = files.len(), "wrote outputs");
    if verbose {
        let total = started.elapsed().as_secs_f64() * 1e3;
        let pipeline: f64 = report.passes.iter().map(|p| p.millis).sum();
        eprintln!(
            "build {total:.0} ms: IR pipeline {pipeline:.1} ms ({:.1}%), backend {:.0} ms",
            100.0 * pipeline / total,
            backend_started.elapsed().as_secs_f64() * 1e3
        );
    }
    0
}

fn text_artifact(file_name: String, text: String) -> Artifact {
    Artifact::bytes(file_name, text.into_bytes())
}

fn write_all(dir: &std::path::Path, files: &[Artifact]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for f in files {
        f.write_into(dir)?;
    }
    Ok(())
}
