//! The tensors of a weight file, for `agc.weights(path)`: safetensors and
//! numpy `.npz` archives.
//!
//! [`WeightFile::open`] reads only what describes the tensors (the
//! safetensors JSON header, the `.npy` header of each archive member), so a
//! build that keeps its weights external costs the same for any file size;
//! [`WeightFile::read`] returns one tensor's data as little-endian, C-order
//! bytes, and [`WeightFile::copy_to`] streams it into a writer. Nothing in a
//! file is ever executed: pickled (`object`) arrays are refused.

mod npy_header;
mod npz;
mod safetensors_file;

use agc_ir::DType;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a weight file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file cannot be opened or read.
    #[error("cannot read '{path}': {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file's contents are not a valid weight file of its kind.
    #[error("'{path}' is not a valid {format} file: {detail}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// `safetensors` or `npz`.
        format: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A tensor has a dtype agc does not compute with.
    #[error("tensor '{name}' of '{path}' has dtype {dtype}; agc supports float32, float64, int32, int64 and bool")]
    Dtype {
        /// The file.
        path: PathBuf,
        /// The tensor.
        name: String,
        /// The file's spelling of the dtype.
        dtype: String,
    },
    /// The file name does not say which format it is.
    #[error("'{0}' is neither a .safetensors nor an .npz file")]
    UnknownFormat(PathBuf),
}

/// Where a tensor's bytes are in its file.
#[derive(Clone, Debug)]
enum Location {
    /// `len` bytes at absolute offset `offset` of a safetensors file.
    Span { offset: u64 },
    /// The data of archive member `member` (an `.npy` file), after its header.
    Member {
        member: String,
        fortran: bool,
        big_endian: bool,
    },
}

/// One tensor of a weight file.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its name in the file (an npz member name without `.npy`).
    pub name: String,
    /// Its element type.
    pub dtype: DType,
    /// Its shape.
    pub shape: Vec<u64>,
    location: Location,
}

impl Entry {
    /// The number of elements (1 for a 0-d tensor).
    pub fn elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// The size of its data in bytes.
    pub fn nbytes(&self) -> u64 {
        self.elements() * self.dtype.byte_size() as u64
    }
}

/// An opened weight file: its tensors, in the file's order.
#[derive(Debug)]
pub struct WeightFile {
    /// The file.
    pub path: PathBuf,
    /// Its tensors.
    pub entries: Vec<Entry>,
}

impl WeightFile {
    /// Reads the description of every tensor of the file at `path`
    /// (`.safetensors` or `.npz`, by extension).
    pub fn open(path: &Path) -> Result<WeightFile, WeightsError> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let entries = match ext.to_ascii_lowercase().as_str() {
            "safetensors" => safetensors_file::entries(path)?,
            "npz" => npz::entries(path)?,
            _ => return Err(WeightsError::UnknownFormat(path.to_path_buf())),
        };
        Ok(WeightFile {
            path: path.to_path_buf(),
            entries,
        })
    }

    /// The tensor called `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Writes `entry`'s data (little-endian, C order) into `out`, in pieces:
    /// memory does not grow with the tensor's size.
    pub fn copy_to(&self, entry: &Entry, out: &mut dyn Write) -> Result<(), WeightsError> {
        match &entry.location {
            Location::Span { offset } => {
                safetensors_file::copy(&self.path, *offset, entry.nbytes(), out)
            }
            Location::Member {
                member,
                fortran,
                big_endian,
            } => npz::copy(&self.path, member, entry, *fortran, *big_endian, out),
        }
    }

    /// `entry`'s data (little-endian, C order).
    pub fn read(&self, entry: &Entry) -> Result<Vec<u8>, WeightsError> {
        // Grown as the data arrives: a corrupted file may claim any size.
        let mut out = Vec::new();
        self.copy_to(entry, &mut out)?;
        Ok(out)
    }
}

/// A [`WeightsError::Io`] for `path`.
fn io_error(path: &Path, source: std::io::Error) -> WeightsError {
    WeightsError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Elements times element size, or `None` when it overflows 64 bits.
fn checked_nbytes(shape: &[u64], dtype: DType) -> Option<u64> {
    shape
        .iter()
        .try_fold(dtype.byte_size() as u64, |n, &d| n.checked_mul(d))
}

#[cfg(test)]
mod tests;
