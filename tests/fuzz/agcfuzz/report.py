"""The breakdown table of a campaign: counts per class, rejection and crash causes grouped by message."""

import collections
import json
import re
from pathlib import Path

from .campaign import normalize

ORDER = ["pass", "mismatch", "crash", "rejected", "timeout", "invalid"]


def table(outcomes, elapsed=None, out_dir=None):
    counts = collections.Counter(o.status for o in outcomes)
    tested = sum(counts[s] for s in ORDER if s != "invalid")
    lines = []
    head = f"{len(outcomes)} program indices, {tested} programs tested"
    if elapsed:
        head += f" in {elapsed:.0f} s ({tested / max(elapsed, 1e-9):.1f} programs/s)"
    lines += [head, "", f"{'class':<10} {'count':>7} {'share':>7}", "-" * 26]
    for s in ORDER:
        share = f"{100.0 * counts[s] / tested:.1f}%" if tested and s != "invalid" else ""
        lines.append(f"{s:<10} {counts[s]:>7} {share:>7}")
    rescued = collections.Counter(o.note.split(": ", 1)[1] for o in outcomes
                                  if o.status == "pass" and o.note.startswith("passed after a second oracle"))
    if rescued:
        lines.append("  (pass includes mismatches against numpy that a second oracle explained: "
                     + ", ".join(f"{c} by {k}" for k, c in rescued.most_common()) + ")")
    if counts["invalid"]:
        lines.append("  (invalid: no usable program in the allowed attempts; not tested)")
    discarded = collections.Counter(_reason(r) for o in outcomes for r in o.invalid_reasons)
    if discarded:
        lines += ["", f"generated programs discarded by the eager oracle before testing: {sum(discarded.values())}"]
        for r, c in discarded.most_common(8):
            lines.append(f"  {c:>6}  {r}")
    for status, title in (("rejected", "rejection causes"), ("crash", "crash causes"),
                          ("timeout", "timeouts"), ("mismatch", "mismatch kinds")):
        group = collections.defaultdict(list)
        for o in outcomes:
            if o.status == status:
                key = o.kind if status == "mismatch" else normalize(o.message).splitlines()[0]
                group[key].append(o)
        if not group:
            continue
        lines += ["", f"{title}:"]
        for key, os_ in sorted(group.items(), key=lambda kv: -len(kv[1])):
            ex = ", ".join(o.pid for o in os_[:6]) + (" ..." if len(os_) > 6 else "")
            lines.append(f"  {len(os_):>6}  {key[:150]}")
            lines.append(f"          e.g. {ex}")
    failing = [o.pid for o in outcomes if o.status in ("mismatch", "crash", "timeout", "rejected")]
    if failing:
        lines += ["", "failing program ids: " + " ".join(failing)]
    if out_dir is not None:
        n = sum(1 for o in outcomes if o.reproducer)
        if n:
            lines += ["", f"reproducers: {n} under {Path(out_dir) / 'repros'} (original.py, shrunk.py, report.json)"]
    return "\n".join(lines)


def _reason(r):
    r = re.sub(r"\bp\d+_", "p_", r)
    return r.split(":")[0] if r.startswith("eager") and len(r) > 60 else r[:100]


def write_json(path, outcomes, meta):
    Path(path).write_text(json.dumps({"meta": meta, "outcomes": [o.__dict__ for o in outcomes]}, indent=1,
                                     default=str))
