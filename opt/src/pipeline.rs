//! The pass pipeline: the ordered IR → IR passes between staging and the
//! backend, and the driver that runs them.
//!
//! The driver verifies the module after every pass (always in debug builds;
//! with [`Options::verify_each`] in release builds), times each pass, counts
//! the live ops before and after, and can keep the IR text after any pass
//! (`agc build --emit ir-after=NAME`).

use crate::copy::live_ops;
use crate::estimate::{estimate, Estimate};
use crate::passes;
use agc_ir::verify::{verify_module, VerifyError};
use agc_ir::Module;
use std::fmt::Write;
use std::time::Instant;
use thiserror::Error;

/// One IR → IR pass.
pub trait Pass {
    /// The pass's name in `--emit ir-after=NAME` and in the `-v` table.
    fn name(&self) -> &'static str;
    /// What the pass does, in one line.
    fn purpose(&self) -> &'static str;
    /// Rewrites `m`; returns notes for the `-v` report and `--emit opt-ir`.
    fn run(&self, m: &mut Module) -> Vec<Note>;
}

/// How to run the pipeline.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// 0..=3 as `-O0`..`-O3`: `-O0` runs no optimising pass.
    pub opt_level: u8,
    /// Verify the module after every pass also in release builds.
    pub verify_each: bool,
    /// Keep the IR text after these passes (by name).
    pub print_after: Vec<String>,
    /// `--fast-math`: `simplify` may assume finite float values.
    pub fast_math: bool,
    /// Estimate every function before the first pass ([`Report::staged`],
    /// for the statistics of `--emit opt-ir`).
    pub estimates: bool,
}

/// One statistic a pass reports: about the module or about one function,
/// with the time it took where the pass measures it (printed by `-v`; left
/// out of `--emit opt-ir`, which stays the same from build to build).
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// The function it is about (`None`: the module).
    pub function: Option<String>,
    /// The statistic.
    pub text: String,
    /// Milliseconds, where measured.
    pub millis: Option<f64>,
}

impl Note {
    /// A note about the whole module.
    pub fn module(text: impl Into<String>) -> Self {
        Note {
            function: None,
            text: text.into(),
            millis: None,
        }
    }

    /// A note about function `name`.
    pub fn function(name: &str, text: impl Into<String>) -> Self {
        Note {
            function: Some(name.to_string()),
            text: text.into(),
            millis: None,
        }
    }

    /// The note with the time it took.
    pub fn timed(self, millis: f64) -> Self {
        Note {
            millis: Some(millis),
            ..self
        }
    }
}

impl std::fmt::Display for Note {
    /// `@f: text, 1.23 ms` as `-v` prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(name) = &self.function {
            write!(f, "@{name}: ")?;
        }
        f.write_str(&self.text)?;
        if let Some(ms) = self.millis {
            write!(f, ", {ms:.2} ms")?;
        }
        Ok(())
    }
}

/// What happened in one pass.
#[derive(Clone, Debug)]
pub struct PassRecord {
    /// The pass's name.
    pub name: &'static str,
    /// Live ops of the module before the pass.
    pub ops_before: usize,
    /// Live ops after it.
    pub ops_after: usize,
    /// Wall time in milliseconds.
    pub millis: f64,
    /// The pass's own notes.
    pub notes: Vec<Note>,
}

/// What the pipeline did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One record per pass run, in order.
    pub passes: Vec<PassRecord>,
    /// `(pass name, IR text after it)` for the passes in [`Options::print_after`].
    pub printed: Vec<(String, String)>,
    /// Each function's name and [`Estimate`] before the first pass (with
    /// [`Options::estimates`]).
    pub staged: Vec<(String, Estimate)>,
}

/// Why the pipeline stopped.
#[derive(Debug, Error)]
pub enum PipelineError {
    /// `--emit ir-after` named a pass the pipeline does not have.
    #[error("no pass named '{0}' (passes: {1})")]
    UnknownPass(String, String),
    /// `--ir-after` named a pass that does not run at this optimisation level.
    #[error("pass '{0}' does not run at this optimisation level (-O0 runs none)")]
    NotRun(String),
    /// A pass produced IR the verifier rejects: a bug in that pass.
    #[error("after pass '{pass}': {error}")]
    Verify {
        /// The pass (or `staging` for the input).
        pass: String,
        /// What the verifier found.
        error: VerifyError,
    },
}

/// The passes run at `opt_level`, in order (`-O0`: only the outlining of
/// deeply nested and of long regions, which keeps the build time linear).
pub fn passes(opt_level: u8, fast_math: bool) -> Vec<Box<dyn Pass>> {
    let outline: [Box<dyn Pass>; 2] = [
        Box::new(passes::outline::OutlineDeepRegions),
        Box::new(passes::outline_long::OutlineLongRegions),
    ];
    if opt_level == 0 {
        return outline.into();
    }
    let mut list: Vec<Box<dyn Pass>> = vec![
        Box::new(passes::dead_functions::DeadFunctions),
        Box::new(passes::cse::Cse),
        Box::new(passes::simplify::Simplify { fast_math }),
        Box::new(passes::dce::Dce),
    ];
    list.extend(outline);
    list
}

/// The names and purposes of every pass of the full pipeline (for `--help`
/// texts and error messages).
pub fn all_passes() -> Vec<(&'static str, &'static str)> {
    passes(1, false)
        .iter()
        .map(|p| (p.name(), p.purpose()))
        .collect()
}

/// The passes named in `names`, in that order (for `agc opt --passes`).
pub fn passes_named(names: &[String]) -> Result<Vec<Box<dyn Pass>>, PipelineError> {
    names
        .iter()
        .map(|n| {
            passes(1, false)
                .into_iter()
                .find(|p| p.name() == n)
                .ok_or_else(|| {
                    let all: Vec<&str> = all_passes().iter().map(|(n, _)| *n).collect();
                    PipelineError::UnknownPass(n.clone(), all.join(", "))
                })
        })
        .collect()
}

/// Runs the pipeline for `opts` on `m`.
pub fn run(m: &mut Module, opts: &Options) -> Result<Report, PipelineError> {
    run_passes(m, &passes(opts.opt_level, opts.fast_math), opts)
}

/// Runs `list` on `m` in order, verifying, timing and printing as `opts` says.
pub fn run_passes(
    m: &mut Module,
    list: &[Box<dyn Pass>],
    opts: &Options,
) -> Result<Report, PipelineError> {
    passes_named(&opts.print_after)?;
    if let Some(idle) = opts
        .print_after
        .iter()
        .find(|n| !list.iter().any(|p| p.name() == n.as_str()))
    {
        return Err(PipelineError::NotRun(idle.clone()));
    }
    let verify = opts.verify_each || cfg!(debug_assertions);
    if verify {
        check(m, "staging")?;
    }
    let mut report = Report::default();
    if opts.estimates {
        report.staged = m
            .funcs
            .iter()
            .map(|f| (f.name.clone(), estimate(f)))
            .collect();
    }
    for pass in list {
        let ops_before = module_ops(m);
        let start = Instant::now();
        let notes = pass.run(m);
        let millis = start.elapsed().as_secs_f64() * 1e3;
        if verify {
            check(m, pass.name())?;
        }
        let record = PassRecord {
            name: pass.name(),
            ops_before,
            ops_after: module_ops(m),
            millis,
            notes,
        };
        tracing::debug!(
            pass = record.name,
            before = ops_before,
            after = record.ops_after,
            ms = millis,
            "pass"
        );
        report.passes.push(record);
        if opts.print_after.iter().any(|n| n == pass.name()) {
            report
                .printed
                .push((pass.name().to_string(), agc_ir::print::print_module(m)));
        }
    }
    Ok(report)
}

fn check(m: &Module, pass: &str) -> Result<(), PipelineError> {
    verify_module(m).map_err(|error| PipelineError::Verify {
        pass: pass.to_string(),
        error,
    })
}

/// Live ops of every function of `m`.
pub fn module_ops(m: &Module) -> usize {
    m.funcs.iter().map(live_ops).sum()
}

impl Report {
    /// The `-v` table: one line per pass (ops before → after, time), then its notes.
    pub fn table(&self) -> String {
        let mut out = String::from("pass              ops before  ops after      ms\n");
        for p in &self.passes {
            let _ = writeln!(
                out,
                "{:<16} {:>11} {:>10} {:>7.2}",
                p.name, p.ops_before, p.ops_after, p.millis
            );
            for n in &p.notes {
                let _ = writeln!(out, "    {n}");
            }
        }
        out
    }
}
