//! Which parallel loops become GPU kernels: after `gpu-map-parallel-loops`
//! has mapped every `scf.parallel` nest to the grid, [`keep_kernels`] takes
//! the mapping off each nest whose body the GPU cannot run, so that
//! `convert-parallel-loops-to-gpu` leaves it to the host (on managed
//! memory, which both sides read).
//!
//! A body the GPU runs holds only arithmetic, structured control flow,
//! loads and stores through memref views, index arithmetic, and the math
//! the GPU has instructions for ([`super::gpu_text::gpu_native_math`]). Anything else stays on the host: calls (the runtime's helpers,
//! error raising, other functions), allocation, copies, globals, vector
//! ops, and math that would need CUDA's libdevice (`arith.remf` included).

use melior::ir::operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult};
use melior::ir::Module;

/// The mapping attribute of `gpu-map-parallel-loops`.
const MAPPING: &str = "mapping";

/// Whether an op of this name can be part of a GPU kernel.
pub fn runs_on_gpu(name: &str) -> bool {
    const PREFIXES: [&str; 3] = ["arith.", "scf.", "index."];
    const OPS: [&str; 12] = [
        "memref.load",
        "memref.store",
        "memref.dim",
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "affine.apply",
        "affine.min",
        "affine.max",
        "ub.poison",
    ];
    let native_math = name
        .strip_prefix("math.")
        .is_some_and(|op| super::gpu_text::gpu_native_math(op).is_some());
    // `arith.remf` is a call of libdevice's `fmod` on NVPTX.
    let host_only = ["scf.execute_region", "arith.remf"].contains(&name);
    (PREFIXES.iter().any(|p| name.starts_with(p)) && !host_only)
        || OPS.contains(&name)
        || native_math
}

/// Statistics of [`keep_kernels`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelCount {
    /// Loop nests left mapped (they become kernels).
    pub kernels: usize,
    /// Loop nests unmapped (they stay host code).
    pub host: usize,
}

/// Unmaps every mapped loop nest of `module` that [`runs_on_gpu`] rejects.
pub fn keep_kernels(module: &mut Module) -> KernelCount {
    let mut count = KernelCount::default();
    module
        .as_operation_mut()
        .walk_mut(WalkOrder::PreOrder, |mut op| {
            let is_nest = op.name().as_string_ref().as_str() == Ok("scf.parallel")
                && op.has_attribute(MAPPING);
            if !is_nest {
                return WalkResult::Advance;
            }
            let mut fits = true;
            op.walk(WalkOrder::PreOrder, |inner| {
                let name = inner.name();
                let name = name.as_string_ref().as_str().unwrap_or("");
                if runs_on_gpu(name) {
                    WalkResult::Advance
                } else {
                    tracing::debug!("a loop nest stays on the host: it contains {name}");
                    fits = false;
                    WalkResult::Interrupt
                }
            });
            if fits {
                count.kernels += 1;
            } else {
                count.host += 1;
                op.walk_mut(WalkOrder::PreOrder, |mut inner| {
                    if inner.name().as_string_ref().as_str() == Ok("scf.parallel") {
                        let _ = inner.remove_attribute(MAPPING);
                    }
                    WalkResult::Advance
                });
            }
            WalkResult::Skip
        });
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_hold_arithmetic_loads_and_stores_only() {
        for ok in [
            "arith.addf",
            "scf.for",
            "memref.load",
            "math.absf",
            "affine.min",
        ] {
            assert!(runs_on_gpu(ok), "{ok}");
        }
        for host in [
            "func.call",
            "memref.alloc",
            "memref.copy",
            "memref.get_global",
            "math.exp",
            "vector.transfer_read",
            "scf.execute_region",
            "arith.remf",
            "llvm.call",
        ] {
            assert!(!runs_on_gpu(host), "{host}");
        }
    }
}
