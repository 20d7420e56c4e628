//! Colours of the human format: one [`anstyle::Style`] per part of a
//! diagnostic. [`Palette::PLAIN`] styles nothing (its escapes are empty
//! strings), so one renderer serves coloured and plain output.

use super::Level;
use anstyle::{AnsiColor, Color, Style};

/// The style of each part of a rendered diagnostic.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Palette {
    /// `file:line:col:`.
    pub location: Style,
    /// The `error:` label.
    pub error: Style,
    /// The `internal error:` label.
    pub internal: Style,
    /// The message after the label.
    pub message: Style,
    /// Line numbers and the `|` / `=` gutter.
    pub gutter: Style,
    /// The carets under the span.
    pub caret: Style,
    /// The `note:` label.
    pub note: Style,
}

const fn bold(color: Option<AnsiColor>) -> Style {
    let style = Style::new().bold();
    match color {
        Some(c) => style.fg_color(Some(Color::Ansi(c))),
        None => style,
    }
}

impl Palette {
    /// No colour: the text as a file or a pipe should receive it.
    pub const PLAIN: Palette = Palette {
        location: Style::new(),
        error: Style::new(),
        internal: Style::new(),
        message: Style::new(),
        gutter: Style::new(),
        caret: Style::new(),
        note: Style::new(),
    };

    /// ANSI colours for a terminal, as rustc and clang use them: bold
    /// location and message, red labels and carets, a blue gutter.
    pub const ANSI: Palette = Palette {
        location: bold(None),
        error: bold(Some(AnsiColor::BrightRed)),
        internal: bold(Some(AnsiColor::BrightRed)),
        message: bold(None),
        gutter: bold(Some(AnsiColor::BrightBlue)),
        caret: bold(Some(AnsiColor::BrightRed)),
        note: bold(None),
    };

    /// The style of `level`'s label.
    pub fn level(&self, level: Level) -> Style {
        match level {
            Level::Error => self.error,
            Level::Internal => self.internal,
            Level::Note | Level::Help => self.note,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_writes_no_escapes_and_ansi_does() {
        let style = Palette::PLAIN.error;
        assert_eq!(format!("{style}error:{style:#}"), "error:");
        let style = Palette::ANSI.error;
        let text = format!("{style}error:{style:#}");
        assert!(
            text.starts_with('\x1b') && text.ends_with("\x1b[0m"),
            "{text:?}"
        );
    }
}
