//! The C-level signature of each export, derived once from the IR and shared
//! by the host code ([`crate::llvm`]), the header ([`crate::header`]) and the
//! metadata JSON ([`crate::metadata`]).

use crate::BackendError;
use agc_ir::{DType, Dim, Module};

/// One parameter or result as C sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorSig {
    /// Python name of a parameter, or `out0`, `out1`, ... for results.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Dims (symbolic dims by name).
    pub dims: Vec<Dim>,
}

/// One exported entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportSig {
    /// Exported C symbol.
    pub c_name: String,
    /// The kernel entry it calls: `_mlir_ciface_agc_impl_<func name>`.
    pub kernel_symbol: String,
    /// Python docstring.
    pub doc: String,
    /// Parameters, in order.
    pub params: Vec<TensorSig>,
    /// Results, in order.
    pub results: Vec<TensorSig>,
    /// Distinct symbolic dims among the parameters, in order of appearance.
    pub syms: Vec<String>,
}

impl ExportSig {
    /// Index of a symbolic dim of the parameters.
    pub fn sym_index(&self, name: &str) -> Option<usize> {
        self.syms.iter().position(|s| s == name)
    }
}

/// The C symbols besides the exports: `<NAME>_last_error`, `_release`, `_metadata`.
pub fn api_functions(module_name: &str) -> [String; 3] {
    ["last_error", "release", "metadata"].map(|s| format!("{module_name}_{s}"))
}

/// Every symbol a generated library exports.
pub fn api_symbols(module_name: &str, sigs: &[ExportSig]) -> Vec<String> {
    let mut v: Vec<String> = sigs.iter().map(|s| s.c_name.clone()).collect();
    v.extend(api_functions(module_name));
    v
}

/// True for `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The signatures of `m`'s exports, checking that the library name and the
/// exported names are usable C identifiers that do not collide.
pub fn signatures(m: &Module, library_name: &str) -> Result<Vec<ExportSig>, BackendError> {
    if !is_c_identifier(library_name) {
        return Err(BackendError::Unsupported(format!(
            "library name '{library_name}' is not a C identifier"
        )));
    }
    let reserved = api_functions(library_name);
    let mut sigs: Vec<ExportSig> = Vec::new();
    for e in &m.exports {
        let f = m.funcs.get(e.func.index()).ok_or_else(|| {
            BackendError::Unsupported(format!("export '{}' names a missing function", e.c_name))
        })?;
        if !is_c_identifier(&e.c_name)
            || e.c_name.starts_with("agc_rt_")
            || reserved.contains(&e.c_name)
        {
            return Err(BackendError::Unsupported(format!(
                "exported name '{}' is not usable as a C symbol",
                e.c_name
            )));
        }
        if sigs.iter().any(|s| s.c_name == e.c_name) {
            return Err(BackendError::Unsupported(format!(
                "'{}' is exported twice",
                e.c_name
            )));
        }
        let params: Vec<TensorSig> = f
            .params()
            .iter()
            .zip(&f.param_names)
            .map(|(&v, name)| {
                let t = f.ty(v).tensor();
                TensorSig {
                    name: name.clone(),
                    dtype: t.dtype,
                    dims: t.dims.clone(),
                }
            })
            .collect();
        let results = f
            .result_types
            .iter()
            .enumerate()
            .map(|(k, ty)| TensorSig {
                name: format!("out{k}"),
                dtype: ty.tensor().dtype,
                dims: ty.tensor().dims.clone(),
            })
            .collect();
        let mut syms: Vec<String> = Vec::new();
        for d in params.iter().flat_map(|p| &p.dims) {
            if let Dim::Sym(s) = d {
                if !syms.contains(s) {
                    syms.push(s.clone());
                }
            }
        }
        sigs.push(ExportSig {
            c_name: e.c_name.clone(),
            kernel_symbol: format!("_mlir_ciface_agc_impl_{}", f.name),
            doc: e.doc.clone(),
            params,
            results,
            syms,
        });
    }
    Ok(sigs)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use agc_ir::{BinaryOp, Function, OpKind, Span, TensorType, Type};

    /// `y = x + b` with x: f32[B,3], b: f32[3], exported as `add_bias`.
    pub fn add_bias_module() -> Module {
        let x = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(3)]);
        let b = TensorType::static_shape(DType::F32, &[3]);
        let mut f = Function::new(
            "add_bias",
            &[
                ("x".into(), Type::from(x.clone())),
                ("b".into(), Type::from(b)),
            ],
            Span::default(),
        );
        let (p, body) = (f.params().to_vec(), f.body);
        let (_, r) = f.append_op(
            body,
            OpKind::Binary(BinaryOp::Add),
            p,
            vec![x.clone().into()],
            vec![],
            Span::default(),
        );
        f.append_op(body, OpKind::Return, r, vec![], vec![], Span::default());
        f.result_types = vec![x.into()];
        let mut m = Module::new("demo");
        let id = m.add_function(f);
        m.exports.push(agc_ir::Export {
            func: id,
            c_name: "add_bias".into(),
            doc: "Adds a bias.".into(),
        });
        m
    }

    #[test]
    fn signature_of_add_bias() {
        let sigs = signatures(&add_bias_module(), "demo").unwrap();
        assert_eq!(sigs[0].syms, vec!["B".to_string()]);
        assert_eq!(sigs[0].kernel_symbol, "_mlir_ciface_agc_impl_add_bias");
        assert_eq!(sigs[0].results[0].name, "out0");
        assert!(signatures(&add_bias_module(), "my-lib").is_err());
        assert_eq!(api_symbols("demo", &sigs).len(), 4);
    }
}
