//! The JSON string `<NAME>_metadata()` returns, read by the Python package's
//! `agc.load`:
//!
//! ```json
//! {"module": "demo", "abi_version": 1, "functions": [{"name": "add_bias",
//!   "symbol": "demo_add_bias", "doc": "...",
//!   "params": [{"name": "x", "dtype": "float32", "shape": ["B", 3]}],
//!   "results": [{"name": "out0", "dtype": "float32", "shape": ["B", 3]}]}]}
//! ```
//!
//! dtypes are numpy names; dims are ints (static) or strings (symbolic).

use crate::signature::{ExportSig, TensorSig};
use crate::state::LibraryState;
use agc_ir::Dim;
use serde_json::{json, Value};

/// Version of the C ABI described in `docs/c-abi.md`.
pub const ABI_VERSION: u32 = 1;

fn tensor(t: &TensorSig) -> Value {
    let shape: Vec<Value> = t
        .dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => json!(n),
            Dim::Sym(s) => json!(s),
        })
        .collect();
    json!({"name": t.name, "dtype": t.dtype.numpy_name(), "shape": shape})
}

/// What built a library: agc's version, the target, the model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildInfo {
    /// The LLVM target triple.
    pub triple: String,
    /// The CPU the code is tuned for.
    pub cpu: String,
    /// The CPU features it may use.
    pub features: String,
    /// SHA-256 of the model's source, hex.
    pub source_sha256: String,
    /// Where the kernels run: `cpu`, `cuda`, or `cuda-emulated` (a test
    /// build whose `kDLCUDA` tensors live in host memory).
    pub device: &'static str,
    /// The CPUs the kernels' variants are compiled for, best first (chosen
    /// at run time by the CPU's level; empty where compiled once).
    pub variants: Vec<&'static str>,
}

/// The metadata document of a library whose context holds `state`: with a
/// context, `"context": {"weights": "external" | "embedded", "variables": [...]}`;
/// `"agc_version"`, `"target": {"triple", "cpu", "features", "device", "variants"}` and `"source_sha256"` from `build`.
pub fn metadata_json(
    module_name: &str,
    sigs: &[ExportSig],
    state: &LibraryState,
    build: &BuildInfo,
) -> String {
    let functions: Vec<Value> = sigs
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "symbol": s.c_name,
                "doc": s.doc,
                "params": s.params.iter().map(tensor).collect::<Vec<_>>(),
                "results": s.results.iter().map(tensor).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut doc = json!({
        "module": module_name,
        "abi_version": ABI_VERSION,
        "agc_version": env!("CARGO_PKG_VERSION"),
        "target": {"triple": build.triple, "cpu": build.cpu, "features": build.features, "device": build.device, "variants": build.variants},
        "source_sha256": build.source_sha256,
        "functions": functions,
    });
    if state.context {
        doc["context"] = json!({
            "weights": if state.external_weights() { "external" } else { "embedded" },
            "variables": state.variables.iter().map(tensor).collect::<Vec<_>>(),
        });
    }
    doc.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{signatures, tests::add_bias_module};

    #[test]
    fn json_shape() {
        let sigs = signatures(&add_bias_module(), "demo").unwrap();
        let v: Value = serde_json::from_str(&metadata_json(
            "demo",
            &sigs,
            &LibraryState::default(),
            &BuildInfo::default(),
        ))
        .unwrap();
        assert_eq!(v["module"], "demo");
        assert_eq!(v["functions"][0]["params"][0]["shape"], json!(["B", 3]));
        assert_eq!(v["functions"][0]["results"][0]["dtype"], "float32");
        assert_eq!(v["functions"][0]["doc"], "Adds a bias.");
    }
}
