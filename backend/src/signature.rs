//! The C-level signature of each export, derived once from the IR and shared
//! by the host code ([`crate::llvm`]), the header ([`crate::header`]) and the
//! metadata JSON ([`crate::metadata`]).

use crate::BackendError;
use agc_ir::{DType, Dim, Export, Module};

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
    /// The export's name: the Python method of `agc.load` and the metadata's `name`.
    pub name: String,
    /// Its C symbol: `<NAME>_<name>`, so that several models link into one program.
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
    /// The function makes calls (maybe recursive): the entry point runs it
    /// on the runtime's large stack.
    pub calls: bool,
    /// The entry points take the library's context first.
    pub context: bool,
    /// The library's variables, which the kernel takes after the parameters.
    pub state: Vec<TensorSig>,
    /// The variables the export assigns (indices into `state`): the kernel
    /// returns their new values after the results.
    pub assigns: Vec<usize>,
}

impl ExportSig {
    /// Index of a symbolic dim of the parameters.
    pub fn sym_index(&self, name: &str) -> Option<usize> {
        self.syms.iter().position(|s| s == name)
    }

    /// The C symbol of the variant writing into caller-owned results: `<NAME>_<name>_into`.
    pub fn into_symbol(&self) -> String {
        format!("{}{}", self.c_name, Export::SYMBOL_SUFFIXES[0])
    }

    /// The C symbol of the result-shape query: `<NAME>_<name>_result_shapes`.
    pub fn result_shapes_symbol(&self) -> String {
        format!("{}{}", self.c_name, Export::SYMBOL_SUFFIXES[1])
    }

    /// The export's C symbols: its own, then [`Self::into_symbol`] and
    /// [`Self::result_shapes_symbol`].
    pub fn symbols(&self) -> [String; 3] {
        [
            self.c_name.clone(),
            self.into_symbol(),
            self.result_shapes_symbol(),
        ]
    }
}

/// The C symbols besides the exports: `<NAME>_last_error`, `_release`,
/// `_metadata`, `_set_num_threads`.
pub fn api_functions(module_name: &str) -> [String; 4] {
    Export::RESERVED_NAMES.map(|s| format!("{module_name}_{s}"))
}

/// Every symbol a generated library exports (with `context`, the context functions too).
pub fn api_symbols(module_name: &str, sigs: &[ExportSig], context: bool) -> Vec<String> {
    let mut v: Vec<String> = sigs.iter().flat_map(ExportSig::symbols).collect();
    v.extend(api_functions(module_name));
    if context {
        v.extend(crate::state::CONTEXT_FUNCTIONS.map(|s| format!("{module_name}_{s}")));
    }
    v
}

/// True for `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// C and C++ keywords that a Python parameter name may collide with.
const KEYWORDS: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "explicit",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
];

/// Names a parameter may not take in the header besides the keywords: the
/// macros and types of the headers a C or C++ file commonly includes before
/// or with ours, and the header's own types and enumerators (names starting
/// with [`HEADER_PREFIXES`] are the header's too).
const STANDARD_NAMES: &[&str] = &[
    "NULL",
    "errno",
    "assert",
    "EOF",
    "stdin",
    "stdout",
    "stderr",
    "offsetof",
    "va_list",
    "size_t",
    "ptrdiff_t",
    "max_align_t",
    "wchar_t",
    "nullptr_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "intptr_t",
    "uintptr_t",
    "intmax_t",
    "uintmax_t",
    "alignas",
    "alignof",
    "static_assert",
    "thread_local",
    "noreturn",
    "complex",
    "imaginary",
    "I",
    "and",
    "and_eq",
    "bitand",
    "bitor",
    "compl",
    "not",
    "not_eq",
    "or",
    "or_eq",
    "xor",
    "xor_eq",
    "constexpr",
    "decltype",
    "noexcept",
    "nullptr",
    "typeof",
    "export",
    "concept",
    "requires",
    "co_await",
    "co_return",
    "co_yield",
    "char8_t",
    "char16_t",
    "char32_t",
    "consteval",
    "constinit",
    "dynamic_cast",
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "typeid",
    "asm",
];

/// Prefixes of the names the generated header defines (`DLTensor`,
/// `kDLFloat`, `AGC_STATUS_OK`, ...).
const HEADER_PREFIXES: &[&str] = &["DL", "kDL", "AGC_"];

/// The C name of a Python parameter: non-identifier characters become `_`;
/// an identifier C reserves (`_` and a capital or a second `_`: `_Bool`,
/// `__x`) gets a leading `p`; a C/C++ keyword, a standard name (`NULL`,
/// `errno`, `int32_t`, ...) or one of the header's own gets a trailing `_`.
pub fn c_param_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if s.starts_with('_')
        && s.chars()
            .nth(1)
            .is_some_and(|c| c == '_' || c.is_ascii_uppercase())
    {
        s.insert(0, 'p');
    }
    if KEYWORDS.contains(&s.as_str())
        || STANDARD_NAMES.contains(&s.as_str())
        || HEADER_PREFIXES.iter().any(|p| s.starts_with(p))
    {
        s.push('_');
    }
    s
}

/// C names of all parameters then all results of `sig`, made unique.
pub fn c_arg_names(sig: &ExportSig) -> Vec<String> {
    // With a context, its parameter is `ctx` (a parameter named so becomes `ctx_`).
    let mut names: Vec<String> = if sig.context {
        vec![CONTEXT_ARG.into()]
    } else {
        Vec::new()
    };
    for t in sig.params.iter().chain(&sig.results) {
        let mut n = c_param_name(&t.name);
        while names.contains(&n) {
            n.push('_');
        }
        names.push(n);
    }
    if sig.context {
        names.remove(0);
    }
    names
}

/// The name of the context parameter of entry points, in C and in the header.
pub const CONTEXT_ARG: &str = "ctx";

/// Why export `name` cannot be exported from library `lib`, if it cannot.
/// Its symbol is `<lib>_<name>`, so no C library function can clash; the
/// library's own API functions can.
fn bad_export_name(name: &str, lib: &str) -> Option<String> {
    if !is_c_identifier(name) {
        return Some("is not a C identifier".into());
    }
    if name.starts_with("__") || api_functions(lib).contains(&format!("{lib}_{name}")) {
        return Some("is reserved by agc".into());
    }
    None
}

/// The signatures of `m`'s exports, checking that the library name and the
/// exported names are usable C identifiers that do not collide.
pub fn signatures(m: &Module, library_name: &str) -> Result<Vec<ExportSig>, BackendError> {
    signatures_with(m, library_name, &crate::state::LibraryState::default())
}

/// [`signatures`] of a library whose context holds `state`.
pub fn signatures_with(
    m: &Module,
    library_name: &str,
    state: &crate::state::LibraryState,
) -> Result<Vec<ExportSig>, BackendError> {
    if !is_c_identifier(library_name) {
        return Err(BackendError::Unsupported(format!(
            "library name '{library_name}' is not a C identifier"
        )));
    }
    let mut sigs: Vec<ExportSig> = Vec::new();
    let symbols = crate::mlir::function_symbols(m);
    for e in &m.exports {
        let f = m.funcs.get(e.func.index()).ok_or_else(|| {
            BackendError::Unsupported(format!("export '{}' names a missing function", e.c_name))
        })?;
        if let Some(why) = bad_export_name(&e.c_name, library_name) {
            return Err(BackendError::Unsupported(format!(
                "exported name '{}' {why}: export the function under another name (@agc.export(name=...))",
                e.c_name
            )));
        }
        if sigs.iter().any(|s| s.name == e.c_name) {
            return Err(BackendError::Unsupported(format!(
                "'{}' is exported twice",
                e.c_name
            )));
        }
        if let Some(why) = sigs
            .iter()
            .find_map(|s| Export::names_collide(&s.name, &e.c_name))
        {
            return Err(BackendError::Unsupported(format!(
                "{why}: export one of them under another name (@agc.export(name=...))"
            )));
        }
        if state.context && crate::state::CONTEXT_FUNCTIONS.contains(&e.c_name.as_str()) {
            return Err(BackendError::Unsupported(format!(
                "exported name '{}' is the name of a context function of the library (<NAME>_{}): export the function under another name (@agc.export(name=...))",
                e.c_name, e.c_name
            )));
        }
        let nvars = m.variables.len();
        let user_params = f.params().len().saturating_sub(nvars);
        let user_results = f.result_types.len().saturating_sub(e.assigns.len());
        let params: Vec<TensorSig> = f
            .params()
            .iter()
            .take(user_params)
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
            .take(user_results)
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
            name: e.c_name.clone(),
            c_name: format!("{library_name}_{}", e.c_name),
            kernel_symbol: format!("_mlir_ciface_{}", symbols[e.func.index()]),
            doc: e.doc.clone(),
            params,
            results,
            syms,
            calls: crate::mlir::makes_calls(f),
            context: state.context,
            state: state.variables.clone(),
            assigns: e.assigns.clone(),
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
            assigns: vec![],
        });
        m
    }

    #[test]
    fn signature_of_add_bias() {
        let sigs = signatures(&add_bias_module(), "demo").unwrap();
        assert_eq!(sigs[0].syms, vec!["B".to_string()]);
        assert_eq!(sigs[0].kernel_symbol, "_mlir_ciface_agc_impl_add_bias");
        assert_eq!(sigs[0].results[0].name, "out0");
        assert_eq!(
            (sigs[0].name.as_str(), sigs[0].c_name.as_str()),
            ("add_bias", "demo_add_bias")
        );
        assert!(signatures(&add_bias_module(), "my-lib").is_err());
        assert_eq!(api_symbols("demo", &sigs, false).len(), 7);
        assert_eq!(
            sigs[0].symbols(),
            [
                "demo_add_bias",
                "demo_add_bias_into",
                "demo_add_bias_result_shapes"
            ]
        );
    }

    #[test]
    fn export_names_are_checked() {
        let mut m = add_bias_module();
        for bad in ["release", "last_error", "__x", "1x"] {
            m.exports[0].c_name = bad.into();
            assert!(signatures(&m, "demo").is_err(), "{bad}");
        }
        m.exports[0].c_name = "f".into();
        let mut second = m.exports[0].clone();
        second.c_name = "f_into".into();
        m.exports.push(second);
        let err = signatures(&m, "demo").unwrap_err().to_string();
        assert!(err.contains("'_into' C function"), "{err}");
    }

    #[test]
    fn names_are_c_safe_and_unique() {
        assert_eq!(c_param_name("int"), "int_");
        assert_eq!(c_param_name("_Bool"), "p_Bool");
        assert_eq!(c_param_name("__x"), "p__x");
        assert_eq!(c_param_name("_x"), "_x");
        assert_eq!(c_param_name("NULL"), "NULL_");
        assert_eq!(c_param_name("errno"), "errno_");
        assert_eq!(c_param_name("DLTensor"), "DLTensor_");
        assert_eq!(c_param_name("AGC_STATUS_OK"), "AGC_STATUS_OK_");
        assert_eq!(c_param_name("x"), "x");
        let mut sigs = signatures(&add_bias_module(), "demo").unwrap();
        sigs[0].params[1].name = "out0".into();
        assert_eq!(c_arg_names(&sigs[0]), vec!["x", "out0", "out0_"]);
    }
}
