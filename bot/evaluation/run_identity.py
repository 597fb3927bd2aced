"""A results directory's identity: what was run in it, so that a rerun with other
settings never adds its hands to another run's."""

from __future__ import annotations

import json
import os


def claim(out_dir: str, identity: dict) -> dict | None:
    """Record ``identity`` in ``out_dir/run.json`` the first time; afterwards, the
    identity recorded there when it differs from ``identity`` (None when it is the same)."""
    path = os.path.join(out_dir, "run.json")
    if os.path.exists(path):
        with open(path) as f:
            before = json.load(f)
        return before if before != json.loads(json.dumps(identity)) else None
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "w") as f:
        json.dump(identity, f, indent=2)
    return None


def open_results(path: str):
    """``path`` opened to append one result a line; a last line cut by an interruption
    is ended first (it stays unreadable, not merged with the next)."""
    f = open(path, "a")  # the caller's with-block closes it
    if f.tell() > 0:
        with open(path, "rb") as r:
            r.seek(-1, os.SEEK_END)
            if r.read(1) != b"\n":
                f.write("\n")
    return f
