//! `agc`: the ahead-of-time compiler's command line.
//!
//! Thin by design: argument parsing ([`cli`]), one file per subcommand
//! ([`build`], [`check`], [`opt`]), errors printed by [`report`] in the
//! format and colours asked for; exit codes 0 (ok), 1 (an error in the user's
//! program) and 2 (an internal error). A panic is reported as an internal
//! error, never as a Rust panic trace.

mod build;
mod check;
mod cli;
mod opt;
mod report;
mod source;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info
            .location()
            .map(|l| format!(" ({}:{})", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("agc: internal error: {msg}{at}\nThis is a bug in agc; please report it with the model that triggers it.");
        std::process::exit(2);
    }));
    // A mistyped command line is the user's error: exit 1 (clap's own
    // code, 2, is this tool's internal-error code); help and version exit 0.
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::from(e.use_stderr()));
        }
    };
    let level = if args.verbose {
        "info,egg=warn"
    } else {
        "warn"
    };
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("AGC_LOG").unwrap_or_else(|_| level.into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .init();
    // The parser and the stager recurse as deep as the program nests (a
    // 100,000-term sum, 20,000 chained `.T`): they run on a thread with a
    // large stack, whose pages are only touched as deep as a program needs.
    let verbose = args.verbose;
    let work = std::thread::Builder::new()
        .name("agc".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || match args.command {
            cli::Command::Build(b) => build::run(&b, verbose),
            cli::Command::Check(c) => check::run(&c),
            cli::Command::Opt(o) => opt::run(&o, verbose),
        });
    let code = match work.map(|t| t.join()) {
        Ok(Ok(code)) => code,
        // A panic already exited through the hook; a thread that cannot be
        // started is an internal error.
        Ok(Err(_)) => 2,
        Err(e) => {
            eprintln!("agc: internal error: cannot start the compiler thread: {e}");
            2
        }
    };
    ExitCode::from(code)
}

/// The compiler thread's stack (address space; untouched pages cost nothing).
const COMPILER_STACK: usize = 4 << 30;
