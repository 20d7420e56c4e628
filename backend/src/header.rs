//! `<NAME>.h`: the self-contained C header of a generated library.
//!
//! It holds a DLPack-layout `DLTensor` (skipped when `dlpack.h` was included
//! first, and defined once when several agc headers are included), the
//! `AGC_STATUS_*` codes (guarded likewise), three documented prototypes per
//! export (`<NAME>_f`, `<NAME>_f_into`, `<NAME>_f_result_shapes`; parameter
//! names are the Python names; shapes name symbolic dims) and the library's
//! `_last_error`, `_release` and `_metadata` functions.

use crate::signature::{c_arg_names, ExportSig, TensorSig};
use crate::state::LibraryState;
use agc_ir::Dim;
use std::fmt::Write;

fn shape(t: &TensorSig) -> String {
    let dims: Vec<String> = t
        .dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Sym(s) => s.clone(),
        })
        .collect();
    tuple(&dims)
}

/// A result's shape as `_result_shapes` knows it: static dims, the
/// parameters' symbolic dims by name, `-1` for a size only the computation
/// determines.
fn known_shape(sig: &ExportSig, t: &TensorSig) -> String {
    let dims: Vec<String> = t
        .dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Sym(s) if sig.sym_index(s).is_some() => s.clone(),
            Dim::Sym(_) => "-1".into(),
        })
        .collect();
    tuple(&dims)
}

/// `(a, b)`, `(a,)` or `()`.
fn tuple(dims: &[String]) -> String {
    match dims {
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
typedef enum { kDLCPU = 1, kDLCUDA = 2 } DLDeviceType;
typedef enum { kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLBool = 6U } DLDataTypeCode;
/* dlpack.h types device_type as DLDeviceType, an int-sized enum; int32_t
 * here has the same layout and also takes plain ints in C++. */
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void* data;           /* data pointer; the first element is at data + byte_offset */
  DLDevice device;      /* {kDLCPU, 0}; {kDLCUDA, 0} for a --target cuda library */
  int32_t ndim;         /* number of dims */
  DLDataType dtype;     /* e.g. {kDLFloat, 32, 1} for float32, {kDLBool, 8, 1} for bool */
  int64_t* shape;       /* ndim sizes */
  int64_t* strides;     /* ndim strides in elements, or NULL for C-contiguous */
  uint64_t byte_offset; /* bytes from data to the first element */
} DLTensor;
#endif

/* The version of the C ABI this header follows (docs/c-abi.md; also "abi_version" in the metadata). */
#ifndef AGC_ABI_VERSION
#define AGC_ABI_VERSION 1
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
  AGC_STATUS_INTERNAL = 5,           /* anything else (a bug in agc) */
  AGC_STATUS_UNSUPPORTED_CPU = 6,    /* the CPU lacks features the library was compiled for */
  AGC_STATUS_DEVICE_UNAVAILABLE = 7, /* --target cuda: no CUDA driver or no GPU */
  AGC_STATUS_DEVICE_ERROR = 8        /* --target cuda: the CUDA driver failed (launch, copy, kernel fault) */
};
#endif
"#;

/// One documentation line per tensor: name, dtype, shape.
fn list_tensors(out: &mut String, names: &[String], types: &[TensorSig], width: usize) {
    for (n, t) in names.iter().zip(types) {
        let _ = writeln!(
            out,
            " *   {n:width$}  {} {}",
            t.dtype.numpy_name(),
            shape(t)
        );
    }
}

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
    list_tensors(out, pn, &sig.params, width);
    let _ = writeln!(
        out,
        " * Results (new tensors owned by the caller: release each with {lib}_release):"
    );
    list_tensors(out, rn, &sig.results, width);
    let _ = writeln!(
        out,
        " * Returns AGC_STATUS_OK, or a non-zero AGC_STATUS_* with every result set to\n * NULL and {lib}_last_error() saying what went wrong.\n */"
    );
    let context = sig.context.then_some(lib);
    declare(out, context, &sig.c_name, pn, rn, "DLTensor**");
    into_prototype(out, lib, sig, pn, rn, width);
    result_shapes_prototype(out, lib, sig, pn, rn);
}

/// `int symbol([<NAME>_context* ctx,] const DLTensor* p0, ..., <result_type> r0, ...);`
fn declare(
    out: &mut String,
    context: Option<&str>,
    symbol: &str,
    pn: &[String],
    rn: &[String],
    result_type: &str,
) {
    let args: Vec<String> = context
        .map(|lib| format!("{lib}_context* {}", crate::signature::CONTEXT_ARG))
        .into_iter()
        .chain(pn.iter().map(|n| format!("const DLTensor* {n}")))
        .chain(rn.iter().map(|n| format!("{result_type} {n}")))
        .collect();
    let _ = writeln!(out, "int {symbol}({});\n", args.join(", "));
}

/// `<NAME>_f_into`: the export writing into the caller's result tensors.
fn into_prototype(
    out: &mut String,
    lib: &str,
    sig: &ExportSig,
    pn: &[String],
    rn: &[String],
    width: usize,
) {
    let (f, into) = (&sig.c_name, sig.into_symbol());
    let _ = writeln!(
        out,
        "/**\n * {into}({})\n *\n * {f} writing its results into tensors the caller owns; in the steady\n * state it allocates nothing.",
        pn.iter().chain(rn).cloned().collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(
        out,
        " *\n * Parameters: as {f}.\n * Results: CPU tensors, C-contiguous, of exactly these dtypes and shapes (the\n * shapes {} gives); written only on success and only after the\n * computation, so a result tensor may share memory with an argument (not with\n * another result tensor):",
        sig.result_shapes_symbol()
    );
    list_tensors(out, rn, &sig.results, width);
    let _ = writeln!(
        out,
        " * Returns AGC_STATUS_OK, or a non-zero AGC_STATUS_* (AGC_STATUS_INVALID_ARGUMENT\n * for a result tensor of the wrong dtype, shape or layout) with no result tensor\n * written and {lib}_last_error() saying what went wrong.\n */"
    );
    declare(out, sig.context.then_some(lib), &into, pn, rn, "DLTensor*");
}

/// `<NAME>_f_result_shapes`: the results' shapes for given argument shapes.
fn result_shapes_prototype(
    out: &mut String,
    lib: &str,
    sig: &ExportSig,
    pn: &[String],
    rn: &[String],
) {
    let _ = writeln!(
        out,
        "/**\n * {}({})\n *\n * The shapes of {}'s results for arguments of these shapes, for\n * {}.",
        sig.result_shapes_symbol(),
        pn.iter().chain(rn).cloned().collect::<Vec<_>>().join(", "),
        sig.c_name,
        sig.into_symbol()
    );
    let _ = writeln!(
        out,
        " *\n * Reads only each argument's dtype, ndim and shape (data may be NULL), checked as\n * a call checks them. Writes result k's dims into outk, an array of its rank\n * (NULL for a rank-0 result); a dim that only the computation determines (a\n * data-dependent size) is written as -1."
    );
    for (n, t) in rn.iter().zip(&sig.results) {
        let _ = writeln!(
            out,
            " *   {n}: int64_t[{}]  {}",
            t.dims.len(),
            known_shape(sig, t)
        );
    }
    let _ = writeln!(
        out,
        " * Returns AGC_STATUS_OK, or a non-zero AGC_STATUS_* with nothing written and\n * {lib}_last_error() saying what went wrong.\n */"
    );
    declare(out, None, &sig.result_shapes_symbol(), pn, rn, "int64_t*");
}

const TOP: &str = r#"/* @LIB@.h: C API of lib@LIB@.so / lib@LIB@.a, generated by agc. Do not edit.
 *
 * Tensors are DLPack DLTensors on the CPU, C-contiguous (strides NULL or
 * compact row-major). Arguments are borrowed for the duration of a call;
 * results are allocated by the library and owned by the caller, who frees
 * each with @LIB@_release(), or written by each export's _into variant into
 * tensors the caller passes (shaped as its _result_shapes query says, no
 * allocation in the steady state). Every function may be called from several
 * threads at once; @LIB@_last_error() is per thread. See docs/c-abi.md.
 *
 * Link:  cc main.c -L<dir> -l@LIB@ -Wl,-rpath,<dir>   (shared)
 *        cc main.c <dir>/lib@LIB@.a -lm                (static; glibc < 2.34
 *                                                       also needs -lpthread -ldl)
 */
#ifndef @GUARD@
#define @GUARD@

"#;

const CONTEXT: &str = r#"/* The library's state lives in a context: every export takes one first.
 * Exports that only read the variables may run concurrently on one context;
 * an export that assigns variables runs alone on it (the calls wait).
"#;

const EXTERNAL_WEIGHTS: &str = r#" *
 * The weights are external: create maps the safetensors file @LIB@.weights
 * (written by agc build), or any safetensors file holding tensors of the same
 * names, dtypes and shapes, read-only.
"#;

const CONTEXT_FUNCTIONS: &str = r#" */
typedef struct @LIB@_context @LIB@_context;

/* Creates a context in *ctx: maps the weights file weights_path (NULL when the
 * weights are embedded) and sets every variable to its initial value. Returns
 * AGC_STATUS_OK, or a non-zero AGC_STATUS_* with *ctx NULL and
 * @LIB@_last_error() saying what went wrong (a missing file, a tensor of the
 * wrong name, dtype or shape). */
int @LIB@_create(@LIB@_context** ctx, const char* weights_path);

/* Destroys a context no call is using. NULL is ignored. */
void @LIB@_destroy(@LIB@_context* ctx);

/* Writes the context's variables to the safetensors file path (numpy and
 * PyTorch read it: safetensors.numpy.load_file). */
int @LIB@_save(@LIB@_context* ctx, const char* path);

/* Sets the context's variables to the tensors of the same names in the
 * safetensors file path: all of them, or none on any error. */
int @LIB@_restore(@LIB@_context* ctx, const char* path);

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

/* Sets how many threads the library's large kernels (matrix products) use,
 * the calling thread included, for every later call from any thread; 1 runs
 * everything on the calling thread. The default is the environment variable
 * AGC_NUM_THREADS, else the number of CPUs the process may run on. */
void @LIB@_set_num_threads(int n);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* @GUARD@ */
"#;

/// The text of `<lib>.h` for the exports `sigs`.
pub fn header(lib: &str, sigs: &[ExportSig], state: &LibraryState) -> String {
    let guard = format!("AGC_{}_H_", lib.to_ascii_uppercase());
    let fill = |t: &str| t.replace("@LIB@", lib).replace("@GUARD@", &guard);
    let mut out = fill(TOP);
    out.push_str(PREAMBLE);
    out.push('\n');
    if state.context {
        out.push_str(&fill(CONTEXT));
        if state.external_weights() {
            out.push_str(&fill(EXTERNAL_WEIGHTS));
        }
        if !state.variables.is_empty() {
            out.push_str(" *\n * Variables (each context has its own, initialised by create):\n");
            let names: Vec<String> = state.variables.iter().map(|v| v.name.clone()).collect();
            let width = names.iter().map(String::len).max().unwrap_or(0);
            list_tensors(&mut out, &names, &state.variables, width);
        }
        out.push_str(&fill(CONTEXT_FUNCTIONS));
    }
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
        let h = header("demo", &sigs, &LibraryState::default());
        assert!(
            h.contains("int demo_add_bias(const DLTensor* x, const DLTensor* b, DLTensor** out0);"),
            "{h}"
        );
        assert!(h.contains(" *   x     float32 (B, 3)"), "{h}");
        assert!(h.contains(" *   b     float32 (3,)"), "{h}");
        assert!(h.contains("void demo_release(DLTensor* tensor);"));
        assert!(
            h.contains(
                "int demo_add_bias_into(const DLTensor* x, const DLTensor* b, DLTensor* out0);"
            ),
            "{h}"
        );
        assert!(
            h.contains("int demo_add_bias_result_shapes(const DLTensor* x, const DLTensor* b, int64_t* out0);"),
            "{h}"
        );
        assert!(h.contains(" *   out0: int64_t[2]  (B, 3)"), "{h}");
        assert!(h.contains("#ifndef AGC_DEMO_H_"));
    }
}
