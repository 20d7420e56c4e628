//! `agc check`: the frontend only.

use crate::cli::CheckArgs;
use crate::report::Reporter;
use crate::source;

/// Runs the subcommand; returns the exit code.
pub fn run(args: &CheckArgs) -> u8 {
    let reporter = Reporter::new(&args.diagnostics);
    match source::stage(&args.model, &source::default_name(&args.model), &reporter) {
        Ok(_) if !reporter.is_human() => 0,
        Ok(m) => {
            eprintln!(
                "{}: ok ({} exported function(s))",
                args.model.display(),
                m.exports.len()
            );
            0
        }
        Err(code) => code,
    }
}
