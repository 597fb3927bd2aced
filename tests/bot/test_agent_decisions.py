"""The agent plays the same decisions as when ``data/agent_decisions.json`` was
written: each solving configuration (every solving round and turn solver, the gadgets,
the opponent-range models, unsafe, purified), bound to a fixed iteration count, walked
through sampled subgames of the small blueprint (``pokerbot subgames``), where every
answer on every line enters the value. A refactor of the agent that changes any
decision changes a value. Regenerate (only for an intended change of play) with
``POKERBOT_WRITE_DECISIONS=1``."""

from __future__ import annotations

import json
import os

import pytest

from pokerbot.bot.cli.subgames import agent_spec
from pokerbot.bot.evaluation import subgames as sg

EXPECTED = os.path.join(os.path.dirname(__file__), "data", "agent_decisions.json")

#: (root, variant name, the agent's options as pokerbot play takes them)
CONFIGURATIONS = (
    ("turn", "turn-full", "libratus --turn-solver full"),
    ("turn", "turn-depth-limited", "libratus --turn-solver depth-limited"),
    ("turn", "turn-maxmargin", "libratus --turn-solver depth-limited --gadget maxmargin"),
    ("turn", "turn-played-ranges", "libratus --turn-solver full --opponent-ranges played"),
    ("turn", "turn-safe-first", "libratus --turn-solver full --first-solve safe"),
    ("turn", "river-solves", "libratus --solve-round 4"),
    ("turn", "unsafe", "unsafe --turn-solver depth-limited"),
    ("turn", "purified", "libratus --turn-solver full --purify"),
    ("flop", "flop-search", "libratus --solve-round 2"),
)


def walked_values(blueprint: str, out: str) -> dict[str, list[float]]:
    """Each configuration's subgame values on two keyed subgames of its root."""
    values: dict[str, list[float]] = {}
    for root in ("turn", "flop"):
        named = tuple((n, agent_spec(spec)) for r, n, spec in CONFIGURATIONS if r == root)
        config = sg.SubgamesConfig(
            blueprint=blueprint,
            variants=tuple(n for n, _ in named),
            agents=named,
            full_turn=(1, 12),
            river_cards=1,
            sampling="uniform",
            root=root,
        )
        sg.SubgamesRun(config, 2, os.path.join(out, root), progress=False).run()
        with open(os.path.join(out, root, "subgames.jsonl")) as f:
            rows = sorted((json.loads(line) for line in f), key=lambda r: r["index"])
        for name, _ in named:
            values[name] = [r["values"][name] for r in rows]
    return values


@pytest.mark.slow
def test_the_agent_plays_the_decisions_it_played(small_blueprint, tmp_path, monkeypatch):
    from pokerbot.solver import cfr

    monkeypatch.setattr(cfr, "libratus_iterations", lambda pot, bb: 12)
    got = walked_values(small_blueprint, str(tmp_path))
    if os.environ.get("POKERBOT_WRITE_DECISIONS"):
        with open(EXPECTED, "w") as f:
            json.dump(got, f, indent=1)
    with open(EXPECTED) as f:
        expected = json.load(f)
    assert set(got) == set(expected)
    for name, values in expected.items():
        assert got[name] == pytest.approx(values, rel=1e-6, abs=1e-3), name
    assert len({tuple(round(v, 3) for v in vs) for vs in got.values()}) == len(got)  # each plays otherwise
