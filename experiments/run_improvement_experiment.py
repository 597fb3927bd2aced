#!/usr/bin/env python3
"""Self-improvement measured exactly on no-limit Leduc: an opponent always opens the
first round with an off-tree size x; what a best-responding x-opener wins against us
before and after one improvement run (type 2: the gap's pseudo-harmonic midpoint added
and re-solved; type 1: re-solved with x; each per opponent position with our openings
kept, as the agent does now, and with both players' openings changed, as before the
fix), beside a control and references
(``experiments/improvement_experiment.py``; the write-up with a real run is
``docs/self-improvement-experiment.md``).

    .venv/bin/python experiments/run_improvement_experiment.py [--sizes 0.75,mid,0.6]
        [--iterations 2000] [--nested-iterations 1000] [--reference-iterations 10000]
        [--no-diagnostics] [--quick] [--output results.md]

Progress goes to stdout as it runs; the markdown table comes at the end. One process
(the trees are small); everything is deterministic.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from experiments import improvement_experiment as ie
from experiments import report
from pokerbot.solver.translation import pseudo_harmonic_midpoint

#: The setup's iteration counts the command line sets (their defaults the setup's), with their help.
ITERATION_OPTIONS = {
    "iterations": "CFR+ iterations of the blueprint and each re-solve",
    "nested_iterations": "nested reference solves (0: no row)",
    "reference_iterations": "best-answer reference solves (0: no row)",
}


def parse_sizes(text: str, setup: ie.ImprovementSetup) -> list[float]:
    """Comma-separated pot fractions; "mid" is the pseudo-harmonic midpoint of the base's
    first gap (type 2's added size: x = x')."""
    first = setup.gaps()[0]
    return [pseudo_harmonic_midpoint(*first) if s.strip() == "mid" else float(s) for s in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    p = report.parser(__doc__)
    p.add_argument(
        "--sizes",
        default="0.75,mid,0.6",
        help="the opponent's opening sizes x (pot fractions; 'mid' = the first gap's midpoint)",
    )
    defaults = ie.ImprovementSetup()
    for name, text in ITERATION_OPTIONS.items():
        p.add_argument("--" + name.replace("_", "-"), type=int, default=getattr(defaults, name), help=text)
    p.add_argument(
        "--no-diagnostics",
        action="store_true",
        help="leave out type 1 without all-in and the types with our first move kept",
    )
    report.add_run_options(p, "fewer raises and iterations, one size", "table")
    args = p.parse_args(argv)
    setup = ie.ImprovementSetup(
        **{name: getattr(args, name) for name in ITERATION_OPTIONS}, diagnostics=not args.no_diagnostics
    )
    sizes = parse_sizes(args.sizes, setup)
    if args.quick:
        setup = replace(
            setup,
            later_raises=2,
            iterations=min(setup.iterations, 300),
            nested_iterations=min(setup.nested_iterations, 300),
            reference_iterations=min(setup.reference_iterations, 1000),
        )
        sizes = sizes[:1]
    try:
        for x in sizes:
            setup.gap(x)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(
        f"{setup.game}: base first raises {', '.join(f'{f:g}' for f in setup.first_raises)} pot plus all-in; "
        f"opponent sizes {', '.join(f'{x:.3f}' for x in sizes)}; {setup.iterations} CFR+ iterations; "
        f"{report.machine()}",
        flush=True,
    )
    t0 = time.perf_counter()
    results, facts = ie.run(setup, sizes, progress=lambda m: print(m, flush=True))
    seconds = time.perf_counter() - t0
    text = "\n".join(
        [
            *report.head(seconds),
            f"Blueprint: {facts['base_nodes']} nodes, {setup.iterations} CFR+ iterations, "
            f"{facts['base_mbb']:.3f} mbb/h in its own abstraction",
            "",
            "Exploitability against the opponent's opening size x (mbb/h: what a best-responding "
            "opponent that must open x wins; lower is better) and in the whole evaluation game:",
            "",
            ie.markdown(results),
            "",
            "The first round's opening in each solve (probabilities by the private card's rank; the second "
            "player's after the first player's check; the per-position extensions are the ones for the "
            "opponent acting second, i.e. where we act first):",
            "",
            ie.ranges_markdown(facts["ranges"]),
            "",
        ]
    )
    report.publish(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
