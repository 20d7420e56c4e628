"""agcfuzz: a differential fuzzer for agc.

Random programs in the contract's subset (`gen`), run eagerly under CPython and
numpy/autograd (`oracle`), built with the agc CLI and called through
`agc.load` in a child process (`target`), compared (`compare`), classified and
batched (`campaign`), and shrunk to small reproducers (`shrink`).
"""

import sys
from pathlib import Path

FUZZ_DIR = Path(__file__).resolve().parent.parent
REPO = FUZZ_DIR.parent.parent
if str(REPO / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "python"))  # the agc package as in the repository

