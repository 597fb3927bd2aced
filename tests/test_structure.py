"""The package's structure, read from the sources: the layers import only downwards
(protocol <- solver <- blueprint_store <- bot), no module imports another's underscore
names, no two modules import each other even through others (imports inside functions
count), and bot/ keeps a short top floor."""

from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ("protocol", "solver", "blueprint_store", "bot")


def modules() -> dict[str, str]:
    """pokerbot.* module name -> source path."""
    out = {}
    for layer in LAYERS:
        for folder, _dirs, files in os.walk(os.path.join(ROOT, layer)):
            if "__pycache__" in folder:
                continue
            for name in files:
                if not name.endswith(".py"):
                    continue
                rel = os.path.relpath(os.path.join(folder, name), ROOT)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join(["pokerbot", *rel])] = os.path.join(folder, name)
    return out


def imports(name: str, path: str, known: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every import of a module, anywhere in it."""
    tree = ast.parse(open(path).read(), path)
    package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [a.name for a in node.names]
            # "from package import module" imports the module
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
            out += [(s, []) for s in subs]
            out.append((target, [n for n in names if f"{target}.{n}" not in known]))
    return [(t, n) for t, n in out if t.startswith("pokerbot.")]


KNOWN = modules()
GRAPH = {name: imports(name, path, KNOWN) for name, path in KNOWN.items()}


def layer_of(module: str) -> int:
    return LAYERS.index(module.split(".")[1])


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_a_layer_imports_only_from_itself_and_below_and_no_underscore_names(name):
    for target, names in GRAPH[name]:
        assert layer_of(target) <= layer_of(name), f"{name} imports {target}, a higher layer"
        private = [n for n in names if n.startswith("_")]
        assert not private, f"{name} imports {private} from {target}"


def test_no_import_cycles_between_modules():
    edges = {m: {t for t, _ in GRAPH[m] if t in KNOWN and t != m} for m in KNOWN}
    # a package's __init__ imported for a submodule is not an edge back to its parent
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == 1:
                cycle = stack[stack.index(t) :] + [t]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)


def test_the_check_finds_a_cycle_when_there_is_one():
    """Negative control: two modules that import each other are caught."""
    saved = dict(GRAPH)
    try:
        GRAPH["pokerbot.protocol.cards"] = GRAPH["pokerbot.protocol.cards"] + [("pokerbot.protocol.betting", [])]
        with pytest.raises(AssertionError, match="import cycle"):
            test_no_import_cycles_between_modules()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)


def test_bot_keeps_a_short_top_floor():
    top = [f for f in os.listdir(os.path.join(ROOT, "bot")) if f.endswith(".py") and f != "__init__.py"]
    assert len(top) <= 8, sorted(top)


#: What an agent may take from players/: what a player is (the strategy interface and
#: the white-box query), not how a player plays.
PLAYER_INTERFACE = ("pokerbot.bot.players.strategy_query", "pokerbot.bot.players.bots")
#: The blueprint's semantics live in blueprint_store/ (real_play, continuations).
BLUEPRINT_SEMANTICS = ("map_action", "raise_war_node", "concrete_action", "attach_blueprint_continuations")


def agent_imports_outside_the_player_interface(graph) -> list[str]:
    out = []
    for name in sorted(KNOWN):
        if not name.startswith("pokerbot.bot.agent"):
            continue
        for target, names in graph[name]:
            if target.startswith("pokerbot.bot.players") and target not in PLAYER_INTERFACE:
                out.append(f"{name} imports {target}")
            for n in names:
                if n in BLUEPRINT_SEMANTICS and not target.startswith("pokerbot.blueprint_store"):
                    out.append(f"{name} imports {n} from {target}")
    return out


def test_the_agent_takes_only_what_a_player_is_from_players():
    assert agent_imports_outside_the_player_interface(GRAPH) == []


def test_the_agent_check_finds_a_player_import():
    """Negative control: the agent importing the blueprint player is caught."""
    graph = dict(GRAPH)
    graph["pokerbot.bot.agent.libratus"] = GRAPH["pokerbot.bot.agent.libratus"] + [
        ("pokerbot.bot.players.blueprint_player", ["BlueprintStrategy", "map_action"])
    ]
    assert len(agent_imports_outside_the_player_interface(graph)) == 2
