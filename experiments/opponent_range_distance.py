"""How far the opponent's true range is from what the agent's first solve assumes of it,
at the turn roots a ``pokerbot subgames`` run drew: the total-variation distance between
the opponent's range as its own blueprint plays the line (``opponent_model``) and ours
of it as played, raw and pooled (``opponent_ranges``), and the share of the true range
on hands our model gives none. Ranges are normalised over the hands the board leaves.
It also prints the median time each model takes to compute the ranges at a root (the
agent pays it once a round, before its first solve).

    .venv/bin/python experiments/opponent_range_distance.py RUN --opponent-blueprint PATH [--blueprint PATH] [--roots N]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from pokerbot.bot.agent.config import OPPONENT_RANGES
from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.bot.evaluation import subgames as sg
from pokerbot.protocol.gamedef import bundled_game


def distances(run: str, ours: str, theirs: str, roots: int | None) -> dict[str, np.ndarray]:
    """Per model, per root: (total-variation distance, true mass where the model has none,
    seconds to compute the model's ranges)."""
    game = bundled_game(sg.GAME)
    with open(os.path.join(run, "spots.json")) as f:
        spots = [sg.Spot(**s) for s in json.load(f)["spots"]][:roots]
    store = sg.store_of(ours)
    models = {m: LibratusAgent(1, store, opponent_ranges=m) for m in OPPONENT_RANGES}
    truth = LibratusAgent(1, store, opponent_model=sg.store_of(theirs))
    out: dict[str, list] = {m: [] for m in models}
    for spot in spots:
        root, me = spot.root(game), spot.seat
        t = truth.first_solve_ranges(root, me)[1 - me]
        t = t / t.sum()
        for m, agent in models.items():
            start = time.perf_counter()
            r = agent.first_solve_ranges(root, me)[1 - me]
            seconds = time.perf_counter() - start
            r = r / r.sum()
            out[m].append((0.5 * float(np.abs(r - t).sum()), float(t[r == 0].sum()), seconds))
    return {m: np.array(v) for m, v in out.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a pokerbot subgames run directory (its spots.json)")
    p.add_argument("--opponent-blueprint", required=True, help="the opponent's blueprint store")
    p.add_argument("--blueprint", default="blueprints/default.bp", help="ours (default blueprints/default.bp)")
    p.add_argument("--roots", type=int, default=None, help="the first N roots only (default all)")
    args = p.parse_args()
    for m, v in distances(args.run, args.blueprint, args.opponent_blueprint, args.roots).items():
        print(
            f"{m:>7}: total variation {v[:, 0].mean():.3f} (median {np.median(v[:, 0]):.3f}) over {len(v)} roots; "
            f"true mass on hands the model gives none {v[:, 1].mean():.3f}; "
            f"{1000 * np.median(v[:, 2]):.2f} ms a root (median)"
        )


if __name__ == "__main__":
    main()
