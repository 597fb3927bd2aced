"""``pokerbot ladder``: the strength table, played in resumable chunks and pooled.

Each row of the ladder is a pair of our strategies (A against B). A chunk of a row is
one duplicate match of ``pairs`` deals with common random numbers and AIVAT, keyed by
its seed: it lives in ``OUT/<row>/seed-<seed>/`` and is done when its ``chunk.json``
exists, which records the row, the seed, what it was played with (the code's commit,
the blueprint's digest, the game, the dealer's limits) and its figures pair by pair
(raw, all-in adjusted, AIVAT; A's mean over both seat orders, chips). A run adds
chunks to whatever the directory holds, so the table grows across runs and machines
(copy the row directories together; give machines disjoint ``--seeds``). Only chunks
played with the same commit and options are pooled; the table says how many others it
left out.

Chunks run in parallel in processes on this machine, or as tasks on a Ray cluster
(``--ray``; the ``cluster`` extra). A chunk that was stopped midway has no
``chunk.json`` and is played again from the start; nothing recorded is lost.

For each row the table gives A's pooled result with its 95 % interval: duplicate plus
AIVAT's difference from it, weighted by a coefficient in [0, 1] cross-fitted on the
other half of the pairs once each half has ``MIN_FIT_PAIRS`` (``control_variates``):
unbiased, AIVAT where it cuts the variance, duplicate alone where AIVAT adds noise;
with fewer pairs, AIVAT itself. Beside it AIVAT with the solves' own values (for
comparison, not in the headline: its difference from the check-down AIVAT is too
collinear with it to fit both on a few hundred pairs), AIVAT and duplicate alone, the variance cut,
whether the result is significant, the pairs still needed for significance at the
observed effect, and the pairs and hours that an interval of +-100 mbb/hand needs at
the observed variance.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import math
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from pokerbot.blueprint_store.store import play_digest
from pokerbot.bot.cores import usable_cpus
from pokerbot.bot.evaluation.control_variates import cross_fitted
from pokerbot.bot.evaluation.stats import Z95
from pokerbot.protocol.gamedef import load_gamedef

#: Benchmark bots every strategy of the ladder plays.
BENCHMARK_BOTS = ("call", "random", "raise-pot", "allin")
#: The strategies of the strength table: the agent (turn solving), the river-only agent, the blueprint.
AGENT, RIVER_ONLY, BLUEPRINT = "libratus", "libratus --solve-round 4", "blueprint"


@dataclass(frozen=True)
class Row:
    """A row of the ladder: A's result against B."""

    a: str
    b: str

    @property
    def key(self) -> str:
        """The row's directory name."""
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{self.a}__vs__{self.b}")

    def __str__(self) -> str:
        return f"{self.a} vs {self.b}"


#: The strength table, in the order it prints.
DEFAULT_ROWS: tuple[Row, ...] = (
    Row(AGENT, BLUEPRINT),
    Row(AGENT, RIVER_ONLY),
    Row(RIVER_ONLY, BLUEPRINT),
    *(Row(s, bot) for s in (AGENT, RIVER_ONLY, BLUEPRINT) for bot in BENCHMARK_BOTS),
)


class LadderError(ValueError):
    """A ladder that cannot be run as asked (an unknown row, bad seeds)."""


def parse_rows(text: str | None) -> list[Row]:
    """Rows from ``A vs B`` items separated by commas, or row numbers of the default
    table (1-based), or ``main`` (the first three rows); None or ``all``: every row."""
    if text is None or text.strip() == "all":
        return list(DEFAULT_ROWS)
    if text.strip() == "main":
        return list(DEFAULT_ROWS[:3])
    rows: list[Row] = []
    for item in (t.strip() for t in text.split(",")):
        if item.isdigit():
            i = int(item)
            if not 1 <= i <= len(DEFAULT_ROWS):
                raise LadderError(f"no row {i}: the table has rows 1 to {len(DEFAULT_ROWS)}")
            rows.append(DEFAULT_ROWS[i - 1])
        elif " vs " in item:
            a, b = (s.strip() for s in item.split(" vs ", 1))
            rows.append(Row(a, b))
        else:
            raise LadderError(f"a row is 'A vs B' or a row number, got {item!r}")
    return rows


def parse_seeds(text: str) -> range:
    """``FIRST-LAST`` (inclusive) or ``FIRST`` (and every seed after it)."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m:
        raise LadderError(f"seeds are FIRST-LAST or FIRST, got {text!r}")
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) else first + 1_000_000
    if last < first:
        raise LadderError(f"seeds {text!r}: the last is below the first")
    return range(first, last + 1)


def code_version(root: str | None = None) -> str:
    """The commit the code runs at (with ``-dirty-<hash of the diff>`` for uncommitted
    changes), or the package's version outside a git checkout."""
    here = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True, text=True, check=True
        ).stdout.strip()
        diff = subprocess.run(["git", "diff", "HEAD"], cwd=here, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        from importlib.metadata import PackageNotFoundError, version

        try:
            return f"pokerbot-{version('pokerbot')}"
        except PackageNotFoundError:
            return "unknown"
    return head if not diff else f"{head}-dirty-{hashlib.sha256(diff).hexdigest()[:8]}"


@dataclass(frozen=True)
class ChunkSpec:
    """Everything a chunk is played with; ``identity`` is what pooling compares."""

    a: str
    b: str
    seed: int
    pairs: int
    out_dir: str
    game: str
    blueprint: str | None
    blueprint_digest: str | None
    commit: str
    limits: dict = field(default_factory=dict)
    concurrent: bool = False
    at_once: int = 1  # chunks played at the same time (the pace per machine is seconds / at_once)

    @property
    def identity(self) -> dict:
        """What must be equal for two chunks of a row to be pooled."""
        return {
            "commit": self.commit,
            "game": os.path.basename(self.game),
            "blueprint_digest": self.blueprint_digest,
            "limits": dict(sorted(self.limits.items())),
        }


#: Pairs half the pooled pairs need before AIVAT's weight in the headline is fitted
#: (heavy tails make a weight fitted on fewer unreliable).
MIN_FIT_PAIRS = 500

#: A chunk's figures per pair: raw, all-in adjusted, AIVAT (check-down values) and AIVAT
#: with the solves' own values at the solving agents' decisions.
SERIES = ("raw", "allin_adjusted", "aivat", "aivat_solver")


def pair_series(aivat_csv: str) -> dict[str, list[float]]:
    """Per deal played in both seat orders, A's mean over the two (chips) of each of
    ``SERIES``, from a match's ``aivat.csv``; deals in hand order."""
    by_run: dict[str, dict[int, dict[str, float]]] = {}
    with open(aivat_csv, newline="") as f:
        for row in csv.DictReader(f):
            by_run.setdefault(row["run"], {})[int(row["hand"])] = {k: float(row[k]) for k in SERIES}
    if set(by_run) != {"match1", "match2"}:
        raise LadderError(f"{aivat_csv}: a duplicate match has runs match1 and match2, found {sorted(by_run)}")
    hands = sorted(by_run["match1"].keys() & by_run["match2"].keys())
    return {k: [(by_run["match1"][h][k] + by_run["match2"][h][k]) / 2 for h in hands] for k in SERIES}


def run_chunk(spec: ChunkSpec) -> dict:
    """Play one chunk (a duplicate match with common random numbers and AIVAT) and
    write its ``chunk.json`` (atomically: a chunk is either recorded whole or not at
    all). Returns the record."""
    from pokerbot.bot.evaluation import match
    from pokerbot.bot.strategies import BLUEPRINT_ENV
    from pokerbot.protocol.dealer import run_event_loop

    if spec.blueprint:
        os.environ[BLUEPRINT_ENV] = spec.blueprint  # the players (subprocesses) open this store
    os.makedirs(spec.out_dir, exist_ok=True)
    game = load_gamedef(spec.game)
    t0 = time.time()
    summary = run_event_loop(
        match.run(
            game,
            spec.game,
            spec.pairs,
            spec.seed,
            (spec.a, spec.b),
            duplicate=True,
            out_dir=spec.out_dir,
            limits=spec.limits or None,
            common_random_numbers=True,
            concurrent=spec.concurrent,
            aivat=True,
            cpus=max(1, usable_cpus() // spec.at_once),  # chunks at once share the machine
        )
    )
    seconds = time.time() - t0
    if not summary["ok"]:
        errors = "; ".join(str(m["error"]) for m in summary["matches"] if m["error"])
        raise LadderError(f"{spec.a} vs {spec.b}, seed {spec.seed}: the match failed ({errors})")
    series = pair_series(os.path.join(spec.out_dir, "aivat.csv"))
    if len(series["aivat"]) != spec.pairs:
        raise LadderError(f"{spec.out_dir}: {len(series['aivat'])} of {spec.pairs} pairs were played in both orders")
    record = {
        "row": {"a": spec.a, "b": spec.b},
        "seed": spec.seed,
        "pairs": spec.pairs,
        **spec.identity,
        "blueprint": spec.blueprint,
        "concurrent": spec.concurrent,
        "at_once": spec.at_once,
        "host": os.uname().nodename,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "seconds": round(seconds, 3),
        "big_blind": game.big_blind,
        "aivat_fallback_hands": summary["aivat"]["fallback_hands"],
        "chips_per_pair": series,
    }
    write_record(spec.out_dir, record)
    return record


def write_record(chunk_dir: str, record: dict) -> None:
    os.makedirs(chunk_dir, exist_ok=True)
    tmp = os.path.join(chunk_dir, "chunk.json.tmp")
    with open(tmp, "w") as f:
        json.dump(record, f)
    os.replace(tmp, os.path.join(chunk_dir, "chunk.json"))


def read_records(out_dir: str, row: Row) -> list[dict]:
    """The finished chunks of a row (unreadable ones are skipped: played again)."""
    records: list[dict] = []
    row_dir = os.path.join(out_dir, row.key)
    if not os.path.isdir(row_dir):
        return records
    for name in sorted(os.listdir(row_dir)):
        path = os.path.join(row_dir, name, "chunk.json")
        if not name.startswith("seed-") or not os.path.exists(path):
            continue
        try:
            with open(path) as f:
                r = json.load(f)
            if r["row"] == {"a": row.a, "b": row.b} and len(r["chips_per_pair"]["aivat"]) == r["pairs"]:
                records.append(r)
        except (ValueError, KeyError, TypeError, OSError):
            continue
    return records


def plan_chunks(
    out_dir: str,
    rows: list[Row],
    chunks: int,
    pairs: int,
    seeds: range,
    make_spec: Callable[[Row, int, str], ChunkSpec],
) -> list[ChunkSpec]:
    """``chunks`` new chunks per row, each on the lowest seed of ``seeds`` that the row
    has no finished chunk of (a directory without ``chunk.json`` is played again)."""
    specs = []
    for row in rows:
        taken = {r["seed"] for r in read_records(out_dir, row)}
        free = (s for s in seeds if s not in taken)
        for _ in range(chunks):
            seed = next(free, None)
            if seed is None:
                raise LadderError(
                    f"{row}: no free seed left in {seeds.start}-{seeds.stop - 1} for {chunks} chunks (every seed "
                    f"keeps its chunk, of whatever commit; give --seeds a wider range or another --out)"
                )
            specs.append(make_spec(row, seed, os.path.join(out_dir, row.key, f"seed-{seed}")))
    return specs


def _series_summary(values: np.ndarray, big_blind: int) -> dict:
    mbb = values / big_blind * 1000.0
    n = len(mbb)
    mean = float(mbb.mean()) if n else float("nan")
    sd = float(mbb.std(ddof=1)) if n > 1 else float("nan")
    return {"mean": mean, "sd": sd, "ci95": Z95 * sd / math.sqrt(n) if n > 1 else float("nan")}


def pool(records: list[dict], identity: dict | None = None, target: float = 100.0) -> dict:
    """The pooled figures of a row's chunks that share ``identity`` (default: the most
    recent chunk's): pairs; raw, duplicate (all-in adjusted), AIVAT (check-down values,
    and the solves' own), and the headline ``combined`` (duplicate plus AIVAT's
    difference from it, weighted by cross-fitting)
    means with 95 % intervals; the headline's variance ratio to duplicate alone; the
    pairs still needed for significance at the observed effect and the pairs (and hours,
    at the chunks' pace) for an interval of +-``target``."""
    if not records:
        return {"chunks": 0, "pairs": 0, "other_chunks": 0}
    if identity is None:
        identity = {k: max(records, key=lambda r: r["finished"])[k] for k in _IDENTITY_KEYS}
    same = [r for r in records if {k: r[k] for k in _IDENTITY_KEYS} == identity]
    if not same:
        return {"identity": identity, "chunks": 0, "pairs": 0, "other_chunks": len(records)}
    seen: set[int] = set()
    unique = []
    for r in sorted(same, key=lambda r: r["seed"]):
        if r["seed"] not in seen:  # the same seed copied in twice is the same deals: counted once
            seen.add(r["seed"])
            unique.append(r)
    bb = unique[0]["big_blind"]
    out: dict = {
        "identity": identity,
        "chunks": len(unique),
        "other_chunks": len(records) - len(same),
        "seeds": [r["seed"] for r in unique],
    }
    series = {
        kind: np.concatenate([np.asarray(r["chips_per_pair"][kind], dtype=np.float64) for r in unique])
        for kind in SERIES
    }
    # the headline: duplicate plus AIVAT's difference from it (expectation 0), with a
    # weight in [0, 1] cross-fitted once a half has MIN_FIT_PAIRS pairs (AIVAT before)
    duplicate = series["allin_adjusted"]
    combined, weights = cross_fitted(
        duplicate,
        (series["aivat"] - duplicate)[:, None],
        np.arange(len(duplicate)) % 2,
        min_fit=MIN_FIT_PAIRS,
        bounds=(0.0, 1.0),
    )
    series["combined"] = combined
    for kind, values in series.items():
        out[kind] = _series_summary(values, bb)
    out["aivat_weight"] = [round(float(w), 3) for w in weights[:, 0]]
    n = out["pairs"] = len(duplicate)
    c, d = out["combined"], out["allin_adjusted"]
    out["variance_ratio"] = (d["sd"] / c["sd"]) ** 2 if c["sd"] and c["sd"] > 0 else float("nan")
    out["significant"] = bool(n > 1 and abs(c["mean"]) > c["ci95"])
    need = (Z95 * c["sd"] / abs(c["mean"])) ** 2 if c["mean"] else float("inf")
    out["pairs_for_significance"] = max(0, math.ceil(need - n)) if math.isfinite(need) else None
    out["pairs_for_target"] = math.ceil((Z95 * c["sd"] / target) ** 2) if math.isfinite(c["sd"]) else None
    seconds = sum(r["seconds"] / r.get("at_once", 1) for r in unique) / n
    out["seconds_per_pair"] = seconds  # of the machine's time: wall time over the chunks played at once
    pairs_for_target = out["pairs_for_target"]
    out["hours_for_target"] = pairs_for_target * seconds / 3600 if pairs_for_target is not None else None
    return out


_IDENTITY_KEYS = ("commit", "game", "blueprint_digest", "limits")


def table(out_dir: str, rows: list[Row], identity: dict | None = None, target: float = 100.0) -> list[dict]:
    """The pooled figures of every row (see ``pool``)."""
    return [{"row": str(row), **pool(read_records(out_dir, row), identity, target)} for row in rows]


def format_table(lines: list[dict], target: float = 100.0) -> str:
    """The table as Markdown: one line a row."""
    head = (
        "| A vs B | pairs | A's mbb/hand | AIVAT | AIVAT, solves' values | duplicate alone | variance cut | "
        f"significant | pairs more to significance | pairs (hours) for ±{target:g} |"
    )
    out = [head, "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for x in lines:
        if not x["chunks"]:
            other = f" ({x['other_chunks']} chunks of other commits or options)" if x.get("other_chunks") else ""
            out.append(f"| {x['row']} | 0{other} | | | | | | | | |")
            continue
        c, a, v, d = x["combined"], x["aivat"], x["aivat_solver"], x["allin_adjusted"]
        need = x["pairs_for_significance"]
        more = "-" if x["significant"] else ("n/a" if need is None else f"{need:,}")
        plan = "n/a" if x["pairs_for_target"] is None else f"{x['pairs_for_target']:,} ({x['hours_for_target']:,.1f} h)"
        other = f" (+{x['other_chunks']} not pooled)" if x["other_chunks"] else ""
        out.append(
            f"| {x['row']} | {x['pairs']:,}{other} | **{c['mean']:+,.0f} ± {c['ci95']:,.0f}** | "
            f"{a['mean']:+,.0f} ± {a['ci95']:,.0f} | {v['mean']:+,.0f} ± {v['ci95']:,.0f} | "
            f"{d['mean']:+,.0f} ± {d['ci95']:,.0f} | {x['variance_ratio']:.1f}x | "
            f"{'yes' if x['significant'] else 'no'} | {more} | {plan} |"
        )
    return "\n".join(out)


def run_chunks(specs: list[ChunkSpec], parallel: int, ray_address: str | None = None, on_done=None) -> list:
    """Play the chunks: ``parallel`` at a time in processes here, or as Ray tasks on the
    cluster at ``ray_address`` (one CPU each). ``on_done(spec, record or exception)``
    is called as each finishes; a failed chunk leaves no record and does not stop the
    others. Returns the records and exceptions, in the order of ``specs``."""
    results: list = [None] * len(specs)
    if ray_address is not None:
        import ray

        if not ray.is_initialized():
            ray.init(address=ray_address, logging_level=logging.WARNING, log_to_driver=False)
        remote = ray.remote(num_cpus=1, max_retries=1)(run_chunk)
        pending = {remote.remote(spec): i for i, spec in enumerate(specs)}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(done[0])
            try:
                record = ray.get(done[0])
                write_record(specs[i].out_dir, record)  # the head keeps the record, wherever it was played
                results[i] = record
            except Exception as e:  # a failed task: reported, the others go on
                results[i] = e
            if on_done is not None:
                on_done(specs[i], results[i])
        return results
    if parallel <= 1:
        for i, spec in enumerate(specs):
            try:
                results[i] = run_chunk(spec)
            except Exception as e:
                results[i] = e
            if on_done is not None:
                on_done(spec, results[i])
        return results
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(parallel) as pool_:
        futures = {pool_.submit(run_chunk, spec): i for i, spec in enumerate(specs)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as e:
                results[i] = e
            if on_done is not None:
                on_done(specs[i], results[i])
    return results


def spec_maker(
    game: str,
    blueprint: str | None,
    pairs: int,
    limits: dict,
    concurrent: bool,
    commit: str | None = None,
    at_once: int = 1,
) -> Callable[[Row, int, str], ChunkSpec]:
    """Chunk specs of one run: the same game, blueprint, limits and commit for all."""
    digest = play_digest(blueprint) if blueprint and os.path.exists(blueprint) else None
    version = commit or code_version()

    def make(row: Row, seed: int, out_dir: str) -> ChunkSpec:
        return ChunkSpec(
            row.a, row.b, seed, pairs, out_dir, game, blueprint, digest, version, limits, concurrent, at_once
        )

    return make


def identity_of(make: Callable[[Row, int, str], ChunkSpec]) -> dict:
    """The pooling identity of the chunks ``make`` makes."""
    return make(Row("", ""), 0, "").identity


def as_json(lines: list[dict]) -> str:
    return json.dumps(lines, indent=2, default=lambda o: asdict(o) if hasattr(o, "__dataclass_fields__") else str(o))
