//! Test support shared by the agc fuzz tests (the runtime's safetensors
//! reader, the compile-time weight-file readers): a small deterministic
//! PRNG, a generic byte mutator parameterised by tables of interesting
//! values, finders of the JSON spans worth replacing, tables of hostile
//! values for safetensors headers (numbers, shapes, dtypes, structural
//! fragments) and their seed tensors, and the message of a caught panic.
//!
//! Everything here is a function of its inputs and the PRNG's seed, so a
//! failing case is reproduced by its index.

use std::any::Any;

/// xorshift64*: small, deterministic, good enough to pick mutations.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03 | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// A random element of `xs`, which must not be empty.
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }

    /// `true` with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }
}

/// The values `mutate_bytes` writes besides random ones: bytes, and
/// little-endian words of 2, 4 and 8 bytes. An empty word table leaves out
/// the mutation writing words of its width.
#[derive(Clone, Copy, Debug)]
pub struct Interesting {
    /// Single bytes (e.g. JSON punctuation); must not be empty.
    pub bytes: &'static [u8],
    /// 16-bit words.
    pub u16s: &'static [u16],
    /// 32-bit words.
    pub u32s: &'static [u32],
    /// 64-bit words.
    pub u64s: &'static [u64],
}

/// The mutations of `mutate_bytes`.
#[derive(Clone, Copy)]
enum Kind {
    BitFlips,
    Byte,
    Truncation,
    Insertion,
    Deletion,
    Duplication,
    U16,
    U32,
    U64,
    RandomBytes,
    Append,
}

/// One random mutation of `data`, in place, among bit flips, an
/// interesting byte, a truncation, an inserted, deleted or duplicated
/// range, an interesting 16, 32 or 64-bit word (where `interesting` has
/// some), random bytes and an appended byte (also what a mutation that
/// does not fit `data` becomes); returns its name.
pub fn mutate_bytes(rng: &mut Rng, data: &mut Vec<u8>, interesting: &Interesting) -> &'static str {
    use Kind::*;
    let mut kinds = vec![BitFlips, Byte, Truncation, Insertion, Deletion, Duplication];
    for (kind, present) in [
        (U16, !interesting.u16s.is_empty()),
        (U32, !interesting.u32s.is_empty()),
        (U64, !interesting.u64s.is_empty()),
    ] {
        if present {
            kinds.push(kind);
        }
    }
    kinds.extend([RandomBytes, Append]);
    let len = data.len();
    match rng.pick(&kinds) {
        BitFlips => {
            if len == 0 {
                data.push(rng.next_u64() as u8);
            } else {
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(len);
                    data[i] ^= 1 << rng.below(8);
                }
            }
            "bit flips"
        }
        Byte if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.pick(interesting.bytes);
            "interesting byte"
        }
        Truncation => {
            data.truncate(rng.below(len + 1));
            "truncation"
        }
        Insertion => {
            let at = rng.below(len + 1);
            let most = if rng.chance(1, 8) { 4096 } else { 16 };
            let n = 1 + rng.below(most);
            let fill: Vec<u8> = if rng.chance(1, 2) {
                (0..n).map(|_| rng.next_u64() as u8).collect()
            } else {
                vec![rng.pick(interesting.bytes); n]
            };
            data.splice(at..at, fill);
            "insertion"
        }
        Deletion if len > 0 => {
            let at = rng.below(len);
            let n = 1 + rng.below((len - at).min(64));
            data.drain(at..at + n);
            "deletion"
        }
        Duplication if len > 0 => {
            let at = rng.below(len);
            let n = 1 + rng.below((len - at).min(256));
            let chunk = data[at..at + n].to_vec();
            let to = rng.below(len + 1);
            data.splice(to..to, chunk);
            "duplicated chunk"
        }
        U16 if len >= 2 => {
            write_word(rng, data, interesting.u16s, u16::to_le_bytes);
            "interesting u16"
        }
        U32 if len >= 4 => {
            write_word(rng, data, interesting.u32s, u32::to_le_bytes);
            "interesting u32"
        }
        U64 if len >= 8 => {
            write_word(rng, data, interesting.u64s, u64::to_le_bytes);
            "interesting u64"
        }
        RandomBytes if len > 0 => {
            let i = rng.below(len);
            let n = 1 + rng.below((len - i).min(32));
            for b in &mut data[i..i + n] {
                *b = rng.next_u64() as u8;
            }
            "random bytes"
        }
        _ => {
            data.push(rng.pick(interesting.bytes));
            "appended byte"
        }
    }
}

/// Writes a random word of `table` (as bytes by `le`) over `data` at a
/// random offset where it fits; `data` is at least `N` bytes long.
fn write_word<T: Copy, const N: usize>(
    rng: &mut Rng,
    data: &mut [u8],
    table: &[T],
    le: fn(T) -> [u8; N],
) {
    let i = rng.below(data.len() - N + 1);
    let word = le(rng.pick(table));
    data[i..i + N].copy_from_slice(&word);
}

/// Spans (`start..end`) of the JSON number tokens of `text` outside
/// strings: a run of `-+.eE` and digits starting with `-` or a digit.
pub fn number_spans(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < text.len() {
        let c = text[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
        } else if c == b'"' {
            in_string = true;
            i += 1;
        } else if c == b'-' || c.is_ascii_digit() {
            let start = i;
            while i < text.len()
                && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
            {
                i += 1;
            }
            spans.push((start, i));
        } else {
            i += 1;
        }
    }
    spans
}

/// Spans of what follows each occurrence of `open` in `text` up to the
/// next `close` byte, e.g. the contents of every `"shape":[...]` array with
/// `open` `"shape":[` and `close` `]`; none after an `open` left unclosed.
pub fn spans_after(text: &[u8], open: &str, close: u8) -> Vec<(usize, usize)> {
    let pat = open.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while let Some(p) = text[i..].windows(pat.len()).position(|w| w == pat) {
        let start = i + p + pat.len();
        match text[start..].iter().position(|&c| c == close) {
            Some(q) => spans.push((start, start + q)),
            None => break,
        }
        i = start;
    }
    spans
}

/// Hostile JSON numbers: around the limits of 64 and 128-bit integers, past
/// them, negative zero, leading zeros, exponents out of range, and
/// malformed ones (empty, a lone sign, hex, `NaN`, a leading `+`).
pub const JSON_NUMBERS: [&str; 28] = [
    "18446744073709551615",
    "18446744073709551616",
    "18446744073709551614",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "170141183460469231731687303715884105727",
    "170141183460469231731687303715884105728",
    "-1",
    "-0",
    "0",
    "00012",
    "1e999",
    "-1e999",
    "1.5",
    "1e2",
    "4294967296",
    "99999999999999999999999999999999999999999999999999",
    "-",
    "",
    "1-",
    "0x10",
    "NaN",
    "1E+2",
    "+1",
    "1.0",
    "4294967295",
    "340282366920938463463374607431768211456",
];

/// Hostile contents of a safetensors `"shape":[...]` array: products that
/// overflow 64 bits or wrap to small numbers, a zero beside a huge
/// dimension, negative, fractional, quoted and nested dimensions, many
/// dimensions, and a few valid shapes.
pub const SHAPES: [&str; 16] = [
    "4294967296,4294967296,4294967296",
    "18446744073709551615",
    "0,18446744073709551615,2",
    "18446744073709551615,2,0",
    "4611686018427387904,4",
    "4611686018427387904",
    "2305843009213693952",
    "9223372036854775807,2",
    "-1",
    "",
    "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
    "3,2",
    "6",
    "1.5",
    "[2]",
    "\"2\"",
];

/// safetensors dtype strings: known ones, unknown ones, wrong case, a
/// trailing space, empty and escaped.
pub const DTYPES: [&str; 16] = [
    "F32",
    "F64",
    "I32",
    "I64",
    "BOOL",
    "F16",
    "BF16",
    "U8",
    "I8",
    "U64",
    "F8_E4M3",
    "",
    "f32",
    "F32 ",
    "C64",
    "\\u0046\\u0033\\u0032",
];

/// JSON fragments to insert into a header: deep nesting, lone and
/// reversed surrogates, bad escapes, a NUL, an unterminated string, stray
/// literals and punctuation, a `__metadata__` member (an object and an
/// array) and a valid tensor member.
pub const STRUCTURAL: [&str; 19] = [
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":",
    "\"\\ud800\"",
    "\"\\ud800\\u0041\"",
    "\"\\udc00\\ud800\"",
    "\"\\ud83d\\ude00\"",
    "\"\\u00zz\"",
    "\"\\u+041\"",
    "\"\\x41\"",
    "\"\u{0}\"",
    "\"\\",
    "null",
    "true,",
    ",,",
    "\"__metadata__\":{},",
    "\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    ":",
    "\"__metadata__\":[1,2],",
];

/// Seven tensors `(name, dtype, shape, data bytes)`, their data back to
/// back in this order (77 bytes): F32, F64, I32, I64 and BOOL tensors, a 0-d
/// and an empty one; the seed of the safetensors fuzz tests.
pub const SEED_TENSORS: [(&str, &str, &[u64], u64); 7] = [
    ("w", "F32", &[2, 3], 24),
    ("d", "F64", &[2], 16),
    ("i", "I32", &[3], 12),
    ("l", "I64", &[1, 2], 16),
    ("m", "BOOL", &[5], 5),
    ("s", "F32", &[], 4),
    ("e", "F32", &[0, 3], 0),
];

/// The message of a caught panic (its `String` or `&str` payload; empty
/// for any other payload).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: Interesting = Interesting {
        bytes: b"\"{}",
        u16s: &[0xffff],
        u32s: &[],
        u64s: &[u64::MAX],
    };

    #[test]
    fn the_generator_is_deterministic_and_spread() {
        let (mut a, mut b) = (Rng::new(0), Rng::new(0));
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(Rng::new(1).next_u64(), Rng::new(0).next_u64());
        let mut rng = Rng::new(7);
        let mut seen = [0; 10];
        for _ in 0..10_000 {
            seen[rng.below(10)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
        assert_eq!(rng.below(0), 0);
        assert!((0..100).all(|_| !rng.chance(0, 3) && rng.chance(3, 3)));
    }

    #[test]
    fn every_mutation_kind_happens_and_fits() {
        let mut names = std::collections::BTreeSet::new();
        for k in 0..2_000 {
            let mut rng = Rng::new(k);
            let mut data = vec![0x41; rng.below(12)];
            names.insert(mutate_bytes(&mut rng, &mut data, &TABLES));
        }
        let want = [
            "appended byte",
            "bit flips",
            "deletion",
            "duplicated chunk",
            "insertion",
            "interesting byte",
            "interesting u16",
            "interesting u64",
            "random bytes",
            "truncation",
        ];
        assert_eq!(names.into_iter().collect::<Vec<_>>(), want);
    }

    #[test]
    fn spans_are_found() {
        let text = br#"{"a\"1":{"shape":[2, -3e5],"dtype":"F32"},"b":{"shape":[]}}"#;
        let at = |spans: Vec<(usize, usize)>| -> Vec<String> {
            spans
                .into_iter()
                .map(|(a, b)| String::from_utf8_lossy(&text[a..b]).into_owned())
                .collect()
        };
        assert_eq!(at(number_spans(text)), ["2", "-3e5"]);
        assert_eq!(at(spans_after(text, "\"shape\":[", b']')), ["2, -3e5", ""]);
        assert_eq!(at(spans_after(text, "\"dtype\":\"", b'"')), ["F32"]);
        assert!(spans_after(b"\"shape\":[1", "\"shape\":[", b']').is_empty());
    }

    #[test]
    fn panic_messages_are_read() {
        let s = std::panic::catch_unwind(|| panic!("at {}", 3)).unwrap_err();
        assert_eq!(panic_message(&*s), "at 3");
        let s = std::panic::catch_unwind(|| panic!("plain")).unwrap_err();
        assert_eq!(panic_message(&*s), "plain");
        let s = std::panic::catch_unwind(|| std::panic::panic_any(3)).unwrap_err();
        assert_eq!(panic_message(&*s), "");
    }
}
