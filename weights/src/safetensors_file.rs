//! safetensors files: an 8-byte little-endian header length, a JSON header
//! naming each tensor's dtype, shape and byte range, then the data. The
//! header is read and validated by the `safetensors` crate over a read-only
//! mapping of the file, so no data page is touched.

use crate::{io_error, Entry, Location, WeightsError};
use agc_ir::DType;
use safetensors::{Dtype, SafeTensors};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The tensors of the safetensors file at `path`, in data order.
pub(crate) fn entries(path: &Path) -> Result<Vec<Entry>, WeightsError> {
    let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    // SAFETY: the mapping is read-only and only the header is read from it;
    // a file truncated by another process meanwhile is the one hazard, as
    // with any reader of the file.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io_error(path, e))?;
    let malformed = |detail: String| WeightsError::Malformed {
        path: path.to_path_buf(),
        format: "safetensors",
        detail,
    };
    let (header_len, metadata) =
        SafeTensors::read_metadata(&map).map_err(|e| malformed(e.to_string()))?;
    let data_start = 8 + header_len as u64;
    let mut out = Vec::new();
    for name in metadata.offset_keys() {
        let info = metadata
            .info(&name)
            .ok_or_else(|| malformed(format!("tensor '{name}' listed without its description")))?;
        let dtype = match info.dtype {
            Dtype::F32 => DType::F32,
            Dtype::F64 => DType::F64,
            Dtype::I32 => DType::I32,
            Dtype::I64 => DType::I64,
            Dtype::BOOL => DType::Bool,
            other => {
                return Err(WeightsError::Dtype {
                    path: path.to_path_buf(),
                    name,
                    dtype: format!("{other:?}"),
                })
            }
        };
        out.push(Entry {
            name,
            dtype,
            shape: info.shape.iter().map(|&d| d as u64).collect(),
            location: Location::Span {
                offset: data_start + info.data_offsets.0 as u64,
            },
        });
    }
    Ok(out)
}

/// Copies `len` bytes at `offset` of `path` into `out`.
pub(crate) fn copy(
    path: &Path,
    offset: u64,
    len: u64,
    out: &mut dyn Write,
) -> Result<(), WeightsError> {
    let io = |e| io_error(path, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(offset)).map_err(io)?;
    let copied = std::io::copy(&mut file.take(len), out).map_err(io)?;
    if copied != len {
        return Err(WeightsError::Malformed {
            path: path.to_path_buf(),
            format: "safetensors",
            detail: format!(
                "the file ends {} bytes into a tensor of {len} bytes",
                copied
            ),
        });
    }
    Ok(())
}
