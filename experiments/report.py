"""The experiment scripts' shared command line and report: a parser described by the
script's docstring, a smoke-run and an output option (the ``run_*.py`` runners), the
options of the spot tables (``depth_limited_spots.py``, ``flop_spots.py``) with their
JSON of every row, and a report that starts with the command, the machine and the wall
time, printed and optionally written to a file."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys


def parser(doc: str) -> argparse.ArgumentParser:
    """A script's parser: the first paragraph of its docstring ``doc`` as the
    description, kept as written."""
    return argparse.ArgumentParser(
        description=doc.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )


def add_run_options(p: argparse.ArgumentParser, smoke: str, report: str) -> None:
    """``--quick``, a smoke run (``smoke``: what it cuts), and ``--output``, also write
    the report (``report``: what it holds) to a file."""
    p.add_argument("--quick", action="store_true", help=f"a smoke run: {smoke}")
    p.add_argument("--output", help=f"also write the markdown {report} to this file")


def add_spot_options(p: argparse.ArgumentParser, spots: int) -> None:
    """What the spot tables share: the blueprint, how many spots (default ``spots``),
    the seed that draws them, and ``--out``, a JSON file with every row."""
    p.add_argument("--blueprint", required=True)
    p.add_argument("--spots", type=int, default=spots)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="JSON with every row")


def add_options(p: argparse.ArgumentParser, options: tuple[tuple[str, type, object, str], ...]) -> None:
    """Options given as (name, type, default, help) rows."""
    for name, kind, default, text in options:
        p.add_argument(name, type=kind, default=default, help=text)


def measured(measure, args: argparse.Namespace) -> dict:
    """``measure(args)``, also written to ``args.out`` as JSON when given."""
    result = measure(args)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    return result


def machine() -> str:
    """The cores, CPU model, Python version and system this runs on."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} vCPU ({model}), Python {platform.python_version()}, {platform.system()}"


def head(seconds: float) -> list[str]:
    """A report's first lines: the command that ran, the machine, the wall time."""
    return [
        f"Command: `{' '.join([os.path.basename(sys.executable), *sys.argv])}`",
        f"Machine: {machine()}",
        f"Wall time: {seconds:.0f} s",
    ]


def publish(text: str, output: str | None) -> None:
    """Print the report and, with ``output``, write it to that file too."""
    print("\n" + text)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
