#!/usr/bin/env python3
"""The safe-nested paper's Tables 1 and 2, in shape, on a small no-limit game whose
exploitability is exact (``experiments/subgame_experiments.py``; the write-up with a real
run is ``docs/safe-nested-experiments.md``).

    .venv/bin/python experiments/run_safe_nested_experiments.py [--game leduc.nolimit.2p]
        [--iterations 1000] [--blueprint-iterations N] [--tables 1,2] [--workers 2]
        [--quick] [--output results.md]

Progress goes to stdout as it runs; the markdown tables come at the end. The setups
run in a pool of ``--workers`` processes (each setup is deterministic, so the tables
do not depend on it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from experiments import report
from experiments import subgame_experiments as se


def _run(table: int, name: str, setup) -> tuple[int, str, list[se.Row]]:
    """One setup (in a worker process), printing its progress with its name."""

    def progress(message: str) -> None:
        print(f"[{name}] {message}", flush=True)

    rows = se.run_table1(setup, progress) if table == 1 else se.run_table2(setup, progress)
    return table, name, rows


def setups(args: argparse.Namespace) -> list[tuple[int, str, object]]:
    """The (table, column name, setup) runs the options ask for."""
    out: list[tuple[int, str, object]] = []
    tables = {int(t) for t in args.tables.split(",")}
    if 1 in tables:
        for name, s in se.TABLE1_SETUPS.items():
            s = replace(s, game=args.game, subgame_iterations=args.iterations)
            if args.blueprint_iterations and s.blueprint_buckets is not None:
                s = replace(s, blueprint_iterations=args.blueprint_iterations)
            if args.quick and s.blueprint_buckets is not None:
                s = replace(s, blueprint_iterations=min(s.blueprint_iterations, 200))
            out.append((1, name, s))
            if args.quick:
                break
    if 2 in tables:
        s = se.Table2Setup(game=args.game, subgame_iterations=args.iterations)
        if args.blueprint_iterations:
            s = replace(s, blueprint_iterations=args.blueprint_iterations)
        if args.quick:
            s = replace(s, raises=(1, 2), blueprint_iterations=min(s.blueprint_iterations, 300))
        out.append((2, "½/1 pot vs ½/¾/1 pot", s))
    return out


def parser() -> argparse.ArgumentParser:
    p = report.parser(__doc__)
    defaults = se.Table2Setup()  # the game and subgame iterations of Table 1's setups are the same
    p.add_argument(
        "--game",
        default=defaults.game,
        help="a bundled game or a game file whose later rounds deal one board card",
    )
    p.add_argument(
        "--iterations", type=int, default=defaults.subgame_iterations, help="CFR+ iterations of every subgame solve"
    )
    p.add_argument(
        "--blueprint-iterations",
        type=int,
        default=None,
        help="CFR+ iterations of the card-abstracted (Table 1) and small-abstraction (Table 2) blueprints",
    )
    p.add_argument("--tables", default="1,2", help="which tables: 1, 2 or 1,2")
    p.add_argument("--workers", type=int, default=2, help="processes running setups side by side")
    report.add_run_options(p, "one Table 1 setup, smaller trees", "tables")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        game = se.load_game(args.game)
        se.whole_game(game, se.Table2Setup().small)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    runs = setups(args)
    t0 = time.perf_counter()
    print(
        f"{len(runs)} setups on {args.game}, {args.iterations} CFR+ iterations per subgame, "
        f"{args.workers} workers; {report.machine()}",
        flush=True,
    )
    if args.workers > 1:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            results = list(pool.map(_run, *zip(*runs)))
    else:
        results = [_run(*r) for r in runs]
    seconds = time.perf_counter() - t0
    parts = [*report.head(seconds), ""]
    for table, title, paper, columns in (
        (1, "subgame solving against a poor blueprint", se.PAPER_TABLE1, se.PAPER_TABLE1_COLUMNS),
        (2, "nested solving for an off-tree bet", se.PAPER_TABLE2, se.PAPER_TABLE2_COLUMNS),
    ):
        ours = {name: rows for t, name, rows in results if t == table}
        if ours:
            parts += [
                f"## Table {table}: {title} (exploitability, mbb/h)",
                "",
                se.markdown_comparison(ours, paper, columns),
                "",
            ]
            for name, rows in ours.items():
                parts += [f"### Table {table}, {name}", "", se.markdown_table(rows), ""]
    report.publish("\n".join(parts), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
