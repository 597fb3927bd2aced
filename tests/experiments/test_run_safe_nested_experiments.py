"""experiments/run_safe_nested_experiments.py: the runner of the safe-nested paper's
Tables 1 and 2 (docs/safe-nested-experiments.md), its smoke run end to end."""

from experiments import run_safe_nested_experiments as run
from experiments import subgame_experiments as se

TOLERANCE_MBB = 0.01  # the tables' rounding


def tables(markdown: str) -> dict[str, dict[str, list[str]]]:
    """Every table of the report by the heading above it: its rows by their first cell."""
    out: dict[str, dict[str, list[str]]] = {}
    heading = None
    for line in markdown.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("# ")
        elif line.startswith("|") and heading is not None and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out.setdefault(heading, {})[cells[0]] = cells[1:]
    return out


def detail_row(detail: dict[str, list[str]], method: str) -> list[str]:
    """A method's row of a detailed table, whose first cell may add a note in brackets."""
    if method in detail:
        return detail[method]
    return next(cells for name, cells in detail.items() if name.startswith(method + " ("))


def test_the_smoke_run_reports_both_tables_and_its_safe_methods_stay_safe(tmp_path):
    out = tmp_path / "results.md"
    assert run.main(["--quick", "--workers", "1", "--iterations", "30", "--output", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("Command: `")
    found = tables(text)
    one = found["Table 1: subgame solving against a poor blueprint (exploitability, mbb/h)"]
    two = found["Table 2: nested solving for an off-tree bet (exploitability, mbb/h)"]
    detail_one = found["Table 1, 2 buckets, ½/1 pot"]
    detail_two = found["Table 2, ½/1 pot vs ½/¾/1 pot"]
    # the comparison's column is the detailed table's figures, beside the paper's
    assert one["Method"] == ["ours: 2 buckets, ½/1 pot", *(f"paper: {c}" for c in se.PAPER_TABLE1_COLUMNS)]
    for comparison, detail, paper in ((one, detail_one, se.PAPER_TABLE1), (two, detail_two, se.PAPER_TABLE2)):
        assert len(comparison) == len(detail) > 5
        for name, cells in comparison.items():
            if name != "Method":
                assert cells[0] == detail_row(detail, name)[0], name
                assert cells[1:] == ([f"{v:g}" for v in paper[name]] if name in paper else ["—"] * len(cells[1:]))
    # Table 1: a safe re-solve leaves no more than the blueprint did, up to its own solve's gap
    blueprint = float(one["Blueprint"][0])
    for name in (se.RESOLVE.name, se.MAXMARGIN.name, se.REACH_MAXMARGIN.name):
        mbb, solves, gap = detail_one[name][:3]
        assert int(solves) > 0
        assert float(mbb) <= blueprint + float(gap) + TOLERANCE_MBB, name


def test_the_setups_the_options_ask_for():
    def setups(*argv):
        return run.setups(run.parser().parse_args(list(argv)))

    full = setups("--iterations", "50", "--blueprint-iterations", "70")
    assert [(t, name) for t, name, _ in full] == [(1, n) for n in se.TABLE1_SETUPS] + [(2, "½/1 pot vs ½/¾/1 pot")]
    for _, name, s in full:
        assert s.subgame_iterations == 50 and s.game == "leduc.nolimit.2p"
        # a blueprint without a card abstraction is poor by its few iterations alone: kept
        expected = 70 if getattr(s, "blueprint_buckets", 0) is not None else se.TABLE1_SETUPS[name].blueprint_iterations
        assert s.blueprint_iterations == expected, name
    quick = setups("--quick", "--tables", "1,2")
    assert [t for t, _, _ in quick] == [1, 2]
    assert quick[0][2].blueprint_iterations <= 200 and quick[1][2].blueprint_iterations <= 300
    assert quick[1][2].raises == (1, 2)
    assert [t for t, _, _ in setups("--tables", "2")] == [2]


def test_a_game_whose_later_rounds_deal_several_cards_is_refused(capsys):
    assert run.main(["--game", "holdem.nolimit.2p"]) == 2
    assert "one board card" in capsys.readouterr().err
