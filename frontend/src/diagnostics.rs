//! Diagnostics: what the frontend reports, and their rendering as
//! `file:line:col: error: message`, the source line and a caret.
//!
//! The split between a user error, an unsupported construct and an internal
//! bug decides the exit code (1, 1 and 2).

use crate::source::SourceFile;
use agc_ir::Span;
use std::fmt::Write;

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DiagnosticKind {
    /// The program is wrong (type, shape, name, ...).
    Error,
    /// The program uses Python that agc does not stage.
    Unsupported,
    /// A bug in agc.
    Internal,
    /// The program raises a Python exception here (`IndexError`,
    /// `UnboundLocalError`, ...): an error when staging runs it
    /// unconditionally; under staged control flow the stager makes it a
    /// run-time error status of the path instead, as CPython raises only
    /// where the path is taken.
    Raises,
}

/// A problem at a source span, with optional notes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// Error, unsupported or internal.
    pub kind: DiagnosticKind,
    /// Where (byte range in the model file).
    pub span: Span,
    /// The headline.
    pub message: String,
    /// Extra lines (`note: ...`), e.g. the call chain that led here.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A user error.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            kind: DiagnosticKind::Error,
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// An unsupported construct.
    pub fn unsupported(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            kind: DiagnosticKind::Unsupported,
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// An internal error.
    pub fn internal(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            kind: DiagnosticKind::Internal,
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// The Python exception `exception` (its class name, e.g. `IndexError`)
    /// that the program raises where staging reaches `span` (see
    /// [`DiagnosticKind::Raises`]); the message reads like CPython's
    /// traceback line, `IndexError: list index out of range`.
    pub fn raises(span: Span, exception: &str, message: impl AsRef<str>) -> Self {
        let message = match message.as_ref() {
            "" => exception.to_string(),
            text => format!("{exception}: {text}"),
        };
        Diagnostic {
            kind: DiagnosticKind::Raises,
            span,
            message,
            notes: Vec::new(),
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The process exit code for this diagnostic.
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            DiagnosticKind::Error | DiagnosticKind::Unsupported | DiagnosticKind::Raises => 1,
            DiagnosticKind::Internal => 2,
        }
    }

    /// Renders as `path:line:col: error: message`, the source line with its
    /// number, a caret line under the span, then the notes.
    pub fn render(&self, file: &SourceFile) -> String {
        let (line, col) = file.line_col(self.span.start);
        let severity = match self.kind {
            DiagnosticKind::Internal => "internal error",
            _ => "error",
        };
        let mut out = format!("{}:{line}:{col}: {severity}: {}\n", file.path, self.message);
        let text = file.line_text(line);
        let gutter = line.to_string().len();
        let (end_line, end_col) = file.line_col(self.span.end.max(self.span.start));
        let width = if end_line == line && end_col > col {
            end_col - col
        } else {
            1
        };
        let width = width.min(text.chars().count().saturating_sub(col - 1).max(1));
        let _ = writeln!(out, "{:gutter$} |", "");
        let _ = writeln!(out, "{line} | {text}");
        let _ = writeln!(
            out,
            "{:gutter$} | {}{}",
            "",
            " ".repeat(col - 1),
            "^".repeat(width)
        );
        for note in &self.notes {
            let _ = writeln!(out, "{:gutter$} = note: {note}", "");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_file_line_col_source_and_caret() {
        let f = SourceFile::new("m.py", "import agc\ny = x @ w\n");
        let d =
            Diagnostic::error(Span::new(15, 20), "matmul: shapes differ").with_note("called here");
        let text = d.render(&f);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "m.py:2:5: error: matmul: shapes differ");
        assert_eq!(lines[2], "2 | y = x @ w");
        assert_eq!(lines[3], "  |     ^^^^^");
        assert_eq!(lines[4], "  = note: called here");
    }
}
