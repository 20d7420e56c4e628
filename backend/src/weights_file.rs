//! `<NAME>.weights` for `--weights external`: a safetensors file holding the
//! weights the library reads, by the names the library looks them up with
//! ([`names`]). Tensors are ordered by element size, largest first, so each
//! starts at a multiple of its element size in a page-aligned mapping.
//!
//! The data is streamed from the model's weight files, and runs of zero
//! bytes become holes: a sparse 3 GB input costs neither 3 GB of memory nor
//! of disk.

use crate::llvm::weights::open_entry;
use crate::BackendError;
use agc_ir::Module;
use agc_weights::WeightFile;
use std::collections::HashMap;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

/// Bytes compared against zero at a time when looking for holes.
const BLOCK: usize = 64 << 10;

/// The name of each weight of `m` in `<NAME>.weights`: the tensor's name in
/// its file, or `<file stem>/<name>` where two files have that name.
pub fn names(m: &Module) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for w in &m.weights {
        *count.entry(w.key.as_str()).or_default() += 1;
    }
    m.weights
        .iter()
        .map(|w| {
            if count[w.key.as_str()] > 1 {
                let stem = w
                    .file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("{stem}/{}", w.key)
            } else {
                w.key.clone()
            }
        })
        .collect()
}

/// The safetensors dtype code of an agc dtype.
pub fn dtype_code(d: agc_ir::DType) -> &'static str {
    match d {
        agc_ir::DType::F32 => "F32",
        agc_ir::DType::F64 => "F64",
        agc_ir::DType::I32 => "I32",
        agc_ir::DType::I64 => "I64",
        agc_ir::DType::Bool => "BOOL",
    }
}

/// The one safetensors file all the used weights of `m` come from, when
/// they keep their names in `<NAME>.weights` ([`names`]): that file is then a
/// valid `<NAME>.weights` as it is (a context ignores tensors it does not read).
pub fn single_source(m: &Module, used: &[bool]) -> Option<std::path::PathBuf> {
    let names = names(m);
    let mut files = m
        .weights
        .iter()
        .zip(used)
        .zip(&names)
        .filter(|((_, u), _)| **u);
    let ((first, _), _) = files.clone().next()?;
    let is_safetensors = first
        .file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("safetensors"));
    (is_safetensors && files.all(|((w, _), name)| w.file == first.file && *name == w.key))
        .then(|| first.file.clone())
}

/// Writes the weights of `m` that `used` marks into `path`.
pub fn write(m: &Module, used: &[bool], path: &Path) -> Result<(), BackendError> {
    let names = names(m);
    let mut order: Vec<usize> = (0..m.weights.len()).filter(|&k| used[k]).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(m.weights[k].ty.dtype.byte_size()));
    let shapes: Vec<Vec<i64>> = order
        .iter()
        .map(|&k| crate::mlir::weight::static_shape(&m.weights[k].ty))
        .collect();
    let described: Vec<(&str, &str, &[i64], u64)> = order
        .iter()
        .zip(&shapes)
        .map(|(&k, shape)| {
            let ty = &m.weights[k].ty;
            let nbytes = ty.static_numel().unwrap_or(0) as u64 * ty.dtype.byte_size() as u64;
            (
                names[k].as_str(),
                dtype_code(ty.dtype),
                shape.as_slice(),
                nbytes,
            )
        })
        .collect();
    let header = agc_runtime::safetensors::header(&described);
    let mut out = SparseWriter::create(path)?;
    out.write_all(&header)?;
    let mut files: HashMap<std::path::PathBuf, WeightFile> = HashMap::new();
    for &k in &order {
        let w = &m.weights[k];
        let (file, entry) = open_entry(&mut files, w)?;
        file.copy_to(entry, &mut out)
            .map_err(|e| BackendError::Weights(e.to_string()))?;
    }
    out.finish()?;
    Ok(())
}

/// A file writer that seeks over blocks of zeros instead of writing them.
struct SparseWriter {
    file: std::fs::File,
    /// Bytes written or skipped so far.
    len: u64,
    /// Bytes not yet written or skipped (less than [`BLOCK`]).
    pending: Vec<u8>,
}

impl SparseWriter {
    fn create(path: &Path) -> Result<Self, BackendError> {
        Ok(SparseWriter {
            file: std::fs::File::create(path)?,
            len: 0,
            pending: Vec::with_capacity(BLOCK),
        })
    }

    fn emit(&mut self, block: &[u8]) -> std::io::Result<()> {
        if block.iter().all(|&b| b == 0) {
            self.file.seek(SeekFrom::Current(block.len() as i64))?;
        } else {
            self.file.write_all(block)?;
        }
        self.len += block.len() as u64;
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        self.file.write_all(&rest)?;
        self.len += rest.len() as u64;
        self.file.set_len(self.len)
    }
}

impl Write for SparseWriter {
    fn write(&mut self, mut buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len();
        if !self.pending.is_empty() {
            let take = (BLOCK - self.pending.len()).min(buf.len());
            self.pending.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if self.pending.len() < BLOCK {
                return Ok(n);
            }
            let block = std::mem::take(&mut self.pending);
            self.emit(&block)?;
            self.pending = block;
            self.pending.clear();
        }
        let whole = buf.len() / BLOCK * BLOCK;
        for block in buf[..whole].chunks(BLOCK) {
            self.emit(block)?;
        }
        self.pending.extend_from_slice(&buf[whole..]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
