//! The JSON format of diagnostics (`--error-format json`): one object per
//! diagnostic, on one line, shaped like rustc's `--error-format=json` so
//! tools that read rustc's diagnostics read agc's:
//!
//! ```text
//! {"$message_type": "diagnostic", "message", "code": null, "level",
//!  "spans": [{"file_name", "byte_start", "byte_end", "line_start", "line_end",
//!             "column_start", "column_end", "is_primary",
//!             "text": [{"text", "highlight_start", "highlight_end"}],
//!             "label", "suggested_replacement", "suggestion_applicability",
//!             "expansion"}],
//!  "children": [{"message", "code", "level": "help" | "note", "spans": [],
//!                "children": [], "rendered": null}],
//!  "rendered": the human format's text}
//! ```
//!
//! Lines and columns are 1-based, columns count characters (not bytes), and
//! `column_end`/`highlight_end` are one past the span's last character, as
//! in rustc. `text` holds every source line the span touches. The
//! suggestion of a misspelt name is a `help` child (`did you mean 'x'?`);
//! each note is a `note` child.

use super::{Diagnostic, Level};
use crate::source::SourceFile;
use serde_json::{json, Value};

impl Level {
    /// The JSON `level`, as rustc spells it.
    pub fn json_name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Internal => "error: internal compiler error",
            Level::Note => "note",
            Level::Help => "help",
        }
    }
}

impl Diagnostic {
    /// The diagnostic as a JSON object (see the module doc); `rendered` is
    /// the plain human format.
    pub fn to_json(&self, file: &SourceFile) -> Value {
        let children = self
            .help()
            .map(|help| child(Level::Help, &help))
            .into_iter()
            .chain(self.notes.iter().map(|note| child(Level::Note, note)))
            .collect();
        object(
            self.level(),
            &self.message,
            vec![self.primary_span(file)],
            children,
            &self.render(file),
        )
    }

    fn primary_span(&self, file: &SourceFile) -> Value {
        let clamp = |offset: u32| offset.min(file.text.len() as u32);
        let (start, end) = (clamp(self.span.start), clamp(self.span.end));
        let end = end.max(start);
        let (line_start, column_start) = file.line_col(start);
        let (line_end, column_end) = file.line_col(end);
        let text: Vec<Value> = (line_start..=line_end)
            .map(|l| {
                let text = file.line_text(l);
                let from = if l == line_start { column_start } else { 1 };
                let to = if l == line_end {
                    column_end
                } else {
                    text.chars().count() + 1
                };
                json!({"text": text, "highlight_start": from, "highlight_end": to})
            })
            .collect();
        json!({
            "file_name": file.path,
            "byte_start": start,
            "byte_end": end,
            "line_start": line_start,
            "line_end": line_end,
            "column_start": column_start,
            "column_end": column_end,
            "is_primary": true,
            "text": text,
            "label": null,
            "suggested_replacement": null,
            "suggestion_applicability": null,
            "expansion": null,
        })
    }
}

/// An error with no place in the source (a command-line, I/O or backend
/// error) as a JSON object with no spans; `rendered` is its human text.
pub fn unlocated(level: Level, message: &str, rendered: &str) -> Value {
    object(level, message, Vec::new(), Vec::new(), rendered)
}

fn object(
    level: Level,
    message: &str,
    spans: Vec<Value>,
    children: Vec<Value>,
    rendered: &str,
) -> Value {
    json!({
        "$message_type": "diagnostic",
        "message": message,
        "code": null,
        "level": level.json_name(),
        "spans": spans,
        "children": children,
        "rendered": rendered,
    })
}

fn child(level: Level, message: &str) -> Value {
    json!({
        "message": message,
        "code": null,
        "level": level.json_name(),
        "spans": [],
        "children": [],
        "rendered": null,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_ir::Span;

    #[test]
    fn columns_count_characters_and_end_one_past_the_span() {
        let f = SourceFile::new("m.py", "def f():\n\ty = \"é\" + zz\n");
        let start = "def f():\n\ty = \"é\" + ".len() as u32;
        let d = Diagnostic::error(Span::new(start, start + 2), "NameError: name 'zz'")
            .with_suggestion(Some("z"))
            .with_note("called here");
        let v = d.to_json(&f);
        assert_eq!(v["$message_type"], "diagnostic");
        assert_eq!(v["level"], "error");
        assert_eq!(v["message"], "NameError: name 'zz'");
        let span = &v["spans"][0];
        assert_eq!(
            (&span["line_start"], &span["line_end"]),
            (&json!(2), &json!(2))
        );
        assert_eq!(span["column_start"], 12);
        assert_eq!(span["column_end"], 14);
        assert_eq!(span["byte_start"], start);
        assert_eq!(span["byte_end"], start + 2);
        assert_eq!(span["is_primary"], true);
        assert_eq!(
            span["text"],
            json!([{"text": "\ty = \"é\" + zz", "highlight_start": 12, "highlight_end": 14}])
        );
        assert_eq!(v["children"][0]["level"], "help");
        assert_eq!(v["children"][0]["message"], "did you mean 'z'?");
        assert_eq!(v["children"][1]["level"], "note");
        assert_eq!(v["children"][1]["message"], "called here");
        assert_eq!(v["rendered"], d.render(&f));
        assert!(!v.to_string().contains('\n'), "one line");
    }

    #[test]
    fn a_span_over_several_lines_highlights_each() {
        let src = "x = f(a,\n      b,\n      c)\n";
        let f = SourceFile::new("m.py", src);
        let d = Diagnostic::internal(Span::new(4, src.len() as u32 - 1), "bad call");
        let v = d.to_json(&f);
        assert_eq!(v["level"], "error: internal compiler error");
        let span = &v["spans"][0];
        assert_eq!(
            (&span["line_start"], &span["line_end"]),
            (&json!(1), &json!(3))
        );
        let lines: Vec<(u64, u64)> = span["text"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let n = |k: &str| t[k].as_u64().unwrap();
                (n("highlight_start"), n("highlight_end"))
            })
            .collect();
        assert_eq!(lines, [(5, 9), (1, 9), (1, 9)]);
    }

    #[test]
    fn an_unlocated_error_has_no_spans() {
        let v = unlocated(Level::Error, "cannot read", "m.py: error: cannot read\n");
        assert_eq!(v["spans"], json!([]));
        assert_eq!(v["children"], json!([]));
        assert_eq!(v["rendered"], "m.py: error: cannot read\n");
    }
}
