//! The data of embedded weights (`--weights embed`): one read-only global
//! `agc_weight_<k>` per weight the kernels read (they declare it, see
//! [`crate::mlir::weight`]), 64-byte aligned for vector loads, filled from
//! the weight file at build time. Internalized with the rest of the library,
//! it lands in the library's read-only data.

use crate::mlir::weight::{self, PackedWeight};
use crate::BackendError;
use agc_runtime::panels;
use agc_weights::{Entry, WeightFile};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use std::collections::HashMap;

/// Embedded weights above this total are refused: x86-64 code reaches its
/// data with 32-bit PC-relative offsets.
pub const EMBED_LIMIT_BYTES: u64 = 2 << 30;

/// Alignment of each weight's data.
const ALIGN: u32 = 64;

/// Defines, in `host`, the data of every weight of `ir` that a function reads.
pub fn define<'ctx>(
    ctx: &'ctx Context,
    host: &Module<'ctx>,
    ir: &agc_ir::Module,
    packed: &[PackedWeight],
) -> Result<(), BackendError> {
    let used = weight::used(ir);
    let total: u64 = ir
        .weights
        .iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .map(|(w, _)| w.ty.static_numel().unwrap_or(0) as u64 * w.ty.dtype.byte_size() as u64)
        .sum();
    if total > EMBED_LIMIT_BYTES {
        return Err(BackendError::Weights(format!(
            "the weights total {:.2} GiB; embedded weights are limited to 2 GiB: build with --weights external",
            total as f64 / f64::from(1u32 << 30)
        )));
    }
    let mut files: HashMap<std::path::PathBuf, WeightFile> = HashMap::new();
    for (k, w) in ir.weights.iter().enumerate() {
        if !used[k] {
            continue;
        }
        let (file, entry) = open_entry(&mut files, w)?;
        let bytes = file
            .read(entry)
            .map_err(|e| BackendError::Weights(e.to_string()))?;
        for p in packed.iter().filter(|p| p.weight as usize == k) {
            define_data(
                ctx,
                host,
                &weight::packed_symbol(*p),
                &packed_bytes(w, *p, &bytes),
            );
        }
        define_data(ctx, host, &weight::symbol(k as u32), &bytes);
    }
    Ok(())
}

/// A read-only, 64-byte aligned global `symbol` holding `bytes`.
fn define_data<'ctx>(ctx: &'ctx Context, host: &Module<'ctx>, symbol: &str, bytes: &[u8]) {
    let data = ctx.const_string(bytes, false);
    let g = host.add_global(data.get_type(), None, symbol);
    g.set_initializer(&data);
    g.set_constant(true);
    g.set_alignment(ALIGN);
    g.set_linkage(Linkage::External);
}

/// The GEMM panels of weight `w` (its little-endian `f32` data `bytes`) as `p` reads it.
fn packed_bytes(w: &agc_ir::WeightDecl, p: PackedWeight, bytes: &[u8]) -> Vec<u8> {
    let dims = weight::static_shape(&w.ty);
    let (k, n) = if p.transposed {
        (dims[1], dims[0])
    } else {
        (dims[0], dims[1])
    };
    let (k, n) = (k as usize, n as usize);
    let mut out = vec![0f32; panels::panels_len(k, n)];
    let at = |i: usize| {
        f32::from_le_bytes([
            bytes[4 * i],
            bytes[4 * i + 1],
            bytes[4 * i + 2],
            bytes[4 * i + 3],
        ])
    };
    panels::pack(at, k, n, p.transposed, &mut out);
    out.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The opened file of weight `w` (opened once into `files`) and its entry,
/// checked by [`checked_entry`].
pub(crate) fn open_entry<'f>(
    files: &'f mut HashMap<std::path::PathBuf, WeightFile>,
    w: &agc_ir::WeightDecl,
) -> Result<(&'f WeightFile, &'f Entry), BackendError> {
    if !files.contains_key(&w.file) {
        let opened = WeightFile::open(&w.file).map_err(|e| BackendError::Weights(e.to_string()))?;
        files.insert(w.file.clone(), opened);
    }
    let file = &files[&w.file];
    Ok((file, checked_entry(file, w)?))
}

/// The tensor of `file` that `w` names, still of the type the model was
/// staged with (the file may have changed since).
pub(crate) fn checked_entry<'f>(
    file: &'f WeightFile,
    w: &agc_ir::WeightDecl,
) -> Result<&'f Entry, BackendError> {
    let entry = file.get(&w.key).ok_or_else(|| {
        BackendError::Weights(format!(
            "'{}' has no tensor '{}' any more",
            w.file.display(),
            w.key
        ))
    })?;
    let shape: Vec<i64> = entry.shape.iter().map(|&d| d as i64).collect();
    let staged: Vec<i64> =
        w.ty.dims
            .iter()
            .filter_map(agc_ir::Dim::as_static)
            .collect();
    if entry.dtype != w.ty.dtype || shape != staged {
        return Err(BackendError::Weights(format!(
            "tensor '{}' of '{}' changed while building (now {} {shape:?}, staged as {})",
            w.key,
            w.file.display(),
            entry.dtype.numpy_name(),
            w.ty
        )));
    }
    Ok(entry)
}
