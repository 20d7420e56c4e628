//! `agc.weights(path)`: the tensors of a safetensors or npz file as a dict
//! of compile-time constants whose data stays in the file. The path is
//! relative to the model file. Only the file's description is read here
//! (names, dtypes, shapes); each tensor is a `weight` op of the module's
//! weight table, and the backend places the data.

use super::args::Args;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{Dim, OpKind, TensorType, WeightDecl};
use agc_weights::WeightFile;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

impl Stager {
    /// `agc.weights(path)`: a dict from tensor name to weight.
    pub fn load_weights(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let path = match (args.pos.as_slice(), args.kw.as_slice()) {
            ([Value::Str(p)], []) => p.clone(),
            ([], [(k, Value::Str(p))]) if k == "path" => p.clone(),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "agc.weights takes one argument: the path of a .safetensors or .npz file, a string known at compile time",
                ))
            }
        };
        let file = self.weights_path(&path);
        let opened = WeightFile::open(&file).map_err(|e| {
            Diagnostic::error(span, format!("agc.weights: {e}"))
                .with_note("paths are relative to the model file")
        })?;
        let mut items = Vec::with_capacity(opened.entries.len());
        for entry in &opened.entries {
            let ty = TensorType::new(
                entry.dtype,
                entry.shape.iter().map(|&d| Dim::Static(d as i64)).collect(),
            );
            let decl = WeightDecl {
                file: file.clone(),
                key: entry.name.clone(),
                ty: ty.clone(),
            };
            let index = match self.module.weights.iter().position(|w| *w == decl) {
                Some(i) => i,
                None => {
                    self.module.weights.push(decl);
                    self.module.weights.len() - 1
                }
            };
            let t = self.emit(OpKind::Weight(index as u32), &[], ty, span)?;
            items.push((Value::str(&entry.name), Value::Tensor(t)));
        }
        Ok(Value::Dict(Rc::new(RefCell::new(items))))
    }

    /// `path` resolved against the model file's directory, made absolute.
    fn weights_path(&self, path: &str) -> PathBuf {
        let model_dir = Path::new(&self.file.path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let joined = model_dir.join(path);
        std::path::absolute(&joined).unwrap_or(joined)
    }
}
