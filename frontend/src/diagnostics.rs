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

    /// Renders as `path:line:col: error: message`, the source lines of the
    /// span (at most [`MAX_SPAN_LINES`]) with their numbers, each with a
    /// caret line under its part of the span, then the notes.
    pub fn render(&self, file: &SourceFile) -> String {
        let (line, col) = file.line_col(self.span.start);
        let severity = match self.kind {
            DiagnosticKind::Internal => "internal error",
            _ => "error",
        };
        let mut out = format!("{}:{line}:{col}: {severity}: {}\n", file.path, self.message);
        let (end_line, end_col) = file.line_col(self.span.end.max(self.span.start));
        let end_line = end_line.max(line);
        let shown = end_line.min(line + MAX_SPAN_LINES - 1);
        let gutter = shown.to_string().len();
        let _ = writeln!(out, "{:gutter$} |", "");
        for l in line..=shown {
            let text = file.line_text(l);
            let chars: Vec<char> = text.chars().collect();
            // Carets from `from` to `to` (0-based character columns, `to` exclusive).
            let from = if l == line {
                col - 1
            } else {
                chars.iter().take_while(|c| c.is_whitespace()).count()
            };
            let to = if l == end_line && end_col > 1 {
                end_col - 1
            } else {
                chars.len()
            };
            let to = to.min(chars.len()).max(from + 1);
            // The padding repeats the line's tabs, so the carets line up in any tab width.
            let pad: String = chars
                .iter()
                .take(from)
                .map(|&c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "{l:>gutter$} | {text}");
            let _ = writeln!(out, "{:gutter$} | {pad}{}", "", "^".repeat(to - from));
        }
        if shown < end_line {
            let _ = writeln!(out, "{:gutter$} | ...", "");
        }
        for note in &self.notes {
            let _ = writeln!(out, "{:gutter$} = note: {note}", "");
        }
        out
    }
}

/// Source lines a diagnostic shows at most (then `...`).
pub const MAX_SPAN_LINES: usize = 4;

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

    #[test]
    fn carets_follow_tabs_and_wide_characters() {
        let f = SourceFile::new("m.py", "def f():\n\ty = \"é\" + zz\n");
        let start = "def f():\n\ty = \"é\" + ".len() as u32;
        let text = Diagnostic::error(Span::new(start, start + 2), "undefined").render(&f);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "m.py:2:12: error: undefined");
        assert_eq!(lines[3], "  | \t          ^^", "{text}");
    }

    #[test]
    fn a_span_over_several_lines_shows_each() {
        let src = "x = f(a,\n      b,\n      c)\n";
        let f = SourceFile::new("m.py", src);
        let text = Diagnostic::error(Span::new(4, src.len() as u32 - 1), "bad call").render(&f);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "1 | x = f(a,");
        assert_eq!(lines[3], "  |     ^^^^", "{text}");
        assert_eq!(lines[4], "2 |       b,");
        assert_eq!(lines[5], "  |       ^^", "{text}");
        assert_eq!(lines[6], "3 |       c)");
        assert_eq!(lines[7], "  |       ^^", "{text}");
    }
}
