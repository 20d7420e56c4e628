//! numpy `.npz` archives: a zip file (stored or deflated) of `.npy` members,
//! one per array, each a header (dtype, shape, order) then the raw data. The
//! archive is read with the `zip` crate and each header with `npyz`; an
//! array of Python objects (pickled) is refused, never unpickled.

use crate::{checked_nbytes, io_error, Entry, Location, WeightsError};
use agc_ir::DType;
use npyz::Order;
use std::io::{Read, Write};
use std::path::Path;

/// Bytes moved per step of a streamed copy.
const CHUNK: usize = 1 << 20;

fn malformed(path: &Path, detail: impl Into<String>) -> WeightsError {
    WeightsError::Malformed {
        path: path.to_path_buf(),
        format: "npz",
        detail: detail.into(),
    }
}

fn archive(path: &Path) -> Result<zip::ZipArchive<std::fs::File>, WeightsError> {
    let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    zip::ZipArchive::new(file).map_err(|e| malformed(path, e.to_string()))
}

/// The agc dtype of an `.npy` type string, and whether it is big-endian.
fn dtype_of(descr: &str) -> Option<(DType, bool)> {
    let (order, code) = descr.split_at(descr.len().min(1));
    let big = match order {
        "<" | "|" | "=" => false,
        ">" => true,
        _ => return None,
    };
    let dtype = match code {
        "f4" => DType::F32,
        "f8" => DType::F64,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "b1" => DType::Bool,
        _ => return None,
    };
    Some((dtype, big && dtype.byte_size() > 1))
}

/// The tensors of the npz archive at `path`, in archive order.
pub(crate) fn entries(path: &Path) -> Result<Vec<Entry>, WeightsError> {
    let mut zip = archive(path)?;
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let member = zip
            .by_index(i)
            .map_err(|e| malformed(path, e.to_string()))?;
        let member_name = member
            .name()
            .map_err(|e| malformed(path, e.to_string()))?
            .to_string();
        let Some(name) = member_name.strip_suffix(".npy") else {
            continue;
        };
        let name = name.to_string();
        let size = member.size();
        let header = crate::npy_header::read(member)
            .map_err(|e| malformed(path, format!("member '{member_name}': {e}")))?;
        let descr = match header.dtype() {
            npyz::DType::Plain(t) => t.to_string(),
            other => other.descr(),
        };
        let Some((dtype, big_endian)) = dtype_of(&descr).filter(|_| !header.uses_pickled_array())
        else {
            return Err(WeightsError::Dtype {
                path: path.to_path_buf(),
                name,
                dtype: descr,
            });
        };
        let shape = header.shape().to_vec();
        if checked_nbytes(&shape, dtype).is_none_or(|n| n > size) {
            return Err(malformed(
                path,
                format!("member '{member_name}' holds fewer bytes than its shape {shape:?} needs"),
            ));
        }
        out.push(Entry {
            name,
            dtype,
            shape,
            location: Location::Member {
                member: member_name,
                fortran: header.order() == Order::Fortran,
                big_endian,
            },
        });
    }
    Ok(out)
}

/// Copies the data of `entry` (archive member `member`) into `out` in C
/// order and little-endian: streamed for C order, whole for Fortran order.
pub(crate) fn copy(
    path: &Path,
    member: &str,
    entry: &Entry,
    fortran: bool,
    big_endian: bool,
    out: &mut dyn Write,
) -> Result<(), WeightsError> {
    let mut zip = archive(path)?;
    let mut reader = zip
        .by_name(member)
        .map_err(|e| malformed(path, e.to_string()))?;
    crate::npy_header::read(&mut reader)
        .map_err(|e| malformed(path, format!("member '{member}': {e}")))?;
    let elem = entry.dtype.byte_size();
    let short = || malformed(path, format!("member '{member}' ends before its data does"));
    let io = |e| io_error(path, e);
    if fortran && entry.shape.len() > 1 {
        // Read as far as the member goes: a claimed size is not allocated up front.
        let mut data = Vec::new();
        (&mut reader)
            .take(entry.nbytes())
            .read_to_end(&mut data)
            .map_err(|_| short())?;
        if data.len() as u64 != entry.nbytes() {
            return Err(short());
        }
        swap_if(&mut data, elem, big_endian);
        let c_order = fortran_to_c(&data, &entry.shape, elem);
        return out.write_all(&c_order).map_err(io);
    }
    let mut left = entry.nbytes();
    let mut buf = vec![0u8; CHUNK.min(usize::try_from(left).unwrap_or(CHUNK))];
    while left > 0 {
        let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        reader.read_exact(&mut buf[..n]).map_err(|_| short())?;
        swap_if(&mut buf[..n], elem, big_endian);
        out.write_all(&buf[..n]).map_err(io)?;
        left -= n as u64;
    }
    Ok(())
}

/// Reverses the bytes of each `elem`-byte element when `big_endian`.
fn swap_if(data: &mut [u8], elem: usize, big_endian: bool) {
    if big_endian {
        data.chunks_exact_mut(elem).for_each(<[u8]>::reverse);
    }
}

/// The C-order copy of column-major `data` of `shape`.
fn fortran_to_c(data: &[u8], shape: &[u64], elem: usize) -> Vec<u8> {
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let n: usize = dims.iter().product();
    let mut out = vec![0u8; n * elem];
    let mut index = vec![0usize; dims.len()];
    for c in 0..n {
        // `index` is the C-order multi-index of element `c`; its Fortran offset:
        let f = index
            .iter()
            .zip(&dims)
            .rev()
            .fold(0, |acc, (&i, &d)| acc * d + i);
        out[c * elem..(c + 1) * elem].copy_from_slice(&data[f * elem..(f + 1) * elem]);
        for (i, &d) in index.iter_mut().zip(&dims).rev() {
            *i += 1;
            if *i < d {
                break;
            }
            *i = 0;
        }
    }
    out
}
