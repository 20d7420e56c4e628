"""The child process of `target.Caller`: one JSON request per line on stdin, one reply per line.

Request: {"so", "fn", "inputs" (an .npz of a0, a1, ...), "out" (where to write r0, r1, ...)}.
Reply: {"status": "ok"} | {"status": "error", "message"} (agc.Error: the library's
non-zero status) | {"status": "exception", "message"} (anything else the call raised).
A crash of the compiled code ends this process; the parent sees it.
"""

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "python"))

import numpy as np  # noqa: E402

import agc  # noqa: E402


def main():
    libs = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            lib = libs.get(req["so"])
            if lib is None:
                lib = libs[req["so"]] = agc.load(req["so"])
            with np.load(req["inputs"]) as f:
                inputs = [f[f"a{i}"] for i in range(len(f.files))]
            out = lib.functions[req["fn"]](*inputs)
            out = out if isinstance(out, tuple) else (out,)
            np.savez(req["out"], **{f"r{i}": np.asarray(r) for i, r in enumerate(out)})
            reply = {"status": "ok"}
        except agc.Error as e:
            reply = {"status": "error", "message": str(e)}
        except Exception as e:  # noqa: BLE001 - reported to the parent as a crash of the call
            reply = {"status": "exception", "message": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
