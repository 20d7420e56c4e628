//! The header of an `.npy` member, checked before `npyz` parses it: its
//! length is bounded, its Python literal nests at most [`MAX_DEPTH`] deep
//! (the parser takes time exponential in the nesting), and its shape's
//! element count fits 64 bits. Then `npyz` reads it.

use npyz::NpyHeader;
use std::io::{self, Read};

/// The longest header accepted (numpy itself refuses more than 10,000 bytes by default).
const MAX_LEN: usize = 64 << 10;
/// The deepest nesting of brackets accepted (a header's dict holds a tuple).
const MAX_DEPTH: usize = 4;

fn invalid(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// Reads and checks the header at the start of `reader`, leaving it at the data.
pub(crate) fn read(mut reader: impl Read) -> io::Result<NpyHeader> {
    let mut prefix = [0u8; 8];
    reader.read_exact(&mut prefix)?;
    if &prefix[..6] != b"\x93NUMPY" {
        return Err(invalid("not an .npy file (bad magic)"));
    }
    let len = match prefix[6] {
        1 => {
            let mut b = [0u8; 2];
            reader.read_exact(&mut b)?;
            u16::from_le_bytes(b) as usize
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            reader.read_exact(&mut b)?;
            u32::from_le_bytes(b) as usize
        }
        v => return Err(invalid(format!("unknown .npy version {v}"))),
    };
    if len > MAX_LEN {
        return Err(invalid(format!(
            "a header of {len} bytes (at most {MAX_LEN})"
        )));
    }
    let mut text = Vec::new();
    reader.by_ref().take(len as u64).read_to_end(&mut text)?;
    if text.len() != len {
        return Err(invalid("the file ends inside the header"));
    }
    check(&text)?;
    let mut whole = prefix.to_vec();
    whole.extend_from_slice(&(len as u32).to_le_bytes()[..if prefix[6] == 1 { 2 } else { 4 }]);
    whole.extend_from_slice(&text);
    NpyHeader::from_reader(io::Cursor::new(whole))
}

/// Checks the nesting depth and the shape's element count of header `text`.
fn check(text: &[u8]) -> io::Result<()> {
    let (mut depth, mut quote) = (0usize, None);
    for &c in text {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(c),
            (None, b'(' | b'[' | b'{') => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(invalid(format!(
                        "a header nested more than {MAX_DEPTH} deep"
                    )));
                }
            }
            (None, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(text);
    if let Some(start) = text.find("'shape'") {
        let rest = &text[start..];
        if let (Some(open), Some(close)) = (rest.find('('), rest.find(')')) {
            let count = rest
                .get(open + 1..close)
                .unwrap_or("")
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .try_fold(1u64, |n, d| {
                    d.parse::<u64>().ok().and_then(|d| n.checked_mul(d))
                });
            if count.is_none() {
                return Err(invalid("a shape whose element count does not fit 64 bits"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(dict: &str) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out
    }

    #[test]
    fn plain_headers_pass_and_hostile_ones_are_refused_at_once() {
        let ok = header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
        assert_eq!(read(&ok[..]).unwrap().shape(), &[2, 3]);
        let deep = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': {}{}, }}",
            "[".repeat(30),
            "]".repeat(30)
        );
        assert!(read(&header(&deep)[..]).is_err());
        let huge = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }";
        assert!(read(&header(huge)[..]).is_err());
        assert!(read(&b"\x93NUMPY\x02\x00\xff\xff\xff\xff"[..]).is_err());
    }
}
