//! Fuzzing the compile-time weight-file readers: valid safetensors and npz
//! files built here are mutated deterministically (bit flips, interesting
//! bytes, truncation, inserted/deleted/duplicated ranges, edited header
//! lengths, JSON numbers, shapes, dtypes, zip fields, npy headers) and every
//! mutant is opened with `WeightFile::open`, then each of its tensors read
//! with `WeightFile::read` when it claims less than `READ_LIMIT` bytes.
//!
//! Each case must return (`Ok` or an error with a message), never panic, and
//! take well under a second; a read that succeeds returns exactly `nbytes`
//! bytes. The cases run in child processes (this test binary, running
//! `fuzz_child`), so that an abort, a stack overflow or a hang (a case
//! running past `HANG`) is reported with its case and the next cases still
//! run. Failures are collected with the case's name and index (which
//! reproduces it: every case is a function of fixed seeds) and reported
//! together at the end.
//!
//! `known_hazards_are_errors` holds the files found to abort or hang the
//! reader: an npz member whose zip64 sizes and shape claim 2^50 bytes
//! (`WeightFile::read` allocates the claimed size up front), and npy headers
//! with nested Python literals (parsed by `npyz` in time exponential in the
//! depth).

use agc_mutate::{
    mutate_bytes, number_spans, panic_message, spans_after, Interesting, Rng, DTYPES, JSON_NUMBERS,
    SEED_TENSORS, SHAPES, STRUCTURAL,
};
use agc_weights::WeightFile;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

/// Tensors claiming more bytes than this are not read (a mutated shape may
/// claim a huge tensor; reading one is covered by `known_hazards_are_errors`).
const READ_LIMIT: u64 = 64 << 20;

/// A single case slower than this is reported.
const SLOW: Duration = Duration::from_secs(1);

// ---------------------------------------------------------------------------
// Generic byte mutations.

/// What `mutate_bytes` writes: JSON punctuation, zip and npy header
/// fields' extremes, length words around 100 MiB and the integer limits.
const INTERESTING: Interesting = Interesting {
    bytes: &[
        0x00, 0xff, 0x7f, 0x80, b'"', b'{', b'9', b'}', b'[', b'\\', b'-', b'\n',
    ],
    u16s: &INTERESTING_U16,
    u32s: &INTERESTING_U32,
    u64s: &INTERESTING_U64,
};

const INTERESTING_U16: [u16; 7] = [0, 1, 0x7fff, 0x8000, 0xfffe, 0xffff, 64];

const INTERESTING_U32: [u32; 9] = [
    0,
    1,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    0x0001_0000,
    0x0010_0000,
    100 << 20,
];

const INTERESTING_U64: [u64; 12] = [
    0,
    1,
    7,
    8,
    u32::MAX as u64,
    1 << 32,
    100 << 20,
    (100 << 20) + 1,
    1 << 50,
    i64::MAX as u64,
    1 << 63,
    u64::MAX,
];

// ---------------------------------------------------------------------------
// safetensors seeds and mutations.

/// A safetensors file as its JSON header and its data.
#[derive(Clone)]
struct St {
    header: Vec<u8>,
    data: Vec<u8>,
}

impl St {
    /// The file, with the length word of the header as written (`len`) or
    /// its true length.
    fn bytes(&self, len: Option<u64>) -> Vec<u8> {
        let n = len.unwrap_or(self.header.len() as u64);
        let mut out = n.to_le_bytes().to_vec();
        out.extend_from_slice(&self.header);
        out.extend_from_slice(&self.data);
        out
    }
}

/// A valid file: F32, F64, I32, I64, BOOL tensors, a 0-d and an empty one,
/// and a `__metadata__` object; the JSON members are not in data order.
fn safetensors_seed() -> St {
    let mut parts = Vec::new();
    let mut offset = 0;
    for (name, dtype, shape, nbytes) in SEED_TENSORS {
        let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
        parts.push(format!(
            "\"{name}\":{{\"dtype\":\"{dtype}\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
            dims.join(","),
            offset + nbytes
        ));
        offset += nbytes;
    }
    parts.swap(0, 3);
    parts.insert(
        2,
        r#""__metadata__":{"format":"pt","note":"a\"b\\c \u00e9 \ud83d\ude00"}"#.to_string(),
    );
    let mut header = format!("{{{}}}", parts.join(","));
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    St {
        header: header.into_bytes(),
        data: (0..offset).map(|i| (i * 7 + 3) as u8).collect(),
    }
}

/// Replaces `text[span]` with `with`.
fn splice(text: &mut Vec<u8>, span: (usize, usize), with: &str) {
    text.splice(span.0..span.1, with.bytes());
}

/// One structured mutation of a safetensors file; returns its name.
fn mutate_safetensors(rng: &mut Rng, st: &mut St) -> (&'static str, Option<u64>) {
    let fix = |rng: &mut Rng| {
        if rng.chance(7, 8) {
            None
        } else {
            Some(rng.next_u64() % 4096)
        }
    };
    match rng.below(8) {
        0 => {
            let spans = number_spans(&st.header);
            if !spans.is_empty() {
                let span = rng.pick(&spans);
                splice(&mut st.header, span, rng.pick(&JSON_NUMBERS));
            }
            ("JSON number", fix(rng))
        }
        1 => {
            let spans = spans_after(&st.header, "\"shape\":[", b']');
            if !spans.is_empty() {
                let span = rng.pick(&spans);
                splice(&mut st.header, span, rng.pick(&SHAPES));
            }
            ("shape", fix(rng))
        }
        2 => {
            let spans = spans_after(&st.header, "\"data_offsets\":[", b']');
            if !spans.is_empty() {
                let span = rng.pick(&spans);
                let a = rng.pick(&JSON_NUMBERS).to_string();
                let b = rng.pick(&JSON_NUMBERS).to_string();
                let with = match rng.below(4) {
                    0 => format!("{a},{b}"),
                    1 => format!("0,{b}"),
                    2 => a,
                    _ => format!("{a},{b},0"),
                };
                splice(&mut st.header, span, &with);
            }
            ("data_offsets", fix(rng))
        }
        3 => {
            let spans = spans_after(&st.header, "\"dtype\":\"", b'"');
            if !spans.is_empty() {
                let span = rng.pick(&spans);
                splice(&mut st.header, span, rng.pick(&DTYPES));
            }
            ("dtype", fix(rng))
        }
        4 => {
            // A single tensor whose shape, dtype and offsets agree, or agree
            // only modulo 2^64; the data is as long as it fits.
            let (dtype, shape, end): (&str, &str, u64) = rng.pick(&[
                ("BOOL", "18446744073709551615", u64::MAX),
                ("F32", "4611686018427387903", u64::MAX - 3),
                ("F32", "4611686018427387904", 0),
                ("F32", "4294967296,4294967296", 0),
                ("F64", "2305843009213693952", 0),
                ("I64", "2,9223372036854775808", 0),
                ("F32", "0,18446744073709551615", 0),
                ("BOOL", "18446744073709551615,0", 0),
                ("I32", "1073741824", 1 << 32),
                ("F64", "3", 24),
                ("F64", "3", 23),
                ("BOOL", "", 1),
            ]);
            let with_meta = if rng.chance(1, 2) {
                r#""__metadata__":{"k":"v"},"#
            } else {
                ""
            };
            st.header = format!(
                "{{{with_meta}\"t\":{{\"dtype\":\"{dtype}\",\"shape\":[{shape}],\"data_offsets\":[0,{end}]}}}}"
            )
            .into_bytes();
            st.data = vec![0x5a; end.min(64) as usize];
            ("consistent huge tensor", fix(rng))
        }
        5 => {
            let at = rng.below(st.header.len() + 1);
            let s = rng.pick(&STRUCTURAL);
            st.header.splice(at..at, s.bytes());
            ("JSON structure", fix(rng))
        }
        6 => {
            // A long string or deep nesting as the whole header.
            let n = 1 + rng.below(200_000);
            st.header = match rng.below(4) {
                0 => format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes(),
                1 => "{\"a\":".repeat(n).into_bytes(),
                2 => format!("{{\"{}\":1}}", "x".repeat(n)).into_bytes(),
                _ => format!(
                    "{{\"__metadata__\":{{\"k\":\"{}\"}}}}",
                    "\\u00e9".repeat(n / 6 + 1)
                )
                .into_bytes(),
            };
            ("long or deep header", fix(rng))
        }
        _ => {
            mutate_bytes(rng, &mut st.header, &INTERESTING);
            ("header bytes", fix(rng))
        }
    }
}

/// The header length words worth trying for a file of `file_len` bytes
/// whose header is `n` bytes.
fn header_lengths(n: u64, file_len: u64) -> Vec<u64> {
    let mut v = vec![
        n.wrapping_sub(1),
        n + 1,
        n + 8,
        n.wrapping_sub(8),
        file_len,
        file_len - 7,
        file_len - 8,
        file_len.wrapping_sub(9),
        n / 2,
    ];
    v.extend_from_slice(&INTERESTING_U64);
    v.push(u64::MAX - 7);
    v.push(u64::MAX - 6);
    v
}

// ---------------------------------------------------------------------------
// npz seeds and mutations.

/// An `.npy` member in parts, so that its header can be edited.
#[derive(Clone)]
struct Npy {
    name: String,
    magic: Vec<u8>,
    version: (u8, u8),
    /// The header length word; `None`: the true length.
    header_len: Option<u32>,
    descr: String,
    fortran: String,
    shape: String,
    /// Appended inside the dict, e.g. an extra key.
    extra: String,
    /// Replaces the whole header text when set.
    text: Option<Vec<u8>>,
    data: Vec<u8>,
}

impl Npy {
    fn new(name: &str, descr: &str, fortran: bool, shape: &[u64], data: Vec<u8>) -> Npy {
        let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
        Npy {
            name: format!("{name}.npy"),
            magic: b"\x93NUMPY".to_vec(),
            version: (1, 0),
            header_len: None,
            descr: format!("'{descr}'"),
            fortran: if fortran { "True" } else { "False" }.into(),
            shape: if dims.len() == 1 {
                format!("({},)", dims[0])
            } else {
                format!("({})", dims.join(", "))
            },
            extra: String::new(),
            text: None,
            data,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let text = self.text.clone().unwrap_or_else(|| {
            let mut t = format!(
                "{{'descr': {}, 'fortran_order': {}, 'shape': {}, {}}}",
                self.descr, self.fortran, self.shape, self.extra
            );
            let lead = if self.version.0 >= 2 { 12 } else { 10 };
            while (lead + t.len() + 1) % 64 != 0 {
                t.push(' ');
            }
            t.push('\n');
            t.into_bytes()
        });
        let mut out = self.magic.clone();
        out.extend_from_slice(&[self.version.0, self.version.1]);
        let n = self.header_len.unwrap_or(text.len() as u32);
        if self.version.0 >= 2 {
            out.extend_from_slice(&n.to_le_bytes());
        } else {
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        out.extend_from_slice(&text);
        out.extend_from_slice(&self.data);
        out
    }
}

fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

/// Valid members: every dtype, a Fortran-order and a big-endian member, a
/// 0-d and an empty array, a version 2.0 header.
fn npy_seed() -> Vec<Npy> {
    let w: Vec<f32> = (0..6).map(|i| i as f32 * 0.5).collect();
    let mut v2 = Npy::new(
        "v2",
        "<i4",
        false,
        &[3],
        le(&[1i32, -2, 3], i32::to_le_bytes),
    );
    v2.version = (2, 0);
    vec![
        Npy::new("W", "<f4", false, &[2, 3], le(&w, f32::to_le_bytes)),
        Npy::new("Wf", "<f4", true, &[2, 3], le(&w, f32::to_le_bytes)),
        Npy::new("b", ">i8", false, &[2], le(&[7i64, -1], i64::to_be_bytes)),
        Npy::new(
            "d",
            "<f8",
            false,
            &[2, 1],
            le(&[1.5f64, -2.0], f64::to_le_bytes),
        ),
        Npy::new("s", "<f8", false, &[], le(&[3.25f64], f64::to_le_bytes)),
        Npy::new("e", "|b1", false, &[0, 4], Vec::new()),
        Npy::new("m", "|b1", true, &[2, 2], vec![1, 0, 0, 1]),
        v2,
    ]
}

/// A zip archive of `members` (plus a non-`.npy` member), stored or
/// deflated, with zip64 extra fields when `zip64`.
fn zip_of(members: &[Npy], deflate: bool, zip64: bool) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(method)
        .large_file(zip64);
    for (i, m) in members.iter().enumerate() {
        if i == 2 {
            zip.start_file("readme.txt", opts).unwrap();
            zip.write_all(b"not an array").unwrap();
        }
        zip.start_file(m.name.as_str(), opts).unwrap();
        zip.write_all(&m.bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// Offsets of every occurrence of `sig` in `data`.
fn find_all(data: &[u8], sig: &[u8]) -> Vec<usize> {
    data.windows(sig.len())
        .enumerate()
        .filter(|(_, w)| *w == sig)
        .map(|(i, _)| i)
        .collect()
}

/// A zip record's signature and its fields (offset, width in bytes).
type Record = (&'static [u8], &'static [(usize, usize)]);

/// Overwrites a random field of a random zip record (local header, central
/// directory entry, end of central directory) with an interesting value.
fn mutate_zip_field(rng: &mut Rng, data: &mut [u8]) -> &'static str {
    // (signature, [(field offset, width)])
    let records: [Record; 3] = [
        (
            b"PK\x03\x04",
            &[
                (4, 2),
                (6, 2),
                (8, 2),
                (14, 4),
                (18, 4),
                (22, 4),
                (26, 2),
                (28, 2),
            ],
        ),
        (
            b"PK\x01\x02",
            &[
                (6, 2),
                (8, 2),
                (10, 2),
                (16, 4),
                (20, 4),
                (24, 4),
                (28, 2),
                (30, 2),
                (32, 2),
                (34, 2),
                (42, 4),
            ],
        ),
        (
            b"PK\x05\x06",
            &[(4, 2), (6, 2), (8, 2), (10, 2), (12, 4), (16, 4), (20, 2)],
        ),
    ];
    let (sig, fields) = rng.pick(&records);
    let at = find_all(data, sig);
    if at.is_empty() {
        return "zip field (no record)";
    }
    let base = rng.pick(&at);
    let (off, width) = rng.pick(fields);
    let i = base + off;
    if i + width > data.len() {
        return "zip field (short record)";
    }
    if width == 2 {
        let old = u16::from_le_bytes([data[i], data[i + 1]]);
        let v = match rng.below(3) {
            0 => old.wrapping_add(1 + rng.below(3) as u16),
            1 => old.wrapping_sub(1 + rng.below(3) as u16),
            _ => rng.pick(&INTERESTING_U16),
        };
        data[i..i + 2].copy_from_slice(&v.to_le_bytes());
    } else {
        let old = u32::from_le_bytes(data[i..i + 4].try_into().unwrap());
        let v = match rng.below(4) {
            0 => old.wrapping_add(1 + rng.below(16) as u32),
            1 => old.wrapping_sub(1 + rng.below(16) as u32),
            2 => data.len() as u32,
            _ => rng.pick(&INTERESTING_U32),
        };
        data[i..i + 4].copy_from_slice(&v.to_le_bytes());
    }
    "zip field"
}

/// Sets the uncompressed size of a member in the zip64 extra fields of its
/// local header and central directory entry (which must agree) to `size`;
/// `true` when such fields were found.
fn set_zip64_size(data: &mut [u8], old: u64, size: u64) -> bool {
    let mut pat = vec![0x01, 0x00, 0x10, 0x00];
    pat.extend_from_slice(&old.to_le_bytes());
    let at = find_all(data, &pat);
    for &i in &at {
        data[i + 4..i + 12].copy_from_slice(&size.to_le_bytes());
    }
    !at.is_empty()
}

const NPY_SHAPES: [&str; 22] = [
    "()",
    "(0,)",
    "(18446744073709551615,)",
    "(18446744073709551616,)",
    "(-1,)",
    "(4294967296, 4294967296, 4294967296)",
    "(4294967296, 4294967296, 0)",
    "(0, 4294967296, 4294967296)",
    "(2305843009213693952,)",
    "(3, 2)",
    "(2, 3, 1, 1, 1)",
    "(1000000, 1000000)",
    "(16777216,)",
    "(1e9,)",
    "('a',)",
    "(2,3",
    "[2, 3]",
    "(0, 18446744073709551615)",
    "(99999999999999999999999999999,)",
    "None",
    "(True,)",
    "(2, -3)",
];

const NPY_DESCRS: [&str; 20] = [
    "'<f4'",
    "'>f8'",
    "'|b1'",
    "'<i8'",
    "'>i4'",
    "'<f2'",
    "'|O'",
    "'<U10'",
    "'|V8'",
    "[('a', '<f4')]",
    "[('a', '<f4', (2,))]",
    "'<c16'",
    "'<M8[ns]'",
    "'S5'",
    "'=f4'",
    "'f4'",
    "'>b1'",
    "'<f4 '",
    "4",
    "'<i18446744073709551615'",
];

/// One structured mutation of an `.npy` member; returns its name.
fn mutate_npy(rng: &mut Rng, m: &mut Npy) -> &'static str {
    match rng.below(9) {
        0 => {
            m.shape = rng.pick(&NPY_SHAPES).to_string();
            "npy shape"
        }
        1 => {
            m.descr = rng.pick(&NPY_DESCRS).to_string();
            "npy descr"
        }
        2 => {
            m.fortran = rng
                .pick(&["True", "False", "1", "None", "'True'", "true"])
                .to_string();
            "npy fortran_order"
        }
        3 => {
            m.header_len = Some(rng.pick(&[0, 1, 9, 10, 63, 64, 65, 0xffff, 0x10000, u32::MAX]));
            "npy header length"
        }
        4 => {
            m.version = rng.pick(&[(1, 0), (2, 0), (3, 0), (0, 0), (4, 0), (255, 255)]);
            "npy version"
        }
        5 => {
            // Deep nesting or a long string inside the header text.
            let n = 1 + rng.below(60_000);
            m.extra = match rng.below(4) {
                0 => format!("'x': {}{}, ", "(".repeat(n), ")".repeat(n)),
                1 => format!("'x': {}{}, ", "[".repeat(n), "]".repeat(n)),
                2 => format!("'x': {}, ", "{1: ".repeat(n) + &"}".repeat(n)),
                _ => format!("'x': '{}', ", "y".repeat(n)),
            };
            if rng.chance(1, 2) {
                m.version = (2, 0);
            }
            "npy deep or long header"
        }
        6 => {
            let len = m.data.len();
            if rng.chance(1, 2) {
                m.data.truncate(rng.below(len + 1));
            } else {
                m.data.extend(std::iter::repeat_n(0x41, 1 + rng.below(64)));
            }
            "npy data length"
        }
        7 => {
            let lead = m.magic.len() + if m.version.0 >= 2 { 6 } else { 4 };
            let all = m.bytes();
            let mut text = all[lead.min(all.len())..all.len() - m.data.len()].to_vec();
            mutate_bytes(rng, &mut text, &INTERESTING);
            m.text = Some(text);
            "npy header text bytes"
        }
        _ => {
            mutate_bytes(rng, &mut m.magic, &INTERESTING);
            "npy magic"
        }
    }
}

// ---------------------------------------------------------------------------
// The cases: every one a function of its index.

/// Random mutants per corpus (on top of the exhaustive truncations).
const RANDOM_CASES: u64 = 10_000;

/// One input: its description, the file's bytes, and whether tensors over
/// `READ_LIMIT` are read too.
struct Case {
    label: String,
    path_ext: &'static str,
    bytes: Vec<u8>,
    read_all: bool,
}

fn case(label: String, path_ext: &'static str, bytes: Vec<u8>) -> Case {
    Case {
        label,
        path_ext,
        bytes,
        read_all: false,
    }
}

/// Case `i` of the safetensors corpus: every truncation of the seed, every
/// interesting header length word, then random stacks of mutations.
fn safetensors_case(i: u64) -> Option<Case> {
    let seed = safetensors_seed();
    let whole = seed.bytes(None);
    let cuts = whole.len() as u64;
    let lengths = header_lengths(seed.header.len() as u64, whole.len() as u64);
    let st = |label: String, bytes: Vec<u8>| Some(case(label, "safetensors", bytes));
    if i < cuts {
        return st(
            format!("safetensors truncated to {i}"),
            whole[..i as usize].to_vec(),
        );
    }
    let i = i - cuts;
    if let Some(&n) = lengths.get(i as usize) {
        return st(
            format!("safetensors header length word {n}"),
            seed.bytes(Some(n)),
        );
    }
    let k = i - lengths.len() as u64;
    if k >= RANDOM_CASES {
        return None;
    }
    let mut rng = Rng::new(k);
    let mut st_file = seed.clone();
    let mut names = Vec::new();
    let mut len_word = None;
    for _ in 0..1 + rng.below(3) {
        if rng.chance(1, 2) {
            let (name, delta) = mutate_safetensors(&mut rng, &mut st_file);
            names.push(name);
            len_word = delta.map(|d| {
                (st_file.header.len() as u64)
                    .wrapping_add(d)
                    .wrapping_sub(2048)
            });
        } else {
            names.push("");
        }
    }
    let mut bytes = st_file.bytes(len_word);
    if rng.chance(1, 4) {
        let v = rng.pick(&header_lengths(
            seed.header.len() as u64,
            bytes.len() as u64,
        ));
        if bytes.len() >= 8 {
            bytes[..8].copy_from_slice(&v.to_le_bytes());
        }
        names.push("length word");
    }
    for name in names.iter_mut().filter(|n| n.is_empty()) {
        *name = mutate_bytes(&mut rng, &mut bytes, &INTERESTING);
    }
    st(
        format!("safetensors random case {k} ({})", names.join(", ")),
        bytes,
    )
}

/// Case `i` of the npz corpus: every truncation of the stored and of the
/// deflated seed, then random mutants (of the members' npy headers inside a
/// valid archive, of zip fields, of zip64 sizes, of raw bytes).
fn npz_case(i: u64) -> Option<Case> {
    let members = npy_seed();
    let mut i = i;
    for deflate in [false, true] {
        let whole = zip_of(&members, deflate, false);
        if i < whole.len() as u64 {
            return Some(case(
                format!("npz (deflate {deflate}) truncated to {i}"),
                "npz",
                whole[..i as usize].to_vec(),
            ));
        }
        i -= whole.len() as u64;
    }
    let k = i;
    if k >= RANDOM_CASES {
        return None;
    }
    let mut rng = Rng::new(k ^ 0x6e70_7a00);
    let deflate = rng.chance(1, 2);
    let zip64 = rng.chance(1, 4);
    let mut names = Vec::new();
    let bytes = match rng.below(10) {
        0..=3 => {
            let mut ms = members.clone();
            for _ in 0..1 + rng.below(2) {
                let m = rng.below(ms.len());
                names.push(mutate_npy(&mut rng, &mut ms[m]));
            }
            zip_of(&ms, deflate, zip64)
        }
        4 | 5 => {
            let mut z = zip_of(&members, deflate, zip64);
            for _ in 0..1 + rng.below(2) {
                names.push(mutate_zip_field(&mut rng, &mut z));
            }
            z
        }
        6 => {
            let mut ms = members.clone();
            let m = rng.below(ms.len());
            if rng.chance(1, 2) {
                names.push(mutate_npy(&mut rng, &mut ms[m]));
            }
            let mut z = zip_of(&ms, deflate, true);
            let old = ms[m].bytes().len() as u64;
            let size = rng.pick(&[
                0,
                1,
                old - 1,
                old + 1,
                old + 4096,
                READ_LIMIT - 1,
                1 << 32,
                1 << 40,
                1 << 62,
                u64::MAX,
            ]);
            set_zip64_size(&mut z, old, size);
            names.push("zip64 uncompressed size");
            z
        }
        _ => {
            let mut z = zip_of(&members, deflate, zip64);
            for _ in 0..1 + rng.below(3) {
                names.push(mutate_bytes(&mut rng, &mut z, &INTERESTING));
            }
            z
        }
    };
    Some(case(
        format!(
            "npz random case {k} (deflate {deflate}, zip64 {zip64}: {})",
            names.join(", ")
        ),
        "npz",
        bytes,
    ))
}

/// An npz archive whose member `x.npy` (deflated, zip64 sizes) has a
/// header saying `descr`/`fortran`/`shape` and 16 bytes of data, but whose
/// zip records claim `claimed` uncompressed bytes.
fn claimed_npz(descr: &str, fortran: bool, shape: &[u64], claimed: u64) -> Vec<u8> {
    let m = Npy::new("x", descr, fortran, shape, vec![0; 16]);
    let old = m.bytes().len() as u64;
    let mut z = zip_of(&[m], true, true);
    assert!(set_zip64_size(&mut z, old, claimed));
    z
}

/// An npz archive of one member whose npy header holds `extra` (e.g. a
/// nested Python literal) as an extra dict entry.
fn npz_with_extra(extra: String) -> Vec<u8> {
    let mut m = Npy::new("x", "<f4", false, &[2], vec![0; 8]);
    m.extra = extra;
    m.version = (2, 0);
    zip_of(&[m], false, false)
}

/// Known hazards, each a small file: reading every tensor it claims (any
/// size) must be an error, quickly, not an abort or a hang.
fn hazard_case(i: u64) -> Option<Case> {
    let big = |label: &str, bytes: Vec<u8>| {
        Some(Case {
            label: label.to_string(),
            path_ext: "npz",
            bytes,
            read_all: true,
        })
    };
    let nested = |label: &str, open: &str, close: &str, depth: usize| {
        Some(case(
            format!("{label} (depth {depth})"),
            "npz",
            npz_with_extra(format!(
                "'x': {}{}, ",
                open.repeat(depth),
                close.repeat(depth)
            )),
        ))
    };
    match i {
        // 2^50 bytes claimed by a deflated member's zip64 sizes and its
        // shape; its data is 16 bytes.
        0 => big(
            "npz member claiming 2^50 bytes (C order)",
            claimed_npz("<f8", false, &[1 << 47], 1 << 50),
        ),
        1 => big(
            "npz member claiming 2^50 bytes (Fortran order)",
            claimed_npz("<f8", true, &[1 << 24, 1 << 23], 1 << 50),
        ),
        // Nested Python literals in an npy header: 26 '[', 16 '{', 22 '{1: '.
        2 => nested("npy header with nested lists", "[", "]", 26),
        3 => nested("npy header with nested sets", "{", "1}", 16),
        4 => nested("npy header with nested dicts", "{1: ", "}", 22),
        5 => nested("npy header with nested lists", "[", "]", 5_000),
        6 => nested("npy header with nested tuples", "(", ",)", 5_000),
        _ => None,
    }
}

fn case_of(kind: &str, i: u64) -> Option<Case> {
    match kind {
        "safetensors" => safetensors_case(i),
        "npz" => npz_case(i),
        "hazards" => hazard_case(i),
        _ => panic!("unknown corpus {kind}"),
    }
}

// ---------------------------------------------------------------------------
// Running cases: in a child process (this test binary, running `fuzz_child`),
// so that an abort, a stack overflow or a hang is reported with its case and
// the remaining cases still run.

/// A case running longer than this is stopped and reported as a hang.
const HANG: Duration = Duration::from_secs(5);

/// A random corpus stops after this many hangs and crashes.
const MAX_DEATHS: usize = 4;

/// What one case did, as the child reports it.
#[derive(Default)]
struct Outcome {
    opened: u64,
    read_ok: u64,
    read_err: u64,
    skipped: u64,
    problems: Vec<String>,
}

thread_local! {
    static PANIC_AT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Writes `c` to `path`, opens it and reads every tensor it claims (below
/// `READ_LIMIT` unless `c.read_all`).
fn run_one(path: &Path, c: &Case) -> Outcome {
    std::fs::write(path, &c.bytes).unwrap();
    let mut o = Outcome::default();
    let result = catch_unwind(AssertUnwindSafe(|| match WeightFile::open(path) {
        Err(e) => {
            if e.to_string().is_empty() {
                o.problems.push("an error without a message".into());
            }
        }
        Ok(file) => {
            o.opened += 1;
            for entry in &file.entries {
                let nbytes = entry.nbytes();
                if nbytes >= READ_LIMIT && !c.read_all {
                    o.skipped += 1;
                    continue;
                }
                match file.read(entry) {
                    Ok(data) if data.len() as u64 != nbytes => o.problems.push(format!(
                        "tensor '{}' {:?} {:?} read as {} bytes, not {nbytes}",
                        entry.name,
                        entry.dtype,
                        entry.shape,
                        data.len()
                    )),
                    Ok(_) => o.read_ok += 1,
                    Err(e) => {
                        o.read_err += 1;
                        if e.to_string().is_empty() {
                            o.problems.push("a read error without a message".into());
                        }
                    }
                }
            }
        }
    }));
    if let Err(panic) = result {
        let msg = panic_message(&*panic);
        let at = PANIC_AT.with(|p| p.borrow().clone());
        o.problems.push(format!("panicked at {at}: {msg}"));
    }
    o
}

/// One line of the child's log, without newlines.
fn one_line(s: &str) -> String {
    s.replace('\n', " | ")
}

/// Runs the corpus named by `AGC_FUZZ_KIND` from case `AGC_FUZZ_FROM`,
/// logging each case to `AGC_FUZZ_LOG`; a no-op when not started by
/// `fuzz` below.
#[test]
fn fuzz_child() {
    let (Ok(kind), Ok(from), Ok(log)) = (
        std::env::var("AGC_FUZZ_KIND"),
        std::env::var("AGC_FUZZ_FROM"),
        std::env::var("AGC_FUZZ_LOG"),
    ) else {
        return;
    };
    let from: u64 = from.parse().unwrap();
    let mut log = std::fs::OpenOptions::new().append(true).open(log).unwrap();
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        // The innermost frames of the readers and their dependencies.
        let trace = std::backtrace::Backtrace::force_capture().to_string();
        let frames: Vec<&str> = trace
            .lines()
            .map(str::trim)
            .filter(|l| {
                [
                    "agc_weights::",
                    "npyz::",
                    "safetensors::",
                    "zip::",
                    "py_literal::",
                ]
                .iter()
                .any(|k| l.contains(k))
            })
            .take(3)
            .collect();
        PANIC_AT.with(|p| *p.borrow_mut() = format!("{at} (in {})", frames.join(" <- ")));
    }));
    let dir = tempfile::tempdir().unwrap();
    let current = std::sync::Arc::new(std::sync::Mutex::new(None::<(u64, Instant)>));
    {
        let current = current.clone();
        let mut log = log.try_clone().unwrap();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(20));
            if let Some((i, t)) = *current.lock().unwrap() {
                if t.elapsed() > HANG {
                    writeln!(log, "hang {i}").unwrap();
                    std::process::exit(3);
                }
            }
        });
    }
    let mut i = from;
    while let Some(c) = case_of(&kind, i) {
        let path = dir.path().join(format!("w.{}", c.path_ext));
        writeln!(log, "start {i} {}", one_line(&c.label)).unwrap();
        *current.lock().unwrap() = Some((i, Instant::now()));
        let start = Instant::now();
        let o = run_one(&path, &c);
        let micros = start.elapsed().as_micros();
        *current.lock().unwrap() = None;
        let problems: Vec<String> = o
            .problems
            .iter()
            .map(|p| format!("{}: {p}", c.label))
            .collect();
        writeln!(
            log,
            "done {i} {micros} {} {} {} {} {}",
            o.opened,
            o.read_ok,
            o.read_err,
            o.skipped,
            one_line(&problems.join("; "))
        )
        .unwrap();
        i += 1;
    }
    writeln!(log, "end").unwrap();
}

/// Runs corpus `kind` in child processes, restarting after a crash or a
/// hang; panics with every failure at the end.
fn fuzz(kind: &str, max_deaths: usize) {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("log");
    let (mut cases, mut opened, mut read_ok, mut read_err, mut skipped) = (0, 0, 0, 0, 0);
    let mut slowest = (Duration::ZERO, String::new());
    let mut failures = Vec::new();
    let mut deaths = 0;
    let mut from = 0u64;
    'runs: loop {
        std::fs::write(&log_path, "").unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "fuzz_child",
                "--exact",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env("AGC_FUZZ_KIND", kind)
            .env("AGC_FUZZ_FROM", from.to_string())
            .env("AGC_FUZZ_LOG", &log_path)
            .output()
            .unwrap();
        let log = std::fs::read_to_string(&log_path).unwrap();
        let mut last_start = None;
        for line in log.lines() {
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            match word {
                "start" => last_start = Some(rest.to_string()),
                "done" => {
                    let f: Vec<&str> = rest.splitn(7, ' ').collect();
                    let label = last_start.take().unwrap_or_default();
                    let took = Duration::from_micros(f[1].parse().unwrap());
                    cases += 1;
                    opened += f[2].parse::<u64>().unwrap();
                    read_ok += f[3].parse::<u64>().unwrap();
                    read_err += f[4].parse::<u64>().unwrap();
                    skipped += f[5].parse::<u64>().unwrap();
                    if took > slowest.0 {
                        slowest = (took, label.clone());
                    }
                    if took > SLOW {
                        failures.push(format!("case {label}: took {took:?}"));
                    }
                    if !f[6].is_empty() {
                        failures.push(format!("case {}", f[6]));
                    }
                    from = f[0].parse::<u64>().unwrap() + 1;
                }
                "hang" => {
                    cases += 1;
                    failures.push(format!(
                        "case {}: no result after {HANG:?} (a hang)",
                        last_start.take().unwrap_or_default()
                    ));
                    from = rest.parse::<u64>().unwrap() + 1;
                    deaths += 1;
                }
                "end" => break 'runs,
                _ => panic!("unexpected line in the fuzz log: {line}"),
            }
        }
        if let Some(label) = last_start {
            // The child died inside a case.
            cases += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            let said: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(2)
                .collect();
            failures.push(format!(
                "case {label}: the process died ({}): {}",
                out.status,
                said.join(" | ")
            ));
            let i: u64 = label.split(' ').next().unwrap().parse().unwrap();
            from = i + 1;
            deaths += 1;
        } else if !log.lines().any(|l| l.starts_with("hang")) {
            panic!(
                "the fuzz child stopped outside a case ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        if deaths >= max_deaths {
            failures.push(format!(
                "stopped after {deaths} crashes or hangs; cases from {from} on were not run"
            ));
            break;
        }
    }
    eprintln!(
        "{kind}: {cases} cases in {:?} (slowest {:?}: {}): {opened} opened, {read_ok} reads ok, \
         {read_err} read errors, {skipped} tensors over {READ_LIMIT} bytes not read",
        started.elapsed(),
        slowest.0,
        slowest.1,
    );
    assert!(
        failures.is_empty(),
        "{} {kind} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn seeds_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.safetensors");
    let seed = safetensors_seed();
    std::fs::write(&path, seed.bytes(None)).unwrap();
    let file = WeightFile::open(&path).unwrap();
    assert_eq!(file.entries.len(), 7);
    let all: Vec<u8> = file
        .entries
        .iter()
        .flat_map(|e| file.read(e).unwrap())
        .collect();
    assert_eq!(all, seed.data);

    let path = dir.path().join("w.npz");
    let members = npy_seed();
    for (deflate, zip64) in [(false, false), (true, false), (false, true), (true, true)] {
        std::fs::write(&path, zip_of(&members, deflate, zip64)).unwrap();
        let file = WeightFile::open(&path).unwrap();
        assert_eq!(file.entries.len(), members.len());
        for e in &file.entries {
            assert_eq!(file.read(e).unwrap().len() as u64, e.nbytes(), "{}", e.name);
        }
    }
}

#[test]
fn mutated_safetensors_files_are_errors_or_read_cleanly() {
    fuzz("safetensors", MAX_DEATHS);
}

#[test]
fn mutated_npz_files_are_errors_or_read_cleanly() {
    fuzz("npz", MAX_DEATHS);
}

/// Files found to abort or hang the reader: each must be an error, quickly.
#[test]
fn known_hazards_are_errors() {
    fuzz("hazards", usize::MAX);
}
