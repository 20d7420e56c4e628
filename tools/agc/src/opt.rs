//! `agc opt`: runs IR passes on IR text (as `--emit ir` writes it) and
//! prints the result, for testing passes IR-in/IR-out.

use crate::cli::OptArgs;

/// Runs the subcommand (`verbose`: print the pass table); returns the exit code.
pub fn run(args: &OptArgs, verbose: bool) -> u8 {
    let file = args.input.display();
    let text = match std::fs::read_to_string(&args.input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {file}: {e}");
            return 1;
        }
    };
    let mut module = match agc_ir::parse::parse_module(&text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{file}:{}: error: {}", e.line, e.message);
            return 1;
        }
    };
    if let Err(e) = agc_ir::verify::verify_module(&module) {
        eprintln!("{file}: error: the input is not valid IR: {e}");
        return 1;
    }
    let passes = match agc_opt::passes_named(&args.passes) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: --passes: {e}");
            return 1;
        }
    };
    let options = agc_opt::Options {
        verify_each: true,
        estimates: true,
        ..agc_opt::Options::default()
    };
    let report = match agc_opt::run_passes(&mut module, &passes, &options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("{file}: internal error: {e}");
            return 2;
        }
    };
    if verbose {
        eprint!("{}", report.table());
    }
    // As `agc build --emit opt-ir` writes it: statistics in comments.
    let out = agc_opt::opt_ir::print_with_stats(&module, &report);
    match &args.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, out) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return 1;
            }
        }
        None => print!("{out}"),
    }
    0
}
