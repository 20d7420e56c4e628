//! A source file and the mapping from byte offsets to lines and columns.

/// The model's source text with its path and line index.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as given on the command line (used in diagnostics).
    pub path: String,
    /// The whole text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Indexes `text`.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let mut offset = (offset as usize).min(self.text.len());
        // A span may end inside a multi-byte character: count from its start.
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e - 1);
        self.text[start..end].trim_end_matches('\r')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_columns() {
        let f = SourceFile::new("m.py", "a = 1\nbb = 2\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(6), (2, 1));
        assert_eq!(f.line_col(9), (2, 4));
        assert_eq!(f.line_text(2), "bb = 2");
    }

    #[test]
    fn an_offset_inside_a_character_counts_from_its_start() {
        let f = SourceFile::new("m.py", "\"é\"\n");
        assert_eq!(f.line_col(2), (1, 2));
        assert_eq!(f.line_col(3), (1, 3));
    }
}
