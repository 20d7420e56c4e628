//! Diagnostics: what the frontend reports, and their rendering as
//! `file:line:col: error: message`, the source lines and carets (the human
//! format, optionally coloured by a [`Palette`]) or as one JSON object per
//! diagnostic ([`json`], shaped like rustc's `--error-format=json`).
//!
//! The split between a user error, an unsupported construct and an internal
//! bug decides the exit code (1, 1 and 2).

pub mod json;
mod palette;

pub use palette::Palette;

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

/// How severe a printed message is: the label the human format prints
/// before the message and the `level` of the JSON format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Level {
    /// An error in the user's program or command line (exit code 1).
    Error,
    /// A bug in agc (exit code 2).
    Internal,
    /// Extra information attached to a diagnostic.
    Note,
    /// A suggestion attached to a diagnostic (`did you mean 'x'?`).
    Help,
}

impl Level {
    /// The human format's label: `error`, `internal error`, `note`, `help`.
    pub fn label(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Internal => "internal error",
            Level::Note => "note",
            Level::Help => "help",
        }
    }
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
    /// The name the user probably meant (a near miss of a misspelt one):
    /// the human format ends the headline with ` (did you mean 'x'?)`.
    pub suggestion: Option<String>,
}

impl Diagnostic {
    fn new(kind: DiagnosticKind, span: Span, message: String) -> Self {
        Diagnostic {
            kind,
            span,
            message,
            notes: Vec::new(),
            suggestion: None,
        }
    }

    /// A user error.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Self::new(DiagnosticKind::Error, span, message.into())
    }

    /// An unsupported construct.
    pub fn unsupported(span: Span, message: impl Into<String>) -> Self {
        Self::new(DiagnosticKind::Unsupported, span, message.into())
    }

    /// An internal error.
    pub fn internal(span: Span, message: impl Into<String>) -> Self {
        Self::new(DiagnosticKind::Internal, span, message.into())
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
        Self::new(DiagnosticKind::Raises, span, message)
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Suggests `name` as what the user meant (nothing when `None`).
    pub fn with_suggestion(mut self, name: Option<&str>) -> Self {
        self.suggestion = name.map(str::to_string);
        self
    }

    /// The process exit code for this diagnostic.
    pub fn exit_code(&self) -> i32 {
        match self.level() {
            Level::Internal => 2,
            _ => 1,
        }
    }

    /// The level it is printed at: [`Level::Internal`] for a bug in agc,
    /// else [`Level::Error`].
    pub fn level(&self) -> Level {
        match self.kind {
            DiagnosticKind::Internal => Level::Internal,
            _ => Level::Error,
        }
    }

    /// The suggestion as the human format and the JSON `help` child word it:
    /// `did you mean 'x'?`.
    pub fn help(&self) -> Option<String> {
        self.suggestion
            .as_ref()
            .map(|name| format!("did you mean '{name}'?"))
    }

    /// The message with the suggestion, if any, in parentheses after it: the
    /// first line of the human format, and what a path that raises at run
    /// time reports.
    pub fn headline(&self) -> String {
        match self.help() {
            Some(help) => format!("{} ({help})", self.message),
            None => self.message.clone(),
        }
    }

    /// Renders as `path:line:col: error: message`, the source lines of the
    /// span (at most [`MAX_SPAN_LINES`]) with their numbers, each with a
    /// caret line under its part of the span, then the notes; no colour.
    pub fn render(&self, file: &SourceFile) -> String {
        self.render_with(file, &Palette::PLAIN)
    }

    /// [`Diagnostic::render`], with each part styled by `palette`.
    pub fn render_with(&self, file: &SourceFile, palette: &Palette) -> String {
        let (line, col) = file.line_col(self.span.start);
        let location = format!("{}:{line}:{col}", file.path);
        let mut out = render_headline(Some(&location), self.level(), &self.headline(), palette);
        let (end_line, end_col) = file.line_col(self.span.end.max(self.span.start));
        let end_line = end_line.max(line);
        let shown = end_line.min(line + MAX_SPAN_LINES - 1);
        let gutter = shown.to_string().len();
        let g = palette.gutter;
        let _ = writeln!(out, "{g}{:gutter$} |{g:#}", "");
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
            // A long line shows a window of it, from a little before the span.
            let (start, end) = if chars.len() > MAX_LINE_CHARS {
                let start = from.saturating_sub(MAX_LINE_CHARS / 4);
                (start, (start + MAX_LINE_CHARS).min(chars.len()))
            } else {
                (0, chars.len())
            };
            let (before, after) = (
                if start > 0 { "..." } else { "" },
                if end < chars.len() { "..." } else { "" },
            );
            let shown_text: String = chars[start..end].iter().collect();
            let (from, to) = (from.max(start), to.min(end).max(from.max(start) + 1));
            // The padding repeats the line's tabs, so the carets line up in any tab width.
            let pad: String = " ".repeat(before.len())
                + &chars[start..from.min(end)]
                    .iter()
                    .map(|&c| if c == '\t' { '\t' } else { ' ' })
                    .collect::<String>();
            let c = palette.caret;
            let _ = writeln!(out, "{g}{l:>gutter$} |{g:#} {before}{shown_text}{after}");
            let carets = "^".repeat(to - from);
            let _ = writeln!(out, "{g}{:gutter$} |{g:#} {pad}{c}{carets}{c:#}", "");
        }
        if shown < end_line {
            let _ = writeln!(out, "{g}{:gutter$} |{g:#} ...", "");
        }
        for note in &self.notes {
            let n = palette.note;
            let _ = writeln!(out, "{g}{:gutter$} ={g:#} {n}note:{n:#} {note}", "");
        }
        out
    }
}

/// The first line of a diagnostic, `location: level: message` and a newline
/// (`level: message` without a location), styled by `palette`; on its own,
/// the whole rendering of an error that has no place in the source (a
/// command-line or I/O error).
pub fn render_headline(
    location: Option<&str>,
    level: Level,
    message: &str,
    palette: &Palette,
) -> String {
    let (loc, lev, msg) = (palette.location, palette.level(level), palette.message);
    let label = level.label();
    let mut out = String::new();
    if let Some(location) = location {
        let _ = write!(out, "{loc}{location}:{loc:#} ");
    }
    let _ = writeln!(out, "{lev}{label}:{lev:#} {msg}{message}{msg:#}");
    out
}

/// Characters of a source line a diagnostic shows at most: a longer line
/// shows a window around the span, marked `...` where it is cut.
pub const MAX_LINE_CHARS: usize = 160;

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
    fn a_palette_only_adds_escapes() {
        let f = SourceFile::new("m.py", "y = lenn(x)\n");
        let d = Diagnostic::error(Span::new(4, 8), "NameError: name 'lenn' is not defined")
            .with_suggestion(Some("len"))
            .with_note("called here");
        let plain = d.render(&f);
        assert!(plain.starts_with(
            "m.py:1:5: error: NameError: name 'lenn' is not defined (did you mean 'len'?)\n"
        ));
        let coloured = d.render_with(&f, &Palette::ANSI);
        assert_ne!(coloured, plain);
        let mut stripped = String::new();
        let mut rest = coloured.as_str();
        while let Some(at) = rest.find('\x1b') {
            stripped.push_str(&rest[..at]);
            rest = &rest[at + rest[at..].find('m').unwrap() + 1..];
        }
        stripped.push_str(rest);
        assert_eq!(stripped, plain);
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

    #[test]
    fn a_long_line_shows_a_window_around_the_span() {
        let terms: Vec<String> = (0..400).map(|i| format!("x{i}")).collect();
        let src = format!("y = {}\n", terms.join(" + "));
        let f = SourceFile::new("m.py", &src);
        let start = src.find("x300").unwrap() as u32;
        let text = Diagnostic::error(Span::new(start, start + 4), "undefined").render(&f);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[2].starts_with("1 | ...") && lines[2].ends_with("..."),
            "{text}"
        );
        assert!(lines[2].chars().count() <= MAX_LINE_CHARS + 12, "{text}");
        // The carets stand under the span in the window.
        let at = lines[3].find('^').unwrap();
        assert_eq!(&lines[2][at..at + 4], "x300", "{text}");
        assert_eq!(lines[3].matches('^').count(), 4, "{text}");
        // A span reaching past the window is cut at its end.
        let text = Diagnostic::error(Span::new(4, src.len() as u32 - 1), "long").render(&f);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[2].starts_with("1 | y = x0") && lines[2].ends_with("..."),
            "{text}"
        );
        assert_eq!(lines[3].matches('^').count(), MAX_LINE_CHARS - 4, "{text}");
    }
}
