//! Source spans: byte ranges into the model's source file, stamped on every op
//! so diagnostics and `--emit ir` point at the user's line.

/// A half-open byte range `[start, end)` in the source file of the module.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span covering `start..end`.
    pub fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }

    /// The span of generated code that has no source location.
    pub const UNKNOWN: Span = Span { start: 0, end: 0 };

    /// True for [`Span::UNKNOWN`].
    pub fn is_unknown(&self) -> bool {
        self.start == 0 && self.end == 0
    }
}
