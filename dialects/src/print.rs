//! The textual IR printed by `agc build --emit ir`.
//!
//! ```text
//! func @predict(%0: f32[B,784] /*x*/, %1: f32[784,10] /*W*/) -> (f32[B,10]) {
//!   %2 = matmul %0, %1 : f32[B,10]
//!   return %2
//! }
//! ```
//! One op per line: results, `=`, the op name, operands, attributes in braces,
//! `:` and the result types; nested regions indented in braces.

use crate::entities::RegionId;
use crate::function::{Function, Module};
use crate::ops::{ConstData, OpKind};
use std::fmt::Write;

/// Prints a whole module.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "module @{} {{", m.name);
    for e in &m.exports {
        let _ = writeln!(out, "  export @{} = {}", e.c_name, m.func(e.func).name);
    }
    for (k, v) in m.variables.iter().enumerate() {
        let _ = writeln!(out, "  // variable {k}: {} : {}", v.name, v.ty);
    }
    if let Some(init) = m.init {
        let _ = writeln!(out, "  // variables initialised by {}", m.func(init).name);
    }
    for e in m.exports.iter().filter(|e| !e.assigns.is_empty()) {
        let _ = writeln!(out, "  // {} assigns variables {:?}", e.c_name, e.assigns);
    }
    for (k, w) in m.weights.iter().enumerate() {
        let _ = writeln!(
            out,
            "  // weight {k}: {:?} of {} : {}",
            w.key,
            w.file.display(),
            w.ty
        );
    }
    for f in &m.funcs {
        out.push_str(&print_function(f));
    }
    out.push_str("}\n");
    out
}

/// Prints one function.
pub fn print_function(f: &Function) -> String {
    let mut out = String::new();
    let params: Vec<String> = f
        .params()
        .iter()
        .zip(&f.param_names)
        .map(|(v, n)| format!("{v}: {} /*{n}*/", f.ty(*v)))
        .collect();
    let results: Vec<String> = f.result_types.iter().map(|t| t.to_string()).collect();
    let _ = writeln!(
        out,
        "func @{}({}) -> ({}) {{",
        f.name,
        params.join(", "),
        results.join(", ")
    );
    print_region(f, f.body, 1, &mut out);
    out.push_str("}\n");
    out
}

fn print_region(f: &Function, r: RegionId, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    for &op in &f.region(r).ops {
        let data = f.op(op);
        out.push_str(&indent);
        if !data.results.is_empty() {
            let rs: Vec<String> = data.results.iter().map(|v| v.to_string()).collect();
            let _ = write!(out, "{} = ", rs.join(", "));
        }
        out.push_str(&data.kind.name());
        let operands: Vec<String> = data.operands.iter().map(|v| v.to_string()).collect();
        if !operands.is_empty() {
            let _ = write!(out, " {}", operands.join(", "));
        }
        if let Some(attrs) = attributes(&data.kind) {
            let _ = write!(out, " {{{attrs}}}");
        }
        if !data.results.is_empty() {
            let ts: Vec<String> = data.results.iter().map(|v| f.ty(*v).to_string()).collect();
            let _ = write!(out, " : {}", ts.join(", "));
        }
        out.push('\n');
        for &region in &data.regions {
            let params: Vec<String> = f
                .region(region)
                .params
                .iter()
                .map(|v| format!("{v}: {}", f.ty(*v)))
                .collect();
            let _ = writeln!(out, "{indent}  ^({}) {{", params.join(", "));
            print_region(f, region, depth + 2, out);
            let _ = writeln!(out, "{indent}  }}");
        }
    }
}

fn list<T: std::fmt::Display>(xs: &[T]) -> String {
    let parts: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(","))
}

fn attributes(kind: &OpKind) -> Option<String> {
    Some(match kind {
        OpKind::Const(data) => match data {
            _ if data.len() > 16 && data.is_splat() => format!("splat={}", const_elems(data, 1)),
            _ => const_elems(data, data.len()),
        },
        OpKind::Reduce { axes, keepdims, .. } => {
            format!("axes={}, keepdims={keepdims}", list(axes))
        }
        OpKind::ArgReduce { axis, keepdims, .. } => format!("axis={axis}, keepdims={keepdims}"),
        OpKind::Transpose { perm } => format!("perm={}", list(perm)),
        OpKind::Concat { axis } | OpKind::Gather { axis } | OpKind::ScatterAdd { axis } => {
            format!("axis={axis}")
        }
        OpKind::Dim { axis } => format!("axis={axis}"),
        OpKind::Weight(k) => format!("index={k}"),
        OpKind::Iota { start, step } => format!("start={start}, step={step}"),
        OpKind::Call { callee } => format!("callee={callee}"),
        OpKind::MakeCont { func } => format!("func={func}"),
        OpKind::Assert { message } => format!("message={message:?}"),
        OpKind::DynIndex { axes } | OpKind::DynUpdate { axes, .. } => format!("axes={axes}"),
        OpKind::Slice { dims } => {
            let parts: Vec<String> = dims
                .iter()
                .map(|s| {
                    let p = |v: Option<i64>| v.map(|x| x.to_string()).unwrap_or_default();
                    format!("{}:{}:{}", p(s.start), p(s.stop), s.step)
                })
                .collect();
            parts.join(", ")
        }
        _ => return None,
    })
}

fn const_elems(data: &ConstData, n: usize) -> String {
    match data {
        ConstData::Float(v) => list(&v[..n]),
        ConstData::Int(v) => list(&v[..n]),
        ConstData::Bool(v) => list(&v[..n]),
    }
}
