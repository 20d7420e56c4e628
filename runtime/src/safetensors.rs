//! The safetensors format, read and written by the runtime: `<NAME>.weights`
//! (mapped at context creation) and the variables of `_save`/`_restore`.
//!
//! Layout: a little-endian `u64` header length `n`, `n` bytes of JSON
//! (`{"name": {"dtype": "F32", "shape": [..], "data_offsets": [s, e]}, ...}`,
//! plus an optional `"__metadata__"` object), then the data; offsets are
//! relative to the end of the header.

use crate::dlpack::DLDataType;
use crate::json::{self, Json};

/// The largest header accepted (as the reference implementation).
pub const MAX_HEADER: u64 = 100 << 20;

/// One tensor of a safetensors file.
#[derive(Debug, PartialEq)]
pub struct TensorInfo {
    /// Its name.
    pub name: String,
    /// The file's dtype code (`F32`, ...).
    pub dtype: String,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Absolute byte offset of its data in the file.
    pub offset: u64,
    /// Bytes of data.
    pub nbytes: u64,
}

/// The safetensors code of a DLPack dtype agc uses.
pub fn code_of(dtype: DLDataType) -> &'static str {
    match (dtype.code, dtype.bits) {
        (2, 32) => "F32",
        (2, 64) => "F64",
        (0, 32) => "I32",
        (0, 64) => "I64",
        (6 | 1, 8) => "BOOL",
        _ => "?",
    }
}

/// Bytes per element of a safetensors dtype code (`None`: unknown code).
fn element_bytes(code: &str) -> Option<u64> {
    Some(match code {
        "BOOL" | "U8" | "I8" | "F8_E5M2" | "F8_E4M3" => 1,
        "F16" | "BF16" | "I16" | "U16" => 2,
        "F32" | "I32" | "U32" => 4,
        "F64" | "I64" | "U64" => 8,
        _ => return None,
    })
}

/// The header length announced by the first 8 bytes of a file of `file_len` bytes.
pub fn header_len(first8: &[u8], file_len: u64) -> Result<u64, String> {
    let bytes: [u8; 8] = first8
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or("the file is shorter than a safetensors header")?;
    let n = u64::from_le_bytes(bytes);
    if n > MAX_HEADER || n.checked_add(8).is_none_or(|end| end > file_len) {
        return Err(format!(
            "the header length {n} does not fit the file ({file_len} bytes)"
        ));
    }
    Ok(n)
}

/// The tensors described by `header` (the JSON text) of a file of
/// `file_len` bytes; every tensor's data is checked to lie within the file.
pub fn parse_header(header: &[u8], file_len: u64) -> Result<Vec<TensorInfo>, String> {
    let Json::Object(members) = json::parse(header)? else {
        return Err("the header is not a JSON object".into());
    };
    let data_start = 8 + header.len() as u64;
    let mut out = Vec::with_capacity(members.len());
    for (name, desc) in members {
        if name == "__metadata__" {
            continue;
        }
        let Json::Object(fields) = desc else {
            return Err(format!("tensor '{name}': not an object"));
        };
        let field = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v);
        let Some(Json::Str(dtype)) = field("dtype") else {
            return Err(format!("tensor '{name}': no dtype"));
        };
        let ints = |v: Option<&Json>| -> Option<Vec<u64>> {
            let Some(Json::Array(items)) = v else {
                return None;
            };
            items
                .iter()
                .map(|x| match x {
                    Json::Int(i) => u64::try_from(*i).ok(),
                    _ => None,
                })
                .collect()
        };
        let shape = ints(field("shape")).ok_or_else(|| format!("tensor '{name}': bad shape"))?;
        let offsets = ints(field("data_offsets"))
            .filter(|o| o.len() == 2 && o[0] <= o[1])
            .ok_or_else(|| format!("tensor '{name}': bad data_offsets"))?;
        let end = data_start
            .checked_add(offsets[1])
            .filter(|&e| e <= file_len)
            .ok_or_else(|| format!("tensor '{name}': its data ends past the end of the file"))?;
        let nbytes = offsets[1] - offsets[0];
        if let Some(elem) = element_bytes(dtype) {
            let want = shape.iter().try_fold(elem, |n, &d| n.checked_mul(d));
            if want != Some(nbytes) {
                return Err(format!(
                    "tensor '{name}': {nbytes} bytes of data for shape {shape:?} of {dtype}"
                ));
            }
        }
        out.push(TensorInfo {
            name,
            dtype: dtype.clone(),
            shape,
            offset: end - nbytes,
            nbytes,
        });
    }
    Ok(out)
}

/// The header (length word, JSON, padding to 8 bytes) of a safetensors
/// file whose tensors (name, dtype code, shape, bytes of data) follow it
/// back to back, in this order.
pub fn header(tensors: &[(&str, &str, &[i64], u64)]) -> Vec<u8> {
    let mut text = String::from("{");
    let mut offset = 0u64;
    for (i, (name, code, shape, nbytes)) in tensors.iter().enumerate() {
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            "{}:{{\"dtype\":\"{code}\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
            json_string(name),
            dims.join(","),
            offset + nbytes
        ));
        offset += nbytes;
    }
    text.push('}');
    while text.len() % 8 != 0 {
        text.push(' ');
    }
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(text.as_bytes());
    out
}

/// A safetensors file holding `tensors` (name, dtype, shape, data), as bytes.
pub fn encode(tensors: &[(&str, DLDataType, &[i64], &[u8])]) -> Vec<u8> {
    let described: Vec<(&str, &str, &[i64], u64)> = tensors
        .iter()
        .map(|(n, d, s, data)| (*n, code_of(*d), *s, data.len() as u64))
        .collect();
    let mut out = header(&described);
    for (_, _, _, data) in tensors {
        out.extend_from_slice(data);
    }
    out
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: DLDataType = DLDataType {
        code: 2,
        bits: 32,
        lanes: 1,
    };

    #[test]
    fn encoded_files_parse_back() {
        let data: Vec<u8> = (0..24).collect();
        let bytes = encode(&[("w\"1", F32, &[2, 3], &data), ("b", F32, &[0], &[])]);
        let n = header_len(&bytes, bytes.len() as u64).unwrap();
        let t = parse_header(&bytes[8..8 + n as usize], bytes.len() as u64).unwrap();
        assert_eq!(t[0].name, "w\"1");
        assert_eq!(
            (t[0].shape.clone(), t[0].offset, t[0].nbytes),
            (vec![2, 3], 8 + n, 24)
        );
        assert_eq!(&bytes[t[0].offset as usize..][..24], &data[..]);
        assert_eq!((t[1].nbytes, t[1].offset), (0, 8 + n + 24));
    }

    #[test]
    fn inconsistent_headers_are_errors() {
        for (header, len) in [
            (
                r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}}"#,
                1000,
            ),
            (
                r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
                60,
            ),
            (
                r#"{"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}"#,
                1000,
            ),
            (
                r#"{"w":{"dtype":"F32","shape":[4611686018427387904, 8],"data_offsets":[0,8]}}"#,
                1000,
            ),
            (
                r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}"#,
                1000,
            ),
            (r#"{"w":{"shape":[2],"data_offsets":[0,8]}}"#, 1000),
            (r#"[1]"#, 1000),
        ] {
            assert!(parse_header(header.as_bytes(), len).is_err(), "{header}");
        }
        assert!(header_len(&[1, 2, 3], 3).is_err());
        assert!(header_len(&u64::MAX.to_le_bytes(), 100).is_err());
    }
}
