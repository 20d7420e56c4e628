//! Fuzzing the run-time safetensors reader (`safetensors::header_len`,
//! `safetensors::parse_header`) and its JSON parser (`json::parse`) with
//! deterministic mutants of valid files and headers: bit flips, interesting
//! bytes, truncations, inserted/deleted/duplicated ranges, edited header
//! length words, JSON numbers, shapes, offsets and dtypes, deep nesting,
//! long strings, bad escapes and surrogates, odd numbers.
//!
//! Every case must return without panicking, quickly; an accepted file only
//! describes tensors whose data lies inside the file (after the header),
//! with as many bytes as the shape needs for a known dtype. Failures are
//! collected with the case's index (every case is a function of fixed
//! seeds) and reported together.

use crate::json::{self, Json};
use crate::safetensors::{header, header_len, parse_header, MAX_HEADER};
use agc_mutate::{
    mutate_bytes, number_spans, panic_message, spans_after, Interesting, Rng, DTYPES, JSON_NUMBERS,
    SEED_TENSORS, SHAPES, STRUCTURAL,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// Random mutants per corpus.
const CASES: u64 = 10_000;

/// A single case slower than this is reported.
const SLOW: Duration = Duration::from_secs(1);

// ---------------------------------------------------------------------------
// Mutations.

/// What `mutate_bytes` writes: JSON punctuation, length words around
/// `MAX_HEADER` and the integer limits.
const INTERESTING: Interesting = Interesting {
    bytes: &[
        0x00, 0xff, 0x7f, 0x80, b'"', b'{', b'9', b'}', b'[', b']', b'\\', b'-', b',', b':',
    ],
    u16s: &[],
    u32s: &[],
    u64s: &INTERESTING_U64,
};

const INTERESTING_U64: [u64; 12] = [
    0,
    1,
    7,
    8,
    u32::MAX as u64,
    1 << 32,
    MAX_HEADER,
    MAX_HEADER + 1,
    1 << 50,
    i64::MAX as u64,
    1 << 63,
    u64::MAX,
];

/// One JSON-aware mutation of `text`; returns its name.
fn mutate_json(rng: &mut Rng, text: &mut Vec<u8>) -> &'static str {
    let replace = |text: &mut Vec<u8>, spans: Vec<(usize, usize)>, rng: &mut Rng, with: &str| {
        if !spans.is_empty() {
            let (a, b) = rng.pick(&spans);
            text.splice(a..b, with.bytes());
        }
    };
    match rng.below(7) {
        0 => {
            let with = rng.pick(&JSON_NUMBERS);
            replace(text, number_spans(text), rng, with);
            "JSON number"
        }
        1 => {
            let with = rng.pick(&SHAPES);
            replace(text, spans_after(text, "\"shape\":[", b']'), rng, with);
            "shape"
        }
        2 => {
            let (a, b) = (rng.pick(&JSON_NUMBERS), rng.pick(&JSON_NUMBERS));
            let with = match rng.below(4) {
                0 => format!("{a},{b}"),
                1 => format!("0,{b}"),
                2 => a.to_string(),
                _ => format!("{a},{b},0"),
            };
            replace(
                text,
                spans_after(text, "\"data_offsets\":[", b']'),
                rng,
                &with,
            );
            "data_offsets"
        }
        3 => {
            let with = rng.pick(&DTYPES);
            replace(text, spans_after(text, "\"dtype\":\"", b'"'), rng, with);
            "dtype"
        }
        4 => {
            let at = rng.below(text.len() + 1);
            let s = rng.pick(&STRUCTURAL);
            text.splice(at..at, s.bytes());
            "JSON structure"
        }
        5 => {
            let n = 1 + rng.below(100_000);
            *text = match rng.below(6) {
                0 => format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes(),
                1 => "{\"a\":".repeat(n).into_bytes(),
                2 => format!("{{\"{}\":1}}", "x".repeat(n)).into_bytes(),
                3 => format!("[\"{}\"]", "\\ud800".repeat(n / 6 + 1)).into_bytes(),
                4 => format!("{{\"k\":\"{}\"}}", "\\u00e9".repeat(n / 6 + 1)).into_bytes(),
                _ => format!("[{}0]", "0,".repeat(n / 2)).into_bytes(),
            };
            "long or deep text"
        }
        _ => mutate_bytes(rng, text, &INTERESTING),
    }
}

// ---------------------------------------------------------------------------
// Seeds.

/// A valid safetensors file (header, then data) from `encode`'s writer:
/// every dtype, a 0-d and an empty tensor.
fn written_seed() -> Vec<u8> {
    let shapes: Vec<Vec<i64>> = SEED_TENSORS
        .iter()
        .map(|t| t.2.iter().map(|&d| d as i64).collect())
        .collect();
    let mut tensors: Vec<(&str, &str, &[i64], u64)> = SEED_TENSORS
        .iter()
        .zip(&shapes)
        .map(|(t, shape)| (t.0, t.1, &shape[..], t.3))
        .collect();
    // A name the writer must escape.
    tensors[6].0 = "e\"\n";
    let mut out = header(&tensors);
    out.extend((0..77u8).map(|i| i.wrapping_mul(7)));
    out
}

/// A valid safetensors file written by hand: a `__metadata__` object,
/// members out of data order, escapes, an unknown dtype, whitespace.
fn hand_seed() -> Vec<u8> {
    let text = concat!(
        "{ \"__metadata__\" : {\"format\":\"pt\",\"n\":\"a\\\"b\\\\c \\u00e9 \\ud83d\\ude00\"},\n",
        "  \"b\\u0041\": {\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[8,24]},\n",
        "  \"a\": {\"data_offsets\":[0,8], \"shape\":[2, 2], \"dtype\":\"F16\"},\n",
        "  \"z\": {\"dtype\":\"BOOL\",\"shape\":[],\"data_offsets\":[24,25]},\n",
        "  \"e\": {\"dtype\":\"F64\",\"shape\":[3,0],\"data_offsets\":[25,25]}\n",
        "}   "
    );
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(text.as_bytes());
    out.extend(0..25u8);
    out
}

// ---------------------------------------------------------------------------
// Checks.

/// Bytes per element of the dtypes whose size the reader checks.
fn element_bytes(code: &str) -> Option<u64> {
    Some(match code {
        "BOOL" | "U8" | "I8" | "F8_E5M2" | "F8_E4M3" => 1,
        "F16" | "BF16" | "I16" | "U16" => 2,
        "F32" | "I32" | "U32" => 4,
        "F64" | "I64" | "U64" => 8,
        _ => return None,
    })
}

thread_local! {
    /// Files `check_file` saw accepted on this thread.
    static ACCEPTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Reads `bytes` as the runtime does (context creation, `_restore`); the
/// problems found in what was accepted.
fn check_file(bytes: &[u8]) -> Vec<String> {
    let mut problems = Vec::new();
    let len = bytes.len() as u64;
    let n = match header_len(bytes, len) {
        Err(e) => {
            if e.is_empty() {
                problems.push("header_len: an error without a message".into());
            }
            return problems;
        }
        Ok(n) => n,
    };
    if n > MAX_HEADER || n + 8 > len {
        problems.push(format!("header_len accepted {n} for a file of {len} bytes"));
        return problems;
    }
    let data_start = 8 + n;
    match parse_header(&bytes[8..8 + n as usize], len) {
        Err(e) => {
            if e.is_empty() {
                problems.push("parse_header: an error without a message".into());
            }
        }
        Ok(tensors) => {
            ACCEPTED.with(|a| a.set(a.get() + 1));
            for t in tensors {
                let end = t.offset.checked_add(t.nbytes);
                if t.offset < data_start || end.is_none_or(|e| e > len) {
                    problems.push(format!(
                        "tensor {:?} accepted with data at {}..{:?}, outside {data_start}..{len}",
                        t.name, t.offset, end
                    ));
                    continue;
                }
                // As the runtime slices it.
                let data = &bytes[t.offset as usize..][..t.nbytes as usize];
                let _ = data;
                if let Some(elem) = element_bytes(&t.dtype) {
                    let want = t.shape.iter().try_fold(elem, |a, &d| a.checked_mul(d));
                    if want != Some(t.nbytes) {
                        problems.push(format!(
                            "tensor {:?} {} {:?} accepted with {} bytes",
                            t.name, t.dtype, t.shape, t.nbytes
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// Runs `f` on case `label`, recording a panic, its problems or slowness.
fn run(
    failures: &mut Vec<String>,
    slowest: &mut Duration,
    label: &str,
    f: impl FnOnce() -> Vec<String>,
) {
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(f));
    let took = start.elapsed();
    *slowest = (*slowest).max(took);
    if took > SLOW {
        failures.push(format!("{label}: took {took:?}"));
    }
    match result {
        Ok(problems) => failures.extend(problems.into_iter().map(|p| format!("{label}: {p}"))),
        Err(panic) => failures.push(format!("{label}: panicked: {}", panic_message(&*panic))),
    }
}

fn report(what: &str, cases: usize, started: Instant, slowest: Duration, failures: &[String]) {
    eprintln!(
        "{what}: {cases} cases in {:?} (slowest {slowest:?})",
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {cases} {what} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Tests.

#[test]
fn seeds_parse() {
    for seed in [written_seed(), hand_seed()] {
        let n = header_len(&seed, seed.len() as u64).unwrap();
        let t = parse_header(&seed[8..8 + n as usize], seed.len() as u64).unwrap();
        assert!(t.len() >= 4);
        assert!(check_file(&seed).is_empty());
    }
}

#[test]
fn mutated_safetensors_files_are_errors_or_inside_the_file() {
    let started = Instant::now();
    let seeds = [written_seed(), hand_seed()];
    let (mut failures, mut slowest, mut cases) = (Vec::new(), Duration::ZERO, 0);

    // Every truncation of each seed; every interesting header length word.
    for (s, seed) in seeds.iter().enumerate() {
        for cut in 0..seed.len() {
            cases += 1;
            run(
                &mut failures,
                &mut slowest,
                &format!("seed {s} truncated to {cut}"),
                || check_file(&seed[..cut]),
            );
        }
        let n = u64::from_le_bytes(seed[..8].try_into().unwrap());
        let len = seed.len() as u64;
        let mut words = vec![
            n - 1,
            n + 1,
            len - 8,
            len - 7,
            len,
            u64::MAX - 7,
            u64::MAX - 6,
        ];
        words.extend_from_slice(&INTERESTING_U64);
        for w in words {
            let mut bytes = seed.clone();
            bytes[..8].copy_from_slice(&w.to_le_bytes());
            cases += 1;
            run(
                &mut failures,
                &mut slowest,
                &format!("seed {s} length word {w}"),
                || check_file(&bytes),
            );
        }
    }

    // Random stacks of mutations of the header text (keeping the length
    // word right, mostly) and of the whole file.
    for k in 0..CASES {
        let mut rng = Rng::new(k);
        let seed = &seeds[rng.below(2)];
        let n = u64::from_le_bytes(seed[..8].try_into().unwrap()) as usize;
        let mut text = seed[8..8 + n].to_vec();
        let mut data = seed[8 + n..].to_vec();
        let mut names = Vec::new();
        for _ in 0..1 + rng.below(3) {
            names.push(mutate_json(&mut rng, &mut text));
        }
        if rng.chance(1, 4) {
            let extra = rng.below(64);
            data.extend(std::iter::repeat_n(0x33, extra));
            names.push("longer data");
        }
        let word = if rng.chance(7, 8) {
            text.len() as u64
        } else {
            (text.len() as u64)
                .wrapping_add(rng.next_u64() % 64)
                .wrapping_sub(32)
        };
        let mut bytes = word.to_le_bytes().to_vec();
        bytes.extend_from_slice(&text);
        bytes.extend_from_slice(&data);
        if rng.chance(1, 3) {
            names.push(mutate_bytes(&mut rng, &mut bytes, &INTERESTING));
        }
        cases += 1;
        run(
            &mut failures,
            &mut slowest,
            &format!("random case {k} ({})", names.join(", ")),
            || check_file(&bytes),
        );
    }
    eprintln!("safetensors file: {} accepted", ACCEPTED.with(|a| a.get()));
    report("safetensors file", cases, started, slowest, &failures);
}

/// What `parse_header` must answer for a header of tensors `(dtype, shape,
/// [start, end])` in a file of `file_len` bytes: accepted exactly when
/// every tensor's data ends inside the file and, for a known dtype, has
/// the bytes its shape needs.
fn expected(tensors: &[(&str, Vec<u64>, u64, u64)], header_len: u64, file_len: u64) -> bool {
    tensors.iter().all(|(dtype, shape, s, e)| {
        let inside = s <= e
            && (8 + header_len)
                .checked_add(*e)
                .is_some_and(|end| end <= file_len);
        inside
            && element_bytes(dtype).is_none_or(|elem| {
                shape.iter().try_fold(elem, |a, &d| a.checked_mul(d)) == Some(e - s)
            })
    })
}

#[test]
fn headers_at_the_boundaries_are_judged_exactly() {
    let started = Instant::now();
    let (mut failures, mut slowest, mut accepted) = (Vec::new(), Duration::ZERO, 0);
    let dims = [
        0u64,
        1,
        2,
        3,
        7,
        1 << 31,
        1 << 32,
        1 << 61,
        1 << 62,
        1 << 63,
        u64::MAX,
    ];
    for k in 0..CASES {
        let mut rng = Rng::new(k ^ 0xb0);
        let mut tensors = Vec::new();
        let mut data_len = rng.below(200) as u64;
        for _ in 0..1 + rng.below(3) {
            let dtype = rng.pick(&["F32", "F64", "I32", "I64", "BOOL", "F16", "U8", "X9"]);
            let shape: Vec<u64> = (0..rng.below(4))
                .map(|_| {
                    if rng.chance(1, 2) {
                        rng.pick(&dims)
                    } else {
                        rng.below(5) as u64
                    }
                })
                .collect();
            let size = element_bytes(dtype)
                .and_then(|e| shape.iter().try_fold(e, |a, &d| a.checked_mul(d)))
                .unwrap_or(rng.next_u64() % 16);
            let s = match rng.below(4) {
                0 => 0,
                1 => rng.below(data_len as usize + 1) as u64,
                2 => rng.pick(&[u64::MAX, 1 << 63, data_len, data_len + 1]),
                _ => rng.next_u64() % 64,
            };
            let e = match rng.below(5) {
                0 => s.wrapping_add(size),
                1 => s.wrapping_add(size).wrapping_add(1),
                2 => s.wrapping_add(size).wrapping_sub(1),
                3 => rng.pick(&[u64::MAX, data_len, data_len + 1, 0]),
                _ => s.wrapping_add(size),
            };
            if rng.chance(1, 2) && e < 1 << 20 {
                data_len = data_len.max(e + rng.pick(&[0, 0, 1]));
            }
            tensors.push((dtype, shape, s, e));
        }
        let mut text = String::from("{");
        if rng.chance(1, 3) {
            text.push_str("\"__metadata__\":{\"x\":\"y\"},");
        }
        let members: Vec<String> = tensors
            .iter()
            .enumerate()
            .map(|(i, (dtype, shape, s, e))| {
                let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
                format!(
                    "\"t{i}\":{{\"dtype\":\"{dtype}\",\"shape\":[{}],\"data_offsets\":[{s},{e}]}}",
                    dims.join(",")
                )
            })
            .collect();
        text.push_str(&members.join(","));
        text.push('}');
        let file_len = 8 + text.len() as u64 + data_len;
        let want = expected(&tensors, text.len() as u64, file_len);
        accepted += usize::from(want);
        run(
            &mut failures,
            &mut slowest,
            &format!("boundary case {k}: {text} in {file_len} bytes"),
            || {
                let got = parse_header(text.as_bytes(), file_len);
                match (&got, want) {
                    (Ok(_), false) => vec!["accepted; expected an error".into()],
                    (Err(e), true) => vec![format!("refused ({e}); expected it accepted")],
                    _ => Vec::new(),
                }
            },
        );
    }
    eprintln!("boundary header: {accepted} of {CASES} to be accepted");
    report(
        "boundary header",
        CASES as usize,
        started,
        slowest,
        &failures,
    );
}

/// Mutated JSON texts: `json::parse` returns, quickly, without panicking.
#[test]
fn mutated_json_is_parsed_or_refused_without_panicking() {
    let started = Instant::now();
    let (mut failures, mut slowest) = (Vec::new(), Duration::ZERO);
    let seeds: Vec<Vec<u8>> = [written_seed(), hand_seed()]
        .iter()
        .map(|s| {
            let n = u64::from_le_bytes(s[..8].try_into().unwrap()) as usize;
            s[8..8 + n].to_vec()
        })
        .chain([
            br#"[1, -0, 00012, 1e999, -1.5e-3, true, false, null, "\u00e9\ud83d\ude00", {"": []}]"#
                .to_vec(),
            br#"{"a": {"b": {"c": [[[[[[[[[[[[1]]]]]]]]]]]]}}}"#.to_vec(),
        ])
        .collect();
    for k in 0..CASES {
        let mut rng = Rng::new(k ^ 0x15);
        let mut text = seeds[rng.below(seeds.len())].clone();
        let mut names = Vec::new();
        for _ in 0..1 + rng.below(3) {
            names.push(mutate_json(&mut rng, &mut text));
        }
        run(
            &mut failures,
            &mut slowest,
            &format!("JSON case {k} ({})", names.join(", ")),
            || {
                let _ = json::parse(&text);
                Vec::new()
            },
        );
    }
    // Deep nesting far past the limit, and just around it.
    for (label, text) in [
        ("[ x 1e6", "[".repeat(1_000_000)),
        ("{\"a\": x 1e5", "{\"a\":".repeat(100_000)),
        ("17 [", format!("{}{}", "[".repeat(17), "]".repeat(17))),
        ("18 [", format!("{}{}", "[".repeat(18), "]".repeat(18))),
    ] {
        run(&mut failures, &mut slowest, label, || {
            let r = json::parse(text.as_bytes());
            match (label, r.is_ok()) {
                ("17 [", false) => vec!["17 nested arrays refused".into()],
                ("17 [", true) => Vec::new(),
                (_, true) => vec!["accepted".into()],
                _ => Vec::new(),
            }
        });
    }
    report("JSON", CASES as usize + 4, started, slowest, &failures);
}

/// A random JSON value, at most `depth` more levels deep.
fn random_json(rng: &mut Rng, depth: usize) -> Json {
    let strings = [
        "",
        "a",
        "é",
        "😀",
        "\"\\/\u{8}\u{c}\n\r\t",
        "\u{1}\u{1f}",
        "\u{ffff}",
        "__metadata__",
    ];
    match rng.below(if depth == 0 { 3 } else { 5 }) {
        0 => Json::Str((0..rng.below(3)).map(|_| rng.pick(&strings)).collect()),
        1 => Json::Int(match rng.below(4) {
            0 => rng.next_u64() as i64 as i128,
            1 => rng.below(100) as i128,
            2 => rng.pick(&[i128::MAX, i128::MIN, u64::MAX as i128, -1, 0]),
            _ => (rng.next_u64() as i128) << 40,
        }),
        2 => Json::Other,
        3 => Json::Array(
            (0..rng.below(4))
                .map(|_| random_json(rng, depth - 1))
                .collect(),
        ),
        _ => Json::Object(
            (0..rng.below(4))
                .map(|i| {
                    (
                        format!("k{i}{}", rng.pick(&strings)),
                        random_json(rng, depth - 1),
                    )
                })
                .collect(),
        ),
    }
}

/// `s` as a JSON string, each character escaped or not at random.
fn write_string(rng: &mut Rng, s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        let escape = rng.chance(1, 3) || c == '"' || c == '\\' || (c as u32) < 0x20;
        if !escape {
            out.push(c);
            continue;
        }
        match (c, rng.below(2)) {
            ('"', 0) => out.push_str("\\\""),
            ('\\', 0) => out.push_str("\\\\"),
            ('/', 0) => out.push_str("\\/"),
            ('\n', 0) => out.push_str("\\n"),
            ('\t', 0) => out.push_str("\\t"),
            ('\r', 0) => out.push_str("\\r"),
            ('\u{8}', 0) => out.push_str("\\b"),
            ('\u{c}', 0) => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    if rng.chance(1, 2) {
                        out.push_str(&format!("\\u{u:04x}"));
                    } else {
                        out.push_str(&format!("\\u{u:04X}"));
                    }
                }
            }
        }
    }
    out.push('"');
}

/// `v` as JSON text with random whitespace; `Other` as one of its spellings.
fn write_json(rng: &mut Rng, v: &Json, out: &mut String) {
    let ws = |rng: &mut Rng, out: &mut String| {
        for _ in 0..rng.below(3) {
            out.push(rng.pick(&[' ', '\n', '\t', '\r']));
        }
    };
    ws(rng, out);
    match v {
        Json::Str(s) => write_string(rng, s, out),
        Json::Int(i) => out.push_str(&i.to_string()),
        Json::Other => out.push_str(rng.pick(&[
            "true", "false", "null", "1.5", "-0.0", "1e999", "2E-3", "1e2",
        ])),
        Json::Array(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_json(rng, item, out);
            }
            ws(rng, out);
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (k, (key, item)) in members.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                ws(rng, out);
                write_string(rng, key, out);
                ws(rng, out);
                out.push(':');
                write_json(rng, item, out);
            }
            ws(rng, out);
            out.push('}');
        }
    }
    ws(rng, out);
}

/// Valid JSON (nested up to 12 levels) parses back to the value written.
#[test]
fn written_json_parses_back() {
    let started = Instant::now();
    let (mut failures, mut slowest) = (Vec::new(), Duration::ZERO);
    for k in 0..3_000u64 {
        let mut rng = Rng::new(k ^ 0x150);
        let depth = rng.below(13);
        let v = random_json(&mut rng, depth);
        let mut text = String::new();
        write_json(&mut rng, &v, &mut text);
        run(
            &mut failures,
            &mut slowest,
            &format!("written JSON {k}: {text}"),
            || match json::parse(text.as_bytes()) {
                Ok(got) if got == v => Vec::new(),
                Ok(got) => vec![format!("parsed as {got:?}, not {v:?}")],
                Err(e) => vec![format!("refused: {e}")],
            },
        );
    }
    report("written JSON", 3_000, started, slowest, &failures);
}
