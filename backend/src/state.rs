//! What a library's context holds, derived once from the IR for the host
//! code, the header and the metadata: the weights it maps (with external
//! weights) and the variables (`agc.Variable`). A library has a context
//! when it has either; then every entry point takes it first, and
//! `<NAME>_create`, `_destroy`, `_save` and `_restore` exist.

use crate::mlir::weight::{self, PackedWeight};
use crate::mlir::Placement;
use crate::signature::TensorSig;
use agc_ir::Module;

/// The context functions of a library with a context, after `<NAME>_`.
pub const CONTEXT_FUNCTIONS: [&str; 4] = ["create", "destroy", "save", "restore"];

/// The state of a library.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LibraryState {
    /// The library has a context.
    pub context: bool,
    /// With external weights: one entry per weight of the module, the name
    /// and type it has in `<NAME>.weights`, `None` for weights never read.
    pub weights: Vec<Option<TensorSig>>,
    /// The variables, by name.
    pub variables: Vec<TensorSig>,
    /// The kernel entry of the variables' initialiser.
    pub init_kernel: Option<String>,
    /// With external weights: the weights the code reads packed, which a
    /// context packs when it is created (table slots after the weights').
    pub packed: Vec<PackedWeight>,
}

impl LibraryState {
    /// The state of module `m` built with weights `placement`; `symbols`
    /// are the MLIR symbols of its functions.
    pub fn of(
        m: &Module,
        placement: Placement,
        symbols: &[String],
        packed: &[PackedWeight],
    ) -> LibraryState {
        let used = weight::used(m);
        let names = crate::weights_file::names(m);
        let weights: Vec<Option<TensorSig>> = match placement {
            Placement::External if used.contains(&true) => m
                .weights
                .iter()
                .zip(&used)
                .zip(names)
                .map(|((w, &u), name)| {
                    u.then(|| TensorSig {
                        name,
                        dtype: w.ty.dtype,
                        dims: w.ty.dims.clone(),
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let variables: Vec<TensorSig> = m
            .variables
            .iter()
            .map(|v| TensorSig {
                name: v.name.clone(),
                dtype: v.ty.dtype,
                dims: v.ty.dims.clone(),
            })
            .collect();
        LibraryState {
            context: !weights.is_empty() || !variables.is_empty(),
            packed: if weights.is_empty() {
                Vec::new()
            } else {
                packed.to_vec()
            },
            init_kernel: m
                .init
                .filter(|_| !variables.is_empty())
                .map(|f| format!("_mlir_ciface_{}", symbols[f.index()])),
            weights,
            variables,
        }
    }

    /// The weights are external.
    pub fn external_weights(&self) -> bool {
        !self.weights.is_empty()
    }
}
