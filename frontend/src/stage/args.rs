//! Argument lists of calls into builtins and library functions: positional
//! and keyword values with numpy-style parameter names.

use super::value::Value;
use super::R;
use crate::diagnostics::Diagnostic;
use agc_ir::Span;

/// Evaluated call arguments.
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// Positional arguments.
    pub pos: Vec<Value>,
    /// Keyword arguments, in order.
    pub kw: Vec<(String, Value)>,
    /// The call's span.
    pub span: Span,
}

impl Args {
    /// Arguments from positional values only.
    pub fn positional(pos: Vec<Value>, span: Span) -> Self {
        Args {
            pos,
            kw: Vec::new(),
            span,
        }
    }

    /// Argument `index` by position, or by keyword `name`.
    pub fn get(&self, index: usize, name: &str) -> Option<Value> {
        self.pos.get(index).cloned().or_else(|| {
            self.kw
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    /// Like [`Args::get`], with `None` treated as absent.
    pub fn get_some(&self, index: usize, name: &str) -> Option<Value> {
        self.get(index, name).filter(|v| !matches!(v, Value::None))
    }

    /// A required argument.
    pub fn req(&self, index: usize, name: &str, func: &str) -> R<Value> {
        self.get(index, name).ok_or_else(|| {
            Diagnostic::error(
                self.span,
                format!("{func}() missing required argument '{name}'"),
            )
        })
    }

    /// Rejects positional arguments beyond `max` and keywords outside `names`.
    pub fn check(&self, func: &str, max: usize, names: &[&str]) -> R<()> {
        if self.pos.len() > max {
            return Err(Diagnostic::error(
                self.span,
                format!(
                    "{func}() takes at most {max} positional arguments but {} were given",
                    self.pos.len()
                ),
            ));
        }
        for (k, _) in &self.kw {
            if !names.contains(&k.as_str()) {
                return Err(Diagnostic::error(
                    self.span,
                    format!("{func}() got an unexpected keyword argument '{k}'"),
                ));
            }
        }
        Ok(())
    }
}
