//! `<NAME>.h`: the self-contained C header of a generated library.
//!
//! It holds a DLPack-layout `DLTensor` (skipped when `dlpack.h` was included
//! first, and defined once when several agc headers are included), the
//! `AGC_STATUS_*` codes (guarded likewise), one documented prototype per
//! export (parameter names are the Python names; shapes name symbolic dims)
//! and the library's `_last_error`, `_release` and `_metadata` functions.

use crate::signature::{ExportSig, TensorSig};
use agc_ir::Dim;
use std::fmt::Write;

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

/// The C name of a Python parameter: non-identifier characters become `_`,
/// and a C/C++ keyword gets a trailing `_`.
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
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// C names of all parameters then all results of `sig`, made unique.
pub fn c_arg_names(sig: &ExportSig) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in sig.params.iter().chain(&sig.results) {
        let mut n = c_param_name(&t.name);
        while names.contains(&n) {
            n.push('_');
        }
        names.push(n);
    }
    names
}

fn shape(t: &TensorSig) -> String {
    let dims: Vec<String> = t
        .dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Sym(s) => s.clone(),
        })
        .collect();
    match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    }
}

/// Text safe inside a `/* */` comment.
fn comment_safe(s: &str) -> String {
    s.replace("*/", "* /")
}

const PREAMBLE: &str = r#"#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DLPack's tensor types (layout-compatible with dlpack.h, a subset of its
 * enums). To use dlpack.h's own definitions, include it before this file. */
#if !defined(DLPACK_DLPACK_H_) && !defined(AGC_DLPACK_TYPES_)
#define AGC_DLPACK_TYPES_
typedef enum { kDLCPU = 1 } DLDeviceType;
typedef enum { kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLBool = 6U } DLDataTypeCode;
typedef struct { DLDeviceType device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void* data;           /* data pointer; the first element is at data + byte_offset */
  DLDevice device;      /* {kDLCPU, 0} */
  int32_t ndim;         /* number of dims */
  DLDataType dtype;     /* e.g. {kDLFloat, 32, 1} for float32, {kDLBool, 8, 1} for bool */
  int64_t* shape;       /* ndim sizes */
  int64_t* strides;     /* ndim strides in elements, or NULL for C-contiguous */
  uint64_t byte_offset; /* bytes from data to the first element */
} DLTensor;
#endif

/* Status codes returned by every exported function (shared by all agc libraries). */
#ifndef AGC_STATUS_CODES_
#define AGC_STATUS_CODES_
enum {
  AGC_STATUS_OK = 0,                 /* success */
  AGC_STATUS_INVALID_ARGUMENT = 1,   /* NULL, dtype, rank, shape, symbolic dim, strides or device mismatch */
  AGC_STATUS_OUT_OF_MEMORY = 2,      /* an allocation failed */
  AGC_STATUS_INDEX_OUT_OF_RANGE = 3, /* an index was out of range at run time */
  AGC_STATUS_RECURSION_TOO_DEEP = 4, /* a staged recursion exceeded the library's depth limit */
  AGC_STATUS_INTERNAL = 5            /* anything else (a bug in agc) */
};
#endif
"#;

fn prototype(out: &mut String, lib: &str, sig: &ExportSig) {
    let names = c_arg_names(sig);
    let (pn, rn) = names.split_at(sig.params.len());
    let _ = writeln!(
        out,
        "/**\n * {}({}) -> {}",
        sig.c_name,
        pn.join(", "),
        if rn.len() == 1 {
            rn[0].clone()
        } else {
            format!("({})", rn.join(", "))
        }
    );
    if !sig.doc.trim().is_empty() {
        out.push_str(" *\n");
        for line in comment_safe(sig.doc.trim()).lines() {
            let _ = writeln!(out, " * {}", line.trim_end());
        }
    }
    let width = names.iter().map(String::len).max().unwrap_or(0);
    out.push_str(" *\n * Parameters (CPU tensors, C-contiguous; a symbolic dim has one size across all parameters):\n");
    for (n, t) in pn.iter().zip(&sig.params) {
        let _ = writeln!(
            out,
            " *   {n:width$}  {} {}",
            t.dtype.numpy_name(),
            shape(t)
        );
    }
    let _ = writeln!(
        out,
        " * Results (new tensors owned by the caller: release each with {lib}_release):"
    );
    for (n, t) in rn.iter().zip(&sig.results) {
        let _ = writeln!(
            out,
            " *   {n:width$}  {} {}",
            t.dtype.numpy_name(),
            shape(t)
        );
    }
    let _ = writeln!(
        out,
        " * Returns AGC_STATUS_OK, or a non-zero AGC_STATUS_* with every result set to\n * NULL and {lib}_last_error() saying what went wrong.\n */"
    );
    let args: Vec<String> = pn
        .iter()
        .map(|n| format!("const DLTensor* {n}"))
        .chain(rn.iter().map(|n| format!("DLTensor** {n}")))
        .collect();
    let _ = writeln!(out, "int {}({});\n", sig.c_name, args.join(", "));
}

const TOP: &str = r#"/* @LIB@.h: C API of lib@LIB@.so / lib@LIB@.a, generated by agc. Do not edit.
 *
 * Tensors are DLPack DLTensors on the CPU, C-contiguous (strides NULL or
 * compact row-major). Arguments are borrowed for the duration of a call;
 * results are allocated by the library and owned by the caller, who frees
 * each with @LIB@_release(). Every function may be called from several
 * threads at once; @LIB@_last_error() is per thread. See docs/c-abi.md.
 *
 * Link:  cc main.c -L<dir> -l@LIB@ -Wl,-rpath,<dir>   (shared)
 *        cc main.c <dir>/lib@LIB@.a -lm                (static; glibc < 2.34
 *                                                       also needs -lpthread -ldl)
 */
#ifndef @GUARD@
#define @GUARD@

"#;

const BOTTOM: &str = r#"/* This thread's message for the last failed call into lib@LIB@, "" after a
 * successful one. Valid until the next call on this thread; never NULL. */
const char* @LIB@_last_error(void);

/* Releases a result tensor (its data, shape and the struct). NULL is ignored. */
void @LIB@_release(DLTensor* tensor);

/* A static JSON document describing the exported functions:
 * {"module": ..., "abi_version": 1, "functions": [{"name", "doc", "params": [{"name",
 * "dtype", "shape"}], "results": [...]}]} (dims: ints, or strings for symbolic dims). */
const char* @LIB@_metadata(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* @GUARD@ */
"#;

/// The text of `<lib>.h` for the exports `sigs`.
pub fn header(lib: &str, sigs: &[ExportSig]) -> String {
    let guard = format!("AGC_{}_H_", lib.to_ascii_uppercase());
    let fill = |t: &str| t.replace("@LIB@", lib).replace("@GUARD@", &guard);
    let mut out = fill(TOP);
    out.push_str(PREAMBLE);
    out.push('\n');
    for sig in sigs {
        prototype(&mut out, lib, sig);
    }
    out.push_str(&fill(BOTTOM));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{signatures, tests::add_bias_module};

    #[test]
    fn prototype_and_docs() {
        let sigs = signatures(&add_bias_module(), "demo").unwrap();
        let h = header("demo", &sigs);
        assert!(
            h.contains("int add_bias(const DLTensor* x, const DLTensor* b, DLTensor** out0);"),
            "{h}"
        );
        assert!(h.contains(" *   x     float32 (B, 3)"), "{h}");
        assert!(h.contains(" *   b     float32 (3,)"), "{h}");
        assert!(h.contains("void demo_release(DLTensor* tensor);"));
        assert!(h.contains("#ifndef AGC_DEMO_H_"));
    }

    #[test]
    fn names_are_c_safe_and_unique() {
        assert_eq!(c_param_name("int"), "int_");
        assert_eq!(c_param_name("x"), "x");
        let mut sigs = signatures(&add_bias_module(), "demo").unwrap();
        sigs[0].params[1].name = "out0".into();
        assert_eq!(c_arg_names(&sigs[0]), vec!["x", "out0", "out0_"]);
    }
}
