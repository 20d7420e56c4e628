//! Printing errors to stderr in the format (`--error-format`) and colours
//! (`--color`) the command line chose: a [`Reporter`] is how `build` and
//! `check` report every error, with a place in the model or without one.

use crate::cli::{ColorArg, DiagnosticArgs, ErrorFormatArg};
use agc_frontend::diagnostics::{json, render_headline, Diagnostic, Level, Palette};
use agc_frontend::source::SourceFile;
use std::fmt::Display;
use std::io::IsTerminal;
use std::path::Path;

/// Prints errors as the command line asked.
pub struct Reporter {
    format: ErrorFormatArg,
    palette: Palette,
}

impl Reporter {
    /// The reporter `args` ask for (`--color auto` looks at stderr and the
    /// environment now).
    pub fn new(args: &DiagnosticArgs) -> Self {
        let palette = if wants_colour(args.color) {
            Palette::ANSI
        } else {
            Palette::PLAIN
        };
        Reporter {
            format: args.error_format,
            palette,
        }
    }

    /// True for the human format, the one that may also print progress
    /// lines (in the JSON format stderr holds only diagnostics).
    pub fn is_human(&self) -> bool {
        self.format == ErrorFormatArg::Human
    }

    /// Prints `d`, a diagnostic in `file`.
    pub fn diagnostic(&self, d: &Diagnostic, file: &SourceFile) {
        match self.format {
            ErrorFormatArg::Human => eprint!("{}", d.render_with(file, &self.palette)),
            ErrorFormatArg::Json => eprintln!("{}", d.to_json(file)),
        }
    }

    /// Prints a user error that has no place in the source (the command
    /// line, a file that cannot be read or written, a backend limit);
    /// `location`, a path, prefixes it in the human format.
    pub fn error(&self, location: Option<&Path>, message: impl Display) {
        self.unlocated(location, Level::Error, &message.to_string());
    }

    /// Prints an internal error (a bug in agc) that has no place in the source.
    pub fn internal(&self, location: Option<&Path>, message: impl Display) {
        self.unlocated(location, Level::Internal, &message.to_string());
    }

    fn unlocated(&self, location: Option<&Path>, level: Level, message: &str) {
        let location = location.map(|p| p.display().to_string());
        let location = location.as_deref();
        match self.format {
            ErrorFormatArg::Human => {
                eprint!(
                    "{}",
                    render_headline(location, level, message, &self.palette)
                )
            }
            ErrorFormatArg::Json => {
                let rendered = render_headline(location, level, message, &Palette::PLAIN);
                eprintln!("{}", json::unlocated(level, message, &rendered));
            }
        }
    }
}

/// Whether `choice` colours stderr: `auto` does when stderr is a terminal,
/// `NO_COLOR` is unset or empty (no-color.org) and `TERM` is not `dumb`.
fn wants_colour(choice: ColorArg) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    }
}
