"""Duplicate matches played in parts, pooled by deal; and two players' results against
the same opponent on the same deals, paired by deal.

Each part is the output folder of one ``pokerbot match --duplicate --aivat``: one
duplicate pair (``match1``, ``match2``: the same deals, seats swapped) scored in its
``aivat.csv``. A deal's value is the mean of player A's two seats, as in the match's own
summary; deals not played in both seats are left out. Pooled parts must have the same
players and game and different deal seeds (the same seed deals the same cards twice).
A paired difference takes, for each seed, the deals both players played against the
same player B, and scores A's value minus the other A's value deal by deal: the cards
cancel, so the interval is that of the difference, not of two independent means.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass

import numpy as np

from pokerbot.bot.evaluation.stats import summarize
from pokerbot.protocol.gamedef import bundled_game

#: aivat.csv's columns pooled: the all-in adjusted result, AIVAT, AIVAT with the solves' values.
COLUMNS = ("allin_adjusted", "aivat", "aivat_solver")
COLUMN_NAMES = {
    "allin_adjusted": "duplicate",
    "aivat": "duplicate with AIVAT",
    "aivat_solver": "  with the solves' values",
}


class PoolError(ValueError):
    """The folders cannot be pooled (missing files, other players, the same deals)."""


@dataclass(frozen=True)
class MatchPart:
    """One finished duplicate match: its summary, and per column its deals' values (chips,
    player A's mean over the two seats) keyed by the deal's hand number."""

    folder: str
    summary: dict
    deals: dict[str, dict[int, float]]

    @property
    def seed(self) -> object:
        return self.summary.get("seed")

    @property
    def players(self) -> dict:
        return self.summary.get("players") or {}

    @property
    def game(self) -> str:
        game = self.summary.get("game")
        if not isinstance(game, str):
            raise PoolError(f"{self.folder}: summary.json names no game")
        return game


def read_part(out_dir: str) -> MatchPart:
    """The match in ``out_dir`` (its ``summary.json`` and ``aivat.csv``)."""
    try:
        with open(os.path.join(out_dir, "summary.json")) as f:
            summary = json.load(f)
        with open(os.path.join(out_dir, "aivat.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, json.JSONDecodeError) as e:
        raise PoolError(f"{out_dir}: not a finished duplicate match with AIVAT ({e})") from e
    by_run: dict[str, dict[int, dict]] = {}
    try:
        for r in rows:
            by_run.setdefault(r["run"], {})[int(r["hand"])] = r
        if sorted(by_run) != ["match1", "match2"]:
            raise PoolError(
                f"{out_dir}: aivat.csv holds runs {sorted(by_run)}, not one duplicate pair (match1, match2)"
            )
        first, second = by_run["match1"], by_run["match2"]
        common = sorted(first.keys() & second.keys())
        deals = {c: {h: (float(first[h][c]) + float(second[h][c])) / 2 for h in common} for c in COLUMNS}
    except (KeyError, TypeError, ValueError) as e:
        raise PoolError(f"{out_dir}: aivat.csv is malformed ({e!r})") from e
    return MatchPart(out_dir, summary, deals)


def read_parts(out_dirs: list[str]) -> list[MatchPart]:
    """The parts of one pooled match, checked: same players and game, distinct seeds."""
    if not out_dirs:
        raise PoolError("no match folders given")
    parts = [read_part(d) for d in out_dirs]
    first = parts[0]
    seeds = set()
    for p in parts:
        if p.players != first.players or p.game != first.game:
            raise PoolError(f"{p.folder}: players or game differ from {first.folder}'s: {p.players} vs {first.players}")
        if p.seed in seeds:
            raise PoolError(f"{p.folder}: deal seed {p.seed} already pooled (the same cards twice)")
        seeds.add(p.seed)
    return parts


def pool(out_dirs: list[str]) -> dict:
    """The pooled summaries (``summarize`` of each column over all deals), the deals per
    part, and the players."""
    parts = read_parts(out_dirs)
    bb = bundled_game(parts[0].game).big_blind
    out: dict = {"players": parts[0].players, "deals": [len(p.deals["aivat"]) for p in parts]}
    for c in COLUMNS:
        out[c] = summarize(np.concatenate([list(p.deals[c].values()) for p in parts]), bb)
    return out


def paired_difference(out_dirs: list[str], minus_dirs: list[str]) -> dict:
    """Player A of ``out_dirs`` minus player A of ``minus_dirs``, deal by deal, over the
    deals both played (the same seed and hand number) against the same player B."""
    parts, others = read_parts(out_dirs), read_parts(minus_dirs)
    game, opponent = parts[0].game, parts[0].players.get("B")
    if others[0].game != game or others[0].players.get("B") != opponent:
        raise PoolError(
            f"{others[0].folder}: not the same opponent and game as {parts[0].folder}'s "
            f"({others[0].players.get('B')} vs {opponent})"
        )
    by_seed = {p.seed: p for p in others}
    missing = [p.folder for p in parts if p.seed not in by_seed]
    if missing:
        raise PoolError(f"{', '.join(missing)}: no part with the same deal seed to subtract")
    out: dict = {"players": {"A": parts[0].players.get("A"), "minus": others[0].players.get("A"), "B": opponent}}
    pairs = [(p, by_seed[p.seed]) for p in parts]
    out["deals"] = [len(p.deals["aivat"].keys() & q.deals["aivat"].keys()) for p, q in pairs]
    bb = bundled_game(game).big_blind
    for c in COLUMNS:
        diffs = [p.deals[c][h] - q.deals[c][h] for p, q in pairs for h in sorted(p.deals[c].keys() & q.deals[c].keys())]
        out[c] = summarize(np.array(diffs, dtype=float), bb)
    return out


def format_pool(r: dict) -> str:
    """``pool`` or ``paired_difference`` as the lines ``pokerbot pool`` prints."""
    players = r["players"]
    if "minus" in players:
        head = f"A: {players['A']}  minus A: {players['minus']}  B: {players['B']}"
    else:
        head = f"A: {players['A']}  B: {players['B']}"
    lines = [f"{head}  deals: {sum(r['deals'])} ({' + '.join(map(str, r['deals']))})"]
    for c in COLUMNS:
        s = r[c]
        if s["ci95"] is None:
            lines.append(f"{COLUMN_NAMES[c]:<26} {s['hands']} deal(s): no interval")
            continue
        verdict = "" if abs(s["mbb_per_hand"]) > s["ci95"] else "  (not significant)"
        lines.append(f"{COLUMN_NAMES[c]:<26} {s['mbb_per_hand']:+8.1f} mbb/hand  ± {s['ci95']:.1f} (95 %){verdict}")
    return "\n".join(lines)
