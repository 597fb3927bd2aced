"""``build_opponent``: one of the programs of ``OPPONENTS`` built into a folder, its
runnable ``OUT/run <host> <port>`` and ``OUT/build.json`` (what was built, from which
commit, with which settings, the seconds each step took and the figures to quote)."""

from __future__ import annotations

import json
import os
import platform
import stat
import sys
import time
from typing import TextIO

from pokerbot.bot.opponents import slumbot2017
from pokerbot.bot.opponents.recipe import BuildError, run_steps

#: The programs ``pokerbot opponent build`` knows.
OPPONENTS = {slumbot2017.NAME: slumbot2017}


def build_opponent(
    name: str, source: str, out: str, settings: slumbot2017.Settings, stream: TextIO | None = None
) -> dict:
    """Build ``name`` from ``source`` (a path or a repository URL) into ``out``;
    resumable: the same command again goes on where a build stopped (another
    settings or source is refused for a folder that holds a build). Returns the
    record written to ``OUT/build.json``."""
    stream = stream if stream is not None else sys.stderr
    if name not in OPPONENTS:
        raise BuildError(f"unknown opponent {name!r}; known: {', '.join(sorted(OPPONENTS))}")
    settings.verify()
    recipe = OPPONENTS[name]
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    # a build may be trained further (more batches), not otherwise changed
    identity = {"name": name, "settings": {k: v for k, v in settings.__dict__.items() if k != "batches"}}
    claimed = os.path.join(out, "build-settings.json")
    if os.path.exists(claimed):
        with open(claimed) as f:
            before = json.load(f)
        trained = before.pop("batches", 0)
        if before != json.loads(json.dumps(identity)):
            raise BuildError(f"{out} holds another build ({before}); give another --out")
        if settings.batches < trained:
            raise BuildError(f"{out} is trained for {trained} batches; --batches can grow, not shrink")
    with open(claimed, "w") as f:
        json.dump({**identity, "batches": settings.batches}, f, indent=2)
    t0 = time.time()
    print(f"{name}: source {source} -> {os.path.join(out, 'src')}", file=stream, flush=True)
    commit = recipe.fetch_source(source, os.path.join(out, "src"))
    if commit not in ("unknown", recipe.COMMIT) and not commit.startswith(recipe.COMMIT):
        print(f"{name}: commit {commit}, not {recipe.COMMIT} that our patches were made for", file=stream)
    recipe.write_params(out)
    seconds = run_steps(out, recipe.build_steps(out, settings), stream)
    run = os.path.join(out, "run")
    with open(run, "w") as f:
        f.write(recipe.launcher(out, settings))
    os.chmod(run, os.stat(run).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    record_path = os.path.join(out, "build.json")
    record: dict = {}
    if os.path.exists(record_path):
        with open(record_path) as f:
            record = json.load(f)
    steps = {**record.get("step_seconds", {}), **{k: round(v, 1) for k, v in seconds.items()}}
    record = {
        "name": name,
        "source": source,
        "commit": commit,
        "license": recipe.LICENSE,
        "patches": list(recipe.PATCHES),
        "settings": settings.__dict__,
        "iterations": settings.iterations,
        "step_seconds": steps,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "run": run,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "seconds_this_time": round(time.time() - t0, 1),
    }
    with open(record_path, "w") as f:
        json.dump(record, f, indent=2)
    print(f"{name}: built; play it as {run} <host> <port> (pokerbot match libratus {run})", file=stream)
    return record
