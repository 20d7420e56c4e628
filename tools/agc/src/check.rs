//! `agc check`: the frontend only.

use crate::cli::CheckArgs;
use crate::source;

/// Runs the subcommand; returns the exit code.
pub fn run(args: &CheckArgs) -> u8 {
    match source::stage(&args.model, &source::default_name(&args.model)) {
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
