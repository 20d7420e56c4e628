//! Parses the text [`crate::print`] writes back into a [`Module`]: printing
//! a parsed module gives the same text, value numbers included, so passes
//! can be tested IR-in/IR-out from text (`agc opt`). Spans, the source's
//! line table and docstrings are not printed, so a parsed module has none.
//!
//! The text is line-oriented: `module @NAME {`, `export @C = FUNC` lines,
//! then functions (`func @NAME(%0: TYPE /*name*/, ..) -> (TYPES) {`), one op
//! per line (`%r, .. = NAME %a, .. {ATTRS} : TYPES`), each nested region
//! opening with `^(%p: TYPE, ..) {` and closing with `}`.

mod kinds;
mod text;

use crate::entities::{FuncId, RegionId, Value};
use crate::function::{Export, Function, Module, OpData, ValueDef};
use crate::span::Span;
use text::{matching, split_top, Scan};
use thiserror::Error;

/// Where and why the text is not IR.
#[derive(Debug, Error, PartialEq)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a module printed by [`crate::print::print_module`].
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    let mut p = Lines {
        lines: src.lines().collect(),
        at: 0,
    };
    let head = p.next()?;
    let name = head
        .strip_prefix("module @")
        .and_then(|r| r.strip_suffix(" {"))
        .ok_or_else(|| p.err("expected 'module @NAME {'"))?;
    let mut m = Module::new(name);
    let mut exports = Vec::new();
    while let Some(e) = p.peek().and_then(|l| l.strip_prefix("export @")) {
        p.next()?;
        let (c_name, func) = e
            .split_once(" = ")
            .ok_or_else(|| p.err("expected 'export @C = FUNC'"))?;
        exports.push((c_name.to_string(), func.to_string(), p.at));
    }
    while p.peek().is_some_and(|l| l.starts_with("func @")) {
        let f = p.function()?;
        m.add_function(f);
    }
    if p.next()? != "}" {
        return Err(p.err("expected '}' closing the module"));
    }
    for (c_name, func, line) in exports {
        let id = m
            .funcs
            .iter()
            .position(|f| f.name == func)
            .ok_or_else(|| ParseError::at(line, format!("no function @{func}")))?;
        m.exports.push(Export {
            func: FuncId(id as u32),
            c_name,
            doc: String::new(),
            assigns: vec![],
        });
    }
    Ok(m)
}

/// A cursor over the trimmed lines of the text; lines starting with `//`
/// (the statistics `--emit opt-ir` writes) are comments, skipped.
struct Lines<'s> {
    lines: Vec<&'s str>,
    at: usize,
}

impl<'s> Lines<'s> {
    /// The index of the next line that is not a comment.
    fn next_code(&self) -> Option<usize> {
        (self.at..self.lines.len()).find(|&i| !self.lines[i].trim().starts_with("//"))
    }

    fn peek(&self) -> Option<&'s str> {
        self.next_code().map(|i| self.lines[i].trim())
    }

    fn next(&mut self) -> Result<&'s str, ParseError> {
        let i = self
            .next_code()
            .ok_or_else(|| self.err("unexpected end of text"))?;
        self.at = i + 1;
        Ok(self.lines[i].trim())
    }

    /// An error at the line last read.
    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError::at(self.at.max(1), message)
    }

    fn scan<T>(&self, r: Scan<T>) -> Result<T, ParseError> {
        r.map_err(|m| self.err(m))
    }

    fn function(&mut self) -> Result<Function, ParseError> {
        let line = self.next()?;
        let rest = line
            .strip_prefix("func @")
            .ok_or_else(|| self.err("expected 'func @'"))?;
        let open = rest.find('(').ok_or_else(|| self.err("expected '('"))?;
        let name = &rest[..open];
        let close = open + self.scan(matching(&rest[open..], '(', ')'))?;
        let results = rest[close + 1..]
            .trim()
            .strip_prefix("-> (")
            .and_then(|r| r.strip_suffix(") {"))
            .ok_or_else(|| self.err("expected '-> (TYPES) {'"))?;
        let mut f = Function::new(name, &[], Span::UNKNOWN);
        f.result_types = self.scan(text::types(results))?;
        let mut names = Vec::new();
        let params = self.params(&mut f, &rest[open + 1..close], Some(&mut names))?;
        f.param_names = names;
        let body = f.region_with_params(params);
        f.set_body(body);
        self.region_ops(&mut f, body)?;
        Ok(f)
    }

    /// Defines the parameters `%i: TYPE [/*name*/], ..` of the next region.
    fn params(
        &self,
        f: &mut Function,
        list: &str,
        mut names: Option<&mut Vec<String>>,
    ) -> Result<Vec<Value>, ParseError> {
        let region = RegionId(f.num_regions() as u32);
        let mut out = Vec::new();
        for (index, p) in split_top(list).into_iter().enumerate() {
            let (v, rest) = p
                .split_once(':')
                .ok_or_else(|| self.err("expected '%N: TYPE'"))?;
            let (ty, name) = match rest.split_once("/*") {
                Some((ty, n)) => (ty, n.strip_suffix("*/").unwrap_or(n)),
                None => (rest, ""),
            };
            let v = self.scan(text::value(v))?;
            f.define_value(
                v,
                self.scan(text::ty(ty))?,
                ValueDef::Param { region, index },
            );
            if let Some(names) = names.as_deref_mut() {
                names.push(name.to_string());
            }
            out.push(v);
        }
        Ok(out)
    }

    /// Reads ops into `region` up to its closing `}`.
    fn region_ops(&mut self, f: &mut Function, region: RegionId) -> Result<(), ParseError> {
        loop {
            let line = self.next()?;
            if line == "}" {
                return Ok(());
            }
            self.op(f, region, line)?;
        }
    }

    fn op(&mut self, f: &mut Function, region: RegionId, line: &str) -> Result<(), ParseError> {
        let (results, rest) = match line.starts_with('%') {
            true => line
                .split_once(" = ")
                .ok_or_else(|| self.err("expected ' = '"))?,
            false => ("", line),
        };
        let results: Vec<Value> = split_top(results)
            .into_iter()
            .map(|v| self.scan(text::value(v)))
            .collect::<Result<_, _>>()?;
        let (name, mut rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let types_at = rest.rfind(" : ").filter(|_| !results.is_empty());
        let types = match types_at {
            Some(i) => {
                let t = self.scan(text::types(&rest[i + 3..]))?;
                rest = &rest[..i];
                t
            }
            None => Vec::new(),
        };
        if types.len() != results.len() {
            return Err(self.err("one type per result expected"));
        }
        let (operands, attrs) = match rest
            .find(" {")
            .or_else(|| rest.starts_with('{').then_some(0))
        {
            Some(i) => {
                let a = rest[i..].trim_start();
                let end = self.scan(matching(a, '{', '}'))?;
                (&rest[..i], &a[1..end])
            }
            None => (rest, ""),
        };
        let operands = split_top(operands)
            .into_iter()
            .map(|v| self.scan(text::value(v)))
            .collect::<Result<_, _>>()?;
        let kind = self.scan(kinds::kind(name, attrs, &types))?;
        let mut regions = Vec::new();
        while let Some(head) = self.peek().filter(|l| l.starts_with("^(")) {
            self.next()?;
            let inner = head
                .strip_prefix("^(")
                .and_then(|r| r.strip_suffix(") {"))
                .ok_or_else(|| self.err("expected '^(PARAMS) {'"))?;
            let params = self.params(f, inner, None)?;
            let r = f.region_with_params(params);
            self.region_ops(f, r)?;
            regions.push(r);
        }
        let op = f.next_op();
        for (index, (v, ty)) in results.iter().zip(types).enumerate() {
            f.define_value(*v, ty, ValueDef::Result { op, index });
        }
        let data = OpData {
            kind,
            operands,
            results,
            regions,
            span: Span::UNKNOWN,
        };
        f.append_op_with_results(region, data);
        Ok(())
    }
}
