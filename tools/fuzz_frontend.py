#!/usr/bin/env python3
"""Mutation fuzzer for agc's front end (parser, checks, staging).

Seeds are the test models (tests/models, tests/grad_models, tests/diagnostics,
tests/state); each mutant is a seed with one to four mutations applied:

  token level   delete, duplicate or swap a token; replace a name, number,
                operator, keyword or string by another one from the seeds (or
                an interesting value: 0, -1, 2**63, 1e400, 10**30, '', ...)
  line level    delete, duplicate, swap or move lines; splice in a line or a
                whole top-level definition from another seed
  indentation   indent or dedent a line or a block, tabs instead of spaces,
                nesting a line in many blocks
  truncation    cut the file at a character or a line
  insertion     printable, unicode and control characters, an invalid UTF-8
                byte, huge literals (10**30, 4,000-digit numbers, long strings),
                deep parentheses and long operator chains (mutants stay < 100 KB)
  syntax tree   (about half the mutations: the mutant still parses, so staging
                runs on it; re-printed by ast.unparse) replace an expression by
                another, wrap one (np.sum(E), E.T, E[0], len(E), E // 0, ...),
                delete, duplicate, swap or splice statements, change constants,
                operators, call arguments and keywords (axis=7, dtype=...),
                annotations (agc.f32[...] dims), decorators and parameters, put
                statements under if/for/while/with/try

Mutants of the seed files are rewritten in OUT/work and deleted once judged
(--keep keeps them); the compiler runs with a cleaned environment (no AGC_LOG,
RUST_BACKTRACE) in its own process group, killed at the timeout.

Each mutant is compiled by `agc check` (conversion and staging: the front end),
then by `agc build` when the check passes (--mode both, the default; --mode
check is ~50x faster and covers the front end alone), under a timeout (--timeout,
20 s) and an address-space limit (--mem-mb).
The verdict:

  ok        exit 0; or exit 1 with a `FILE:LINE:COL: error:` line for the
            mutant's file (LINE within the file)
  finding   exit 2 (internal error), a panic ("panicked", "RUST_BACKTRACE",
            exit 101), a signal or abort (exit 134/137/139, killed), a hang
            (timeout), exit 1 without a location (or a location past the end
            of the file), any other exit code

Findings are deduplicated by (kind, first line of the message, with the
mutant's path and numbers normalised) and written to OUT/findings/<kind>-<hash>/
(the smallest mutant seen: mutant.py, command.txt, stderr.txt, info.json).
Everything is a function of --seed and the mutant's index (and of the seed
files), so `--only I` reproduces mutant I and `--show I` prints it.

  python3 tools/fuzz_frontend.py --seed 1 --count 2000 --jobs 2
  python3 tools/fuzz_frontend.py --seed 1 --show 17
  python3 tools/fuzz_frontend.py --replay tests/fuzz_frontend/corpus/*.py

Prints "N mutants: A ok (B errors with location), F findings (by kind)" and
exits 1 when there are findings. Standard library only, plus the agc binary
(--agc, else $AGC_BIN, else target/release/agc).
"""

import argparse
import ast
import concurrent.futures
import copy
import hashlib
import json
import keyword
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEED_DIRS = ["tests/models", "tests/grad_models", "tests/diagnostics", "tests/state"]
MAX_BYTES = 100_000
PANIC_TEXT = ("panicked", "RUST_BACKTRACE", "stack backtrace")
OK_KINDS = ("ok", "error")

# --------------------------------------------------------------------------- tokens

TOKEN_RE = re.compile(
    r"""
     (?P<comment>\#[^\n]*)
    |(?P<string>(?:[rRbBuUfF]{1,2})?(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))
    |(?P<number>(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?))
    |(?P<name>[^\W\d]\w*)
    |(?P<op>\*\*=?|//=?|>>=?|<<=?|->|:=|\.\.\.|[-+*/%@&|^=<>!]=|[-+*/%@&|^~<>=.,:;()\[\]{}])
    |(?P<ws>\s+)
    |(?P<other>.)
    """,
    re.X,
)

KEYWORDS = set(keyword.kwlist)


def tokens(text):
    """[(kind, start, end)] of the text's tokens (no whitespace, no comments); kind is
    'keyword', 'name', 'number', 'string', 'op' or 'other'. Works on any text."""
    out = []
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        if kind == "name" and m.group() in KEYWORDS:
            kind = "keyword"
        out.append((kind, m.start(), m.end()))
    return out


INTERESTING_NUMBERS = [
    "0", "1", "-1", "2", "3", "0.0", "-0.0", "0.5", "1.5", "-3", "7", "64", "255", "256",
    "1e308", "1e400", "-1e400", "1e-400", "5e-324", "10**30", "2**31", "-2**31 - 1", "2**32",
    "2**63", "2**63 - 1", "-2**63", "-(2**63)", "2**64", "0x7fffffffffffffff",
    "0xffffffffffffffff", "1_000", "10**8", "10**100", "-10**30", "1j", "2.5j", "0b101", "0o17",
    "9" * 40, "True", "False", "None", "()", "[]", "{}", "'B'", "''", "float('nan')",
    "float('inf')", "-float('inf')", "...",
]
HUGE_NUMBERS = ["10**30", "1e400", "9" * 4000, "2**64", "10**100000", "2**2**64", "-(10**30)",
                "1" + "0" * 310 + ".0", "0." + "0" * 400 + "1", "0x" + "f" * 200]
INTERESTING_STRINGS = [
    "''", "'B'", "'T'", "'x'", "'float32'", "'f8'", "'int64'", "'bogus'", "'ij,jk->ik'",
    "'...i->i'", "'\\x00'", "'é'", "'\\N{GREEK SMALL LETTER ALPHA}'", "f'{1}'", "b'x'",
    "'''a\nb'''", "r'\\d'", "'reflect'", "'constant'", "'C'", "'__init__'", "'%d' % 3",
]
UNICODE_CHARS = ["é", "λ", "∑", "\u00a0", "\u200b", "\ufeff", "𝔁", "😀", "\u2028", "\u0301",
                 "ﬁ", "Ⅸ", "٣", "\u202e", "ß", "µ", "\u3000", "Ω", "ℌ", "\U0010ffff", "—", "’"]
CONTROL_CHARS = ["\x00", "\x0c", "\r", "\x1b", "\x7f", "\t", "\x0b", "\r\n", "\x85", "\\",
                 "\\\n"]
# An invalid UTF-8 byte: written through the 'surrogateescape' error handler.
INVALID_BYTES = ["\udcff", "\udcc3", "\udce2\udc82", "\udc80"]
PRINTABLE = "".join(chr(c) for c in range(33, 127)) + " "


class Corpus:
    """The seed files and their tokens by kind (sorted, for determinism)."""

    def __init__(self, paths):
        self.paths = paths
        self.texts = [p.read_text(encoding="utf-8") for p in paths]
        kinds = {"keyword": set(), "name": set(), "number": set(), "string": set(), "op": set()}
        self.defs = []  # top-level def/class blocks (with decorators), as text
        for text in self.texts:
            for kind, start, end in tokens(text):
                if kind in kinds and end - start <= 60:
                    kinds[kind].add(text[start:end])
            self.defs.extend(top_level_defs(text))
        kinds["keyword"] |= {"match", "case", "print", "exec", "type"}
        self.by_kind = {k: sorted(v) for k, v in kinds.items()}


def top_level_defs(text):
    lines = text.splitlines(keepends=True)
    blocks, i = [], 0
    while i < len(lines):
        if re.match(r"(@|def |class |async def )", lines[i]):
            start = i
            while i < len(lines) and lines[i].startswith("@"):
                i += 1
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t#"):
                i += 1
            block = "".join(lines[start:i])
            if len(block) < 4000:
                blocks.append(block)
        else:
            i += 1
    return blocks


# --------------------------------------------------------------------------- mutations
# Each takes (rng, text, corpus) and returns (new text, description) or None when it
# does not apply to this text.


def pick_token(rng, text, kinds=None):
    toks = [t for t in tokens(text) if kinds is None or t[0] in kinds]
    return rng.choice(toks) if toks else None


def replace_span(text, start, end, new):
    return text[:start] + new + text[end:]


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def m_tok_delete(rng, text, corpus):
    t = pick_token(rng, text)
    if t:
        return replace_span(text, t[1], t[2], ""), f"delete token {text[t[1]:t[2]]!r} at line {line_of(text, t[1])}"


def m_tok_duplicate(rng, text, corpus):
    t = pick_token(rng, text)
    if t:
        s = text[t[1]:t[2]]
        return replace_span(text, t[1], t[2], s + " " + s), f"duplicate token {s!r} at line {line_of(text, t[1])}"


def m_tok_swap(rng, text, corpus):
    toks = tokens(text)
    if len(toks) < 2:
        return None
    i = rng.randrange(len(toks) - 1)
    j = i + 1 if rng.random() < 0.6 else rng.randrange(i + 1, min(len(toks), i + 20))
    a, b = toks[i], toks[j]
    sa, sb = text[a[1]:a[2]], text[b[1]:b[2]]
    new = text[:a[1]] + sb + text[a[2]:b[1]] + sa + text[b[2]:]
    return new, f"swap tokens {sa!r} and {sb!r} at line {line_of(text, a[1])}"


def m_tok_replace(kinds, extra=None, extra_p=0.0):
    def mutate(rng, text, corpus):
        t = pick_token(rng, text, kinds)
        if not t:
            return None
        if extra and rng.random() < extra_p:
            new = rng.choice(extra)
        elif rng.random() < 0.6:  # mostly names (numbers, ...) of the same file
            local = sorted({text[s:e] for k, s, e in tokens(text) if k in kinds})
            new = rng.choice(local)
        else:
            pool = corpus.by_kind[rng.choice(kinds)]
            if not pool:
                return None
            new = rng.choice(pool)
        old = text[t[1]:t[2]]
        if new == old:
            return None
        return replace_span(text, t[1], t[2], new), f"replace {t[0]} {old!r} by {new!r} at line {line_of(text, t[1])}"
    mutate.__name__ = "m_replace_" + "_".join(kinds)
    return mutate


m_replace_name = m_tok_replace(("name",))
m_replace_name_or_keyword = m_tok_replace(("name", "keyword"))
m_replace_number = m_tok_replace(("number",), INTERESTING_NUMBERS, 0.5)
m_replace_op = m_tok_replace(("op",))
m_replace_keyword = m_tok_replace(("keyword",))
m_replace_string = m_tok_replace(("string",), INTERESTING_STRINGS, 0.5)


def m_number_to_name(rng, text, corpus):
    """A number where a name was, or a name where a number was (dims, indices, axes)."""
    t = pick_token(rng, text, ("name", "number"))
    if not t:
        return None
    pool = INTERESTING_NUMBERS if t[0] == "name" else corpus.by_kind["name"]
    new = rng.choice(pool)
    old = text[t[1]:t[2]]
    return replace_span(text, t[1], t[2], new), f"replace {old!r} by {new!r} at line {line_of(text, t[1])}"


def lines_of(text):
    return text.splitlines(keepends=True)


def ensure_nl(line):
    return line if line.endswith("\n") else line + "\n"


def m_line_delete(rng, text, corpus):
    lines = lines_of(text)
    if lines:
        i = rng.randrange(len(lines))
        n = 1 if rng.random() < 0.7 else rng.randint(2, 6)
        return "".join(lines[:i] + lines[i + n:]), f"delete lines {i + 1}-{i + n}"


def m_line_duplicate(rng, text, corpus):
    lines = lines_of(text)
    if lines:
        i = rng.randrange(len(lines))
        k = 1 if rng.random() < 0.8 else rng.choice([2, 5, 50])
        return "".join(lines[:i + 1] + [ensure_nl(lines[i])] * k + lines[i + 1:]), f"duplicate line {i + 1} x{k}"


def m_line_swap(rng, text, corpus):
    lines = lines_of(text)
    if len(lines) >= 2:
        i, j = sorted(rng.sample(range(len(lines)), 2))
        lines = [ensure_nl(x) for x in lines]
        lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines), f"swap lines {i + 1} and {j + 1}"


def m_line_move(rng, text, corpus):
    lines = [ensure_nl(x) for x in lines_of(text)]
    if len(lines) >= 2:
        i = rng.randrange(len(lines))
        line = lines.pop(i)
        j = rng.randrange(len(lines) + 1)
        lines.insert(j, line)
        return "".join(lines), f"move line {i + 1} to {j + 1}"


def indentation(line):
    return line[:len(line) - len(line.lstrip(" \t"))]


def m_line_splice(rng, text, corpus):
    """A line from another seed, at the indentation of the line it goes before."""
    lines = [ensure_nl(x) for x in lines_of(text)]
    donor = rng.choice(corpus.texts)
    donor_lines = [x for x in lines_of(donor) if x.strip()]
    if not donor_lines:
        return None
    new = ensure_nl(rng.choice(donor_lines).lstrip(" \t"))
    j = rng.randrange(len(lines) + 1)
    indent = indentation(lines[j]) if j < len(lines) else ""
    replace = rng.random() < 0.3 and j < len(lines)
    lines[j:j + int(replace)] = [indent + new]
    return "".join(lines), f"{'replace' if replace else 'insert'} line {j + 1} by {new.strip()[:60]!r}"


def m_def_splice(rng, text, corpus):
    """A whole top-level definition from another seed, between two top-level statements."""
    if not corpus.defs:
        return None
    block = ensure_nl(rng.choice(corpus.defs))
    lines = [ensure_nl(x) for x in lines_of(text)]
    spots = [i for i, x in enumerate(lines) if x[:1] not in (" ", "\t", "", "\n")] + [len(lines)]
    j = rng.choice(spots)
    lines.insert(j, "\n" + block + "\n")
    first = block.splitlines()[0]
    return "".join(lines), f"insert definition {first[:60]!r} before line {j + 1}"


def m_indent(rng, text, corpus):
    lines = lines_of(text)
    if not lines:
        return None
    i = rng.randrange(len(lines))
    n = 1 if rng.random() < 0.6 else rng.randint(2, 8)
    pad = rng.choice([" ", "  ", "    ", "        ", "\t"])
    for k in range(i, min(i + n, len(lines))):
        lines[k] = pad + lines[k]
    return "".join(lines), f"indent lines {i + 1}-{i + n} by {pad!r}"


def m_dedent(rng, text, corpus):
    lines = lines_of(text)
    indented = [i for i, x in enumerate(lines) if x[:1] in (" ", "\t")]
    if not indented:
        return None
    i = rng.choice(indented)
    n = 1 if rng.random() < 0.6 else rng.randint(2, 8)
    width = rng.choice([1, 2, 4, 100])
    for k in range(i, min(i + n, len(lines))):
        ind = indentation(lines[k])
        lines[k] = ind[:max(0, len(ind) - width)] + lines[k][len(ind):]
    return "".join(lines), f"dedent lines {i + 1}-{i + n} by {width}"


def m_tabs(rng, text, corpus):
    lines = lines_of(text)
    indented = [i for i, x in enumerate(lines) if x.startswith("    ")]
    if not indented:
        return None
    if rng.random() < 0.3:
        out = [re.sub(r"^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), x) for x in lines]
        return "".join(out), "indent the whole file with tabs"
    i = rng.choice(indented)
    tab = rng.choice(["\t", "\t    ", "    \t", " \t"])
    lines[i] = tab + lines[i][4:]
    return "".join(lines), f"replace 4 spaces by {tab!r} on line {i + 1}"


def m_nest_blocks(rng, text, corpus):
    """Nest a line in many blocks (`if True:`, `for _ in range(1):`, `while ...`, `with`)."""
    lines = [ensure_nl(x) for x in lines_of(text)]
    cands = [i for i, x in enumerate(lines) if x.strip() and not x.strip().startswith(("@", "#"))]
    if not cands:
        return None
    i = rng.choice(cands)
    depth = rng.choice([1, 2, 5, 20, 99, 101, 150])
    head = rng.choice(["if True:", "for _i in range(1):", "while False:", "if x:", "try:", "else:"])
    ind = indentation(lines[i])
    block = [ind + "    " * d + head + "\n" for d in range(depth)]
    block.append(ind + "    " * depth + lines[i].lstrip(" \t"))
    lines[i:i + 1] = block
    return "".join(lines), f"nest line {i + 1} in {depth} x {head!r}"


def m_truncate(rng, text, corpus):
    if not text:
        return None
    if rng.random() < 0.5:
        k = rng.randrange(len(text))
        return text[:k], f"truncate at character {k}"
    lines = lines_of(text)
    k = rng.randrange(len(lines))
    return "".join(lines[:k]), f"truncate after line {k}"


def m_insert_char(rng, text, corpus):
    k = rng.randrange(len(text) + 1)
    r = rng.random()
    if r < 0.45:
        c = rng.choice(PRINTABLE)
    elif r < 0.75:
        c = rng.choice(UNICODE_CHARS)
    elif r < 0.93:
        c = rng.choice(CONTROL_CHARS)
    else:
        c = rng.choice(INVALID_BYTES)
    if rng.random() < 0.3:  # at a token boundary rather than anywhere
        t = pick_token(rng, text)
        if t:
            k = rng.choice([t[1], t[2]])
    return text[:k] + c + text[k:], f"insert {c!r} at line {line_of(text, k)}"


def m_huge_number(rng, text, corpus):
    t = pick_token(rng, text, ("number",))
    if not t:
        return None
    new = rng.choice(HUGE_NUMBERS)
    return replace_span(text, t[1], t[2], new), f"replace {text[t[1]:t[2]]!r} by a huge number ({len(new)} chars) at line {line_of(text, t[1])}"


def m_huge_string(rng, text, corpus):
    t = pick_token(rng, text, ("string", "number", "name"))
    if not t:
        return None
    n = rng.choice([1000, 20000, 60000])
    new = "'" + rng.choice("xé\\") * n + "'" if rng.random() < 0.5 else f"'x' * {rng.choice(['10**7', '10**8', '2**40', str(n)])}"
    new = new.replace("\\'", "\\\\'")
    return replace_span(text, t[1], t[2], new), f"replace {text[t[1]:t[2]]!r} by a long string ({new[:20]}...) at line {line_of(text, t[1])}"


def m_deep_nesting(rng, text, corpus):
    t = pick_token(rng, text, ("name", "number"))
    if not t:
        return None
    d = rng.choice([50, 200, 1000, 5000, 20000])
    opener, closer = rng.choice([("(", ")"), ("[", "]"), ("-", ""), ("not ", ""), ("(", ",)"),
                                 ("[", "][0]"), ("np.abs(", ")"), ("(lambda: ", ")()")])
    while d > 1 and len(text) + d * (len(opener) + len(closer)) > MAX_BYTES - 100:
        d //= 2
    s = text[t[1]:t[2]]
    return replace_span(text, t[1], t[2], opener * d + s + closer * d), f"nest {s!r} in {d} x {opener + closer!r} at line {line_of(text, t[1])}"


def m_long_chain(rng, text, corpus):
    t = pick_token(rng, text, ("name", "number"))
    if not t:
        return None
    s = text[t[1]:t[2]]
    op = rng.choice([" + ", " * ", " - ", " @ ", " if True else ", " and ", " < ", ".T", "[0]", ", "])
    n = rng.choice([10, 100, 1000, 5000])
    while n > 1 and len(text) + n * (len(s) + len(op)) > MAX_BYTES - 100:
        n //= 2
    new = s + op * n if op in (".T", "[0]") else op.join([s] * n)
    return replace_span(text, t[1], t[2], new), f"replace {s!r} by a chain of {n} x {op.strip()!r} at line {line_of(text, t[1])}"


# ---- on the syntax tree: the mutant parses (as CPython 3 parses it), so staging runs on it.
# The source is re-printed by ast.unparse (comments and layout are lost).

EXPR_WRAPPERS = [
    "np.sum(E)", "np.sum(E, axis=0)", "np.sum(E, axis=-1, keepdims=True)", "E.T", "E[0]", "E[-1]",
    "E[:, 0]", "E[1:]", "E[::-1]", "E[None]", "E[..., None]", "-E", "not E", "~E", "E.shape",
    "E.shape[0]", "len(E)", "float(E)", "int(E)", "bool(E)", "abs(E)", "E.astype(np.int32)",
    "E.astype(np.float64)", "E.reshape(-1)", "E.reshape(2, -1)", "np.stack([E, E])",
    "np.concatenate([E, E])", "(E, E)", "[E]", "E @ E", "E * 2", "E + 1.5", "E // 0", "E % 0",
    "E ** 2", "E ** -1", "np.where(E > 0, E, 0)", "E if E else E", "list(E)", "tuple(E)",
    "range(E)", "np.zeros(E)", "np.ones_like(E)", "np.asarray(E)", "agc.grad(E)", "agc.grad(lambda v: np.sum(E))(E)",
    "(lambda: E)()", "[v for v in E]", "{0: E}[0]", "np.broadcast_to(E, (2, 3))", "np.expand_dims(E, 5)",
    "E.sum()", "E.max(axis=3)", "np.transpose(E, (1, 0))", "np.einsum('ij->ji', E)", "E[E > 0]",
    "E[np.array([0, 1])]", "math.sqrt(E)", "E == E", "E < None", "E is None", "E in E", "str(E)",
    "print(E)", "max(E, E)", "min(E)", "sum(E)", "sorted(E)", "zip(E, E)", "enumerate(E)",
    "iter(E)", "next(iter(E))", "isinstance(E, int)", "E.item()", "E.tolist()", "E.copy()",
]
STMT_SNIPPETS = [
    "return", "return None", "return 1", "break", "continue", "pass", "del x", "global x",
    "nonlocal x", "x = x", "raise ValueError('x')", "assert False", "x += 1", "yield x",
    "import math", "from agc import numpy", "for _k in range(3):\n    pass",
    "while False:\n    pass", "if x:\n    return x", "x, y = 1, 2", "x[0] = 1", "x.attr = 1",
    "lambda: 0", "def g():\n    return g()", "class C:\n    pass", "with x:\n    pass",
    "try:\n    pass\nexcept Exception:\n    pass", "async def h():\n    pass", "x = [x]", "x: int = 1",
    "(x := 1)", "x = yield", "print(x)", "assert x.shape == (3,)", "match x:\n    case 1:\n        pass",
]
KEYWORD_ARGS = ["axis=0", "axis=-1", "axis=(0, 1)", "axis=None", "axis=7", "dtype=np.float32",
                "dtype=np.int64", "dtype=np.bool_", "dtype='f4'", "dtype=int", "keepdims=True",
                "name='g'", "name=''", "name=3", "training=True", "argnums=1", "argnums=(0, 5)",
                "out=None", "ddof=1", "mode='wrap'", "bogus=1", "size=3", "where=True", "order='F'"]
DTYPES = ["f32", "f64", "i32", "i64", "bool_", "f16", "u8", "int", "float", "Tensor"]
DIMS = ["0", "1", "3", "-1", "'B'", "'T'", "'B2'", "'b'", "''", "'1B'", "'B-1'", "'𝔁'", "2**31",
        "2**62", "10**30", "1.5", "None", "True", "...", "()", "'B', 'B'", "N", "3 * 4", "[2]"]
DECORATORS = ["agc.export", "agc.export()", "agc.export(name='e')", "agc.export(training=False)",
              "agc.export(name='x', training=True)", "agc.export(name=1)", "agc.export(bogus=2)",
              "agc.export(name='f_into')", "agc.grad", "staticmethod", "agc.export(agc.export)"]


def _parse(text):
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _expr(src):
    return ast.parse(src, mode="eval").body


def _slots(tree, want):
    """[(parent, field, index or None, node)] of every child slot of `tree` holding a node of
    a type in `want` (in ast.walk order)."""
    out = []
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list):
                out.extend((parent, field, i, v) for i, v in enumerate(value) if isinstance(v, want))
            elif isinstance(value, want):
                out.append((parent, field, None, value))
    return out


def _put(slot, node):
    parent, field, i, _ = slot
    if i is None:
        setattr(parent, field, node)
    else:
        getattr(parent, field)[i] = node


def _load_exprs(tree):
    return [s for s in _slots(tree, ast.expr)
            if not isinstance(getattr(s[3], "ctx", None), (ast.Store, ast.Del))
            and not isinstance(s[0], (ast.JoinedStr, ast.FormattedValue))]


def _donor_tree(rng, tree, corpus):
    if rng.random() < 0.7:
        return tree
    return _parse(rng.choice(corpus.texts)) or tree


def a_expr_replace(rng, tree, corpus):
    slots = _load_exprs(tree)
    donors = _load_exprs(_donor_tree(rng, tree, corpus))
    if not slots or not donors:
        return None
    slot, donor = rng.choice(slots), rng.choice(donors)[3]
    _put(slot, copy.deepcopy(donor))
    return f"replace an expression at line {getattr(slot[3], 'lineno', '?')} by another ({type(donor).__name__})"


def a_expr_wrap(rng, tree, corpus):
    slots = _load_exprs(tree)
    if not slots:
        return None
    slot = rng.choice(slots)
    template = rng.choice(EXPR_WRAPPERS)
    new = _expr(template)
    for s in _slots(new, ast.Name):
        if s[3].id == "E":
            _put(s, copy.deepcopy(slot[3]))
    if isinstance(new, ast.Name) and new.id == "E":
        return None
    _put(slot, new)
    return f"wrap an expression at line {getattr(slot[3], 'lineno', '?')} as {template}"


def a_stmt(rng, tree, corpus):
    """Delete, duplicate, swap or move statements of a block, or splice one in."""
    blocks = [(p, f) for p in ast.walk(tree) for f in ("body", "orelse", "finalbody")
              if isinstance(getattr(p, f, None), list) and getattr(p, f) and isinstance(getattr(p, f)[0], ast.stmt)]
    if not blocks:
        return None
    parent, field = rng.choice(blocks)
    body = getattr(parent, field)
    i = rng.randrange(len(body))
    line = getattr(body[i], "lineno", "?")
    r = rng.random()
    if r < 0.25 and len(body) > 1:
        del body[i]
        return f"delete the statement at line {line}"
    if r < 0.4:
        body.insert(i, copy.deepcopy(body[i]))
        return f"duplicate the statement at line {line}"
    if r < 0.55 and len(body) > 1:
        j = rng.randrange(len(body))
        body[i], body[j] = body[j], body[i]
        return f"swap the statements at lines {line} and {getattr(body[i], 'lineno', '?')}"
    if r < 0.8:
        donor = _donor_tree(rng, tree, corpus)
        stmts = [n for n in ast.walk(donor) if isinstance(n, ast.stmt)]
        new = copy.deepcopy(rng.choice(stmts))
        what = "a statement from another seed" if donor is not tree else "a copy of another statement"
    else:
        snippet = rng.choice(STMT_SNIPPETS)
        names = [n.id for n in ast.walk(parent) if isinstance(n, ast.Name)] or ["x"]
        snippet = re.sub(r"\bx\b", rng.choice(names), snippet)
        new = ast.parse(snippet).body[0]
        what = repr(snippet)
    body.insert(i + (rng.random() < 0.5), new)
    return f"insert {what} near line {line}"


def a_constant(rng, tree, corpus):
    slots = [s for s in _slots(tree, ast.Constant) if not isinstance(s[0], ast.JoinedStr)]
    if not slots:
        return None
    slot = rng.choice(slots)
    new = rng.choice(INTERESTING_NUMBERS + INTERESTING_STRINGS[:12] + HUGE_NUMBERS[:3])
    _put(slot, _expr(new))
    return f"replace constant {slot[3].value!r:.40} at line {slot[3].lineno} by {new[:40]}"


def a_operator(rng, tree, corpus):
    families = [(ast.operator, [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
                                ast.MatMult, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor]),
                (ast.cmpop, [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot,
                             ast.In, ast.NotIn]),
                (ast.unaryop, [ast.USub, ast.UAdd, ast.Not, ast.Invert]),
                (ast.boolop, [ast.And, ast.Or])]
    cands = []
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            values = value if isinstance(value, list) else [value]
            for i, v in enumerate(values):
                for base, choices in families:
                    if isinstance(v, base):
                        cands.append((node, field, i if isinstance(value, list) else None, choices))
    if not cands:
        return None
    node, field, i, choices = rng.choice(cands)
    new = rng.choice(choices)()
    if i is None:
        setattr(node, field, new)
    else:
        getattr(node, field)[i] = new
    return f"operator {type(new).__name__} at line {getattr(node, 'lineno', '?')}"


def a_call(rng, tree, corpus):
    """Delete, duplicate or swap a call's arguments, add or drop a keyword, rename the callee."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    if not calls:
        return None
    call = rng.choice(calls)
    r = rng.random()
    if r < 0.2 and call.args:
        del call.args[rng.randrange(len(call.args))]
        what = "delete an argument"
    elif r < 0.35 and call.args:
        call.args.insert(rng.randrange(len(call.args) + 1), copy.deepcopy(rng.choice(call.args)))
        what = "duplicate an argument"
    elif r < 0.45 and len(call.args) > 1:
        i, j = rng.sample(range(len(call.args)), 2)
        call.args[i], call.args[j] = call.args[j], call.args[i]
        what = "swap two arguments"
    elif r < 0.65:
        kw = rng.choice(KEYWORD_ARGS)
        call.keywords.append(ast.parse(f"f({kw})", mode="eval").body.keywords[0])
        what = f"add {kw}"
    elif r < 0.75 and call.keywords:
        del call.keywords[rng.randrange(len(call.keywords))]
        what = "drop a keyword argument"
    elif r < 0.8:
        call.args.append(ast.Starred(value=_expr(rng.choice(["[]", "(1, 2)", "x"])), ctx=ast.Load()))
        what = "add a *args"
    else:
        funcs = [n for n in ast.walk(_donor_tree(rng, tree, corpus)) if isinstance(n, ast.Call)]
        call.func = copy.deepcopy(rng.choice(funcs).func)
        what = f"call {ast.unparse(call.func)[:40]} instead"
    return f"{what} in the call at line {call.lineno}"


def a_signature(rng, tree, corpus):
    """Change an exported function's annotations, parameters, defaults or decorators."""
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
    if not funcs:
        return None
    f = rng.choice(funcs)
    args = f.args
    params = args.posonlyargs + args.args + args.kwonlyargs
    r = rng.random()
    line = f.lineno
    if isinstance(f, ast.FunctionDef) and r < 0.45 and params:
        p = rng.choice(params)
        dims = ", ".join(rng.choice(DIMS) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 5])))
        spec = rng.choice([f"agc.{rng.choice(DTYPES)}[{dims or '()'}]", f"agc.f32[{dims or '()'}]",
                           "agc.f32", "int", "None", "'agc.f32[3]'", "agc.f32[3][4]", "np.float32"])
        p.annotation = _expr(spec) if rng.random() < 0.95 else None
        return f"annotate parameter {p.arg} of {f.name} as {spec}"
    if isinstance(f, ast.FunctionDef) and r < 0.6:
        dec = rng.choice(DECORATORS)
        if f.decorator_list and rng.random() < 0.5:
            f.decorator_list.pop(rng.randrange(len(f.decorator_list)))
            return f"drop a decorator of {f.name}"
        f.decorator_list.insert(0, _expr(dec))
        return f"decorate {f.name} with @{dec}"
    if r < 0.7 and params:
        lst = rng.choice([lst for lst in (args.posonlyargs, args.args, args.kwonlyargs) if lst])
        p = lst.pop(rng.randrange(len(lst)))
        if lst is args.kwonlyargs and args.kw_defaults:
            args.kw_defaults.pop(min(len(args.kw_defaults) - 1, 0))
        if lst is not args.kwonlyargs:
            args.defaults = args.defaults[:len(args.posonlyargs) + len(args.args)]
        return f"drop parameter {p.arg} at line {line}"
    if r < 0.8:
        name = rng.choice(["x", "extra", "self", "B", "np", "agc", params[0].arg if params else "y"])
        new = ast.arg(arg=name, annotation=_expr("agc.f32['B']") if rng.random() < 0.5 else None)
        if rng.random() < 0.5:
            args.kwonlyargs.append(new)
            args.kw_defaults.append(_expr(rng.choice(["None", "1", "()"])) if rng.random() < 0.5 else None)
        else:
            args.args.append(new)
            if args.defaults:
                args.defaults.append(_expr("0"))
        return f"add parameter {name} at line {line}"
    if r < 0.9 and params:
        if args.args:
            args.defaults = [_expr(rng.choice(["None", "1", "2.5", "'s'", "()", "[]", "np.zeros(3)"]))
                             for _ in args.args[rng.randrange(len(args.args)):]]
            return f"defaults for the parameters at line {line}"
        return None
    star = rng.choice(["args", "kwargs"])
    setattr(args, "vararg" if star == "args" else "kwarg", ast.arg(arg=star))
    return f"add *{star} at line {line}"


def a_control(rng, tree, corpus):
    """Wrap a statement in an if/for/while/with/try, or turn a block's head into another."""
    blocks = [(p, f) for p in ast.walk(tree) for f in ("body", "orelse")
              if isinstance(getattr(p, f, None), list) and getattr(p, f) and isinstance(getattr(p, f)[0], ast.stmt)
              and not isinstance(p, ast.Module)]
    if not blocks:
        return None
    parent, field = rng.choice(blocks)
    body = getattr(parent, field)
    i = rng.randrange(len(body))
    n = rng.randint(1, len(body) - i)
    exprs = [s[3] for s in _load_exprs(parent)] or [_expr("True")]
    cond = copy.deepcopy(rng.choice(exprs))
    head = rng.choice(["if C:\n    pass", "if C:\n    pass\nelse:\n    pass", "for _v in C:\n    pass",
                       "for _v in range(2):\n    pass", "while C:\n    break", "if not C:\n    pass",
                       "for _v in range(C):\n    pass", "with C:\n    pass",
                       "try:\n    pass\nfinally:\n    pass"])
    new = ast.parse(head).body[0]
    for s in _slots(new, ast.Name):
        if s[3].id == "C":
            _put(s, cond)
    new.body = body[i:i + n] + ([ast.Break()] if head.startswith("while") else [])
    body[i:i + n] = [new]
    return f"put lines {getattr(new.body[0], 'lineno', '?')}+{n} under {head.splitlines()[0]}"


def m_ast(rng, text, corpus):
    tree = _parse(text)
    if tree is None:
        return None
    op = rng.choices(AST_OPS, weights=AST_WEIGHTS)[0]
    try:
        desc = op(rng, tree, corpus)
        if desc is None:
            return None
        ast.fix_missing_locations(tree)
        new = ast.unparse(tree)
    except (RecursionError, ValueError, TypeError, AttributeError, IndexError, SyntaxError):
        return None
    return new + "\n", f"{op.__name__[2:]}: {desc}"


AST_OPS = [a_expr_replace, a_expr_wrap, a_stmt, a_constant, a_operator, a_call, a_signature, a_control]
AST_WEIGHTS = [6, 6, 6, 3, 3, 5, 4, 3]


MUTATIONS = [
    # (weight, function)
    (6, m_tok_delete), (4, m_tok_duplicate), (4, m_tok_swap),
    (8, m_replace_name), (3, m_replace_name_or_keyword), (8, m_replace_number), (6, m_replace_op),
    (3, m_replace_keyword), (3, m_replace_string), (4, m_number_to_name),
    (5, m_line_delete), (4, m_line_duplicate), (3, m_line_swap), (3, m_line_move),
    (5, m_line_splice), (3, m_def_splice),
    (3, m_indent), (3, m_dedent), (2, m_tabs), (1, m_nest_blocks),
    (2, m_truncate), (5, m_insert_char),
    (2, m_huge_number), (1, m_huge_string), (1, m_deep_nesting), (1, m_long_chain),
    (80, m_ast),
]
_WEIGHTS = [w for w, _ in MUTATIONS]
_FUNCS = [f for _, f in MUTATIONS]


def make_mutant(seed, index, corpus):
    """(source text, seed path, [descriptions]) of mutant `index` of `seed`: deterministic."""
    rng = random.Random(f"agc-fuzz-frontend:{seed}:{index}")
    k = rng.randrange(len(corpus.paths))
    base, text = corpus.paths[k], corpus.texts[k]
    steps = rng.choices([1, 2, 3, 4], weights=[60, 25, 10, 5])[0]
    done = []
    attempts = 0
    while len(done) < steps and attempts < 50:
        attempts += 1
        f = rng.choices(_FUNCS, weights=_WEIGHTS)[0]
        r = f(rng, text, corpus)
        if r is None or len(encode(r[0])) > MAX_BYTES:
            continue
        text = r[0]
        done.append(f"{f.__name__[2:]}: {r[1]}")
    return text, base, done


def encode(text):
    return text.encode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- running agc


def run_agc(agc, args, timeout, mem_mb, cwd):
    """(exit code or None on timeout, stdout+stderr text, seconds); negative: killed by a signal."""
    cmd = ["/bin/sh", "-c", f'ulimit -v {mem_mb * 1024} 2>/dev/null; exec "$0" "$@"', str(agc), *map(str, args)]
    env = {k: v for k, v in os.environ.items() if k not in ("AGC_LOG", "RUST_BACKTRACE", "RUST_LOG")}
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        rc = None
    text = err.decode("utf-8", "replace")
    if out:
        text += out.decode("utf-8", "replace")
    return rc, text, time.monotonic() - start


def count_lines(data):
    """Lines of the file as CPython/agc count them (\\n, \\r\\n, or \\r ends a line), +1 for a
    location just past the end."""
    return len(re.split(rb"\r\n|\r|\n", data)) + 1


def classify(rc, stderr, path, nlines):
    """(verdict, message): verdict 'ok', 'error' (exit 1 with a location) or a finding kind."""
    first = next((x for x in stderr.splitlines() if x.strip()), "")
    if rc is None:
        return "hang", first
    if rc < 0 or rc >= 128:  # killed by a signal (an abort: out of memory, a stack overflow)
        sig = -rc if rc < 0 else rc - 128
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return f"signal-{name}", first
    if any(t in stderr for t in PANIC_TEXT) or rc == 101:
        return "panic", first
    if rc == 0:
        return "ok", ""
    if rc == 2:
        line = next((x for x in stderr.splitlines() if "internal error" in x), first)
        return "internal-error", line
    if rc == 1:
        m = re.search(rf"^{re.escape(str(path))}:(\d+):(\d+): error: (.*)$", stderr, re.M)
        if not m:
            return "no-location", first
        if not 1 <= int(m.group(1)) <= nlines or int(m.group(2)) < 1:
            return "bad-location", m.group(0)
        return "error", m.group(0)
    return f"exit-{rc}", first


def dedupe_key(kind, message, path, output=""):
    """(kind, normalised first line of the message): the mutant's path, numbers and quoted
    text replaced; a panic is keyed by its message's head and its place in agc's source."""
    msg = message.replace(str(path), "<mutant>")
    msg = re.sub(r"^<mutant>:\d+:\d+: ", "", msg)
    panic_at = re.search(r"\(([\w./-]+\.rs):(\d+)\)$", output, re.M)
    if msg.startswith("agc: internal error:") and panic_at:
        head = re.sub(r"\d+", "N", re.split(r"['`\"]", msg)[0].rstrip())[:160]
        return kind, f"{head} ... ({panic_at.group(1)}:{panic_at.group(2)})"
    msg = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", "'…'", msg)
    msg = re.sub(r"\d+", "N", msg)
    return kind, msg[:200]


def check_file(agc, path, mode, timeout, mem_mb, workdir):
    """Runs agc on one file: [(command, rc, output, seconds, verdict, message)] of each step."""
    data = Path(path).read_bytes()
    nlines = count_lines(data)
    steps = []
    commands = {"check": ["check", path],
                "build": ["build", path, "-o", Path(workdir) / (Path(path).stem + "-out")]}
    order = {"check": ["check"], "build": ["build"], "both": ["check", "build"]}[mode]
    for name in order:
        args = commands[name]
        rc, out, secs = run_agc(agc, args, timeout, mem_mb, workdir)
        verdict, message = classify(rc, out, path, nlines)
        steps.append((["agc", *map(str, args)], rc, out, secs, verdict, message))
        if verdict != "ok":
            break
    shutil.rmtree(commands["build"][3], ignore_errors=True)
    return steps


# --------------------------------------------------------------------------- campaign


class Findings:
    def __init__(self, out_dir):
        self.dir = Path(out_dir) / "findings"
        self.by_key = {}
        self.lock = threading.Lock()

    def add(self, key, index, source, base, mutations, step, path):
        command, rc, output, secs, verdict, message = step
        data = encode(source)
        with self.lock:
            entry = self.by_key.get(key)
            if entry is None:
                digest = hashlib.sha1(repr(key).encode()).hexdigest()[:10]
                entry = {"kind": key[0], "key": key[1], "dir": str(self.dir / f"{key[0]}-{digest}"),
                         "count": 0, "indices": [], "size": None}
                self.by_key[key] = entry
            entry["count"] += 1
            entry["indices"].append(index)
            if entry["size"] is not None and len(data) >= entry["size"]:
                return
            entry["size"] = len(data)
            d = Path(entry["dir"])
            d.mkdir(parents=True, exist_ok=True)
            (d / "mutant.py").write_bytes(data)
            cmd = " ".join(command).replace(str(path), "mutant.py").replace(str(path.with_name(path.stem + "-out")), "out")
            (d / "command.txt").write_text(f"{cmd}\n# exit code: {rc} ({secs:.1f} s)\n")
            (d / "stderr.txt").write_text(output)
            (d / "info.json").write_text(json.dumps({
                "kind": key[0], "message": message, "dedupe_key": key[1], "exit_code": rc,
                "index": index, "seed_file": str(base), "mutations": mutations,
                "command": command, "seconds": round(secs, 2)}, indent=1))

    def save_index(self):
        if self.by_key:
            self.dir.mkdir(parents=True, exist_ok=True)
            (self.dir / "index.json").write_text(json.dumps(
                sorted(self.by_key.values(), key=lambda e: (e["kind"], e["key"])), indent=1))


def find_agc(explicit):
    for cand in (explicit, os.environ.get("AGC_BIN"), REPO / "target" / "release" / "agc"):
        if cand and Path(cand).is_file():
            return Path(cand).resolve()
    sys.exit(f"fuzz_frontend: no agc binary (--agc, $AGC_BIN, {REPO / 'target/release/agc'})")


def seed_paths(dirs):
    paths = []
    for d in dirs:
        p = Path(d) if Path(d).is_absolute() else REPO / d
        paths.extend(sorted(p.glob("*.py")))
    return paths


def summary_line(n, verdicts):
    ok = verdicts.get("ok", 0) + verdicts.get("error", 0)
    findings = {k: v for k, v in sorted(verdicts.items()) if k not in OK_KINDS}
    total = sum(findings.values())
    kinds = ", ".join(f"{k} {v}" for k, v in findings.items()) or "none"
    return f"{n} mutants: {ok} ok ({verdicts.get('error', 0)} errors with location), {total} findings ({kinds})"


def campaign(args, agc):
    corpus = Corpus(seed_paths(args.seed_dir or SEED_DIRS))
    if args.show is not None:
        text, base, done = make_mutant(args.seed, args.show, corpus)
        sys.stderr.write(f"# mutant {args.show} of seed {args.seed}: {base.relative_to(REPO) if base.is_relative_to(REPO) else base}\n")
        for d in done:
            sys.stderr.write(f"#   {d}\n")
        sys.stdout.buffer.write(encode(text))
        return 0
    out = Path(args.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    findings = Findings(out)
    indices = ([int(x) for x in args.only.split(",")] if args.only
               else list(range(args.start, args.start + args.count)))
    verdicts = {}
    errors = {}  # normalised diagnostic -> count, for the summary
    done_count = [0]
    lock = threading.Lock()
    t0 = time.monotonic()

    def one(index):
        text, base, done = make_mutant(args.seed, index, corpus)
        path = work / f"m{index:06d}.py"
        path.write_bytes(encode(text))
        steps = check_file(agc, path, args.mode, args.timeout, args.mem_mb, work)
        last = steps[-1]
        verdict = last[4]
        if verdict not in OK_KINDS:
            findings.add(dedupe_key(verdict, last[5], path, last[2]), index, text, base, done, last, path)
        if not args.keep:
            path.unlink(missing_ok=True)
        with lock:
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            if verdict == "error":
                k = dedupe_key(verdict, last[5], path)[1]
                errors[k] = errors.get(k, 0) + 1
            done_count[0] += 1
            if args.verbose or verdict not in OK_KINDS:
                rel = base.relative_to(REPO) if base.is_relative_to(REPO) else base
                print(f"[{index}] {verdict}: {rel}: {'; '.join(done)}"
                      + (f"\n    {last[5][:200]}" if verdict not in OK_KINDS else ""), file=sys.stderr)
            if not args.quiet and done_count[0] % args.progress == 0:
                print(f"... {done_count[0]}/{len(indices)} ({time.monotonic() - t0:.0f} s): "
                      + summary_line(done_count[0], verdicts), file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for f in [pool.submit(one, i) for i in indices]:
            f.result()
    findings.save_index()
    line = summary_line(len(indices), verdicts)
    distinct = len(findings.by_key)
    summary = {"seed": args.seed, "indices": [indices[0], indices[-1]] if indices else [],
               "mode": args.mode, "timeout": args.timeout, "seconds": round(time.monotonic() - t0, 1),
               "verdicts": verdicts, "distinct_findings": distinct, "summary": line,
               "errors": dict(sorted(errors.items(), key=lambda kv: -kv[1])),
               "findings": sorted(findings.by_key.values(), key=lambda e: (e["kind"], e["key"]))}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    for e in summary["findings"]:
        print(f"  {e['kind']} x{e['count']}: {e['key']}\n    {e['dir']}/mutant.py", file=sys.stderr)
    print(line + (f"; {distinct} distinct, in {out / 'findings'}" if distinct else ""))
    return 1 if distinct else 0


def replay(args, agc):
    """Compiles each given file; prints its verdict; 1 if any is a finding."""
    bad = 0
    with tempfile.TemporaryDirectory(prefix="fuzz-frontend-") as work:
        for p in args.replay:
            steps = check_file(agc, Path(p).resolve(), args.mode, args.timeout, args.mem_mb, work)
            command, rc, out, secs, verdict, message = steps[-1]
            bad += verdict not in OK_KINDS
            print(f"{p}: {verdict} (exit {rc}, {secs:.1f} s){': ' + message if message else ''}")
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    ap.add_argument("--count", type=int, default=100, help="mutants (default 100)")
    ap.add_argument("--start", type=int, default=0, help="first mutant index (default 0)")
    ap.add_argument("--only", help="just these mutant indices, e.g. 17,42")
    ap.add_argument("--show", type=int, help="print mutant INDEX (and its mutations, to stderr) and exit")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compilations (default 2)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per agc run (default 20)")
    ap.add_argument("--mem-mb", type=int, default=8192,
                    help="address-space limit of agc in MiB (default 8192; 4096 of it is its stack)")
    ap.add_argument("--mode", choices=["check", "build", "both"], default="both",
                    help="agc check, agc build, or check then build when the check passes (default)")
    ap.add_argument("--agc", help="the compiler (default $AGC_BIN, else target/release/agc)")
    ap.add_argument("--out", default="/tmp/fuzz-frontend", help="output folder (default /tmp/fuzz-frontend)")
    ap.add_argument("--seed-dir", action="append",
                    help=f"seed folder (repeatable; default {', '.join(SEED_DIRS)})")
    ap.add_argument("--replay", nargs="+", metavar="FILE", help="compile these files and print their verdicts")
    ap.add_argument("--keep", action="store_true", help="keep every mutant under OUT/work")
    ap.add_argument("--progress", type=int, default=250, help="progress line every N mutants")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per mutant")
    args = ap.parse_args(argv)
    if args.show is not None:
        return campaign(args, None)
    agc = find_agc(args.agc)
    if args.replay:
        return replay(args, agc)
    return campaign(args, agc)


if __name__ == "__main__":
    sys.exit(main())
