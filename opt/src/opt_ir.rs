//! The text of `--emit opt-ir`: the optimised module with, before each
//! function, its statistics as `//` comment lines, which the IR parser
//! skips. Everything printed is deterministic (no timings: those are in
//! `agc build -v`), so the file is byte-identical across builds.
//!
//! ```text
//! // @f: ops 45 -> 44, flops 9.73e5 -> 9.73e5, bytes 1.02e6 -> 1.02e6
//! // simplify: pure ops 41 -> 40, 5 regions, 62 e-nodes, 6 iterations, saturated
//! func @f(...) -> (...) {
//! ```

use crate::estimate::{estimate, short};
use crate::pipeline::Report;
use agc_ir::print::print_module;
use agc_ir::Module;

/// `m` printed with the statistics of `report` (the pipeline run that
/// produced it) before each function.
pub fn print_with_stats(m: &Module, report: &Report) -> String {
    let text = print_module(m);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("func @")
            .and_then(|r| r.split_once('('))
            .map(|(n, _)| n)
        {
            out.push_str(&stats(m, report, name));
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The comment lines of function `name`.
fn stats(m: &Module, report: &Report, name: &str) -> String {
    let Some(f) = m.funcs.iter().find(|f| f.name == name) else {
        return String::new();
    };
    let now = estimate(f);
    let mut out = match report.staged.iter().find(|(n, _)| n == name) {
        Some((_, was)) => format!(
            "// @{name}: ops {} -> {}, flops {} -> {}, bytes {} -> {}\n",
            was.ops,
            now.ops,
            short(was.flops),
            short(now.flops),
            short(was.bytes),
            short(now.bytes)
        ),
        None => format!(
            "// @{name} (made by a pass): ops {}, flops {}, bytes {}\n",
            now.ops,
            short(now.flops),
            short(now.bytes)
        ),
    };
    for pass in &report.passes {
        for note in &pass.notes {
            if note.function.as_deref() == Some(name) {
                out.push_str(&format!("// {}: {}\n", pass.name, note.text));
            }
        }
    }
    out
}
