"""experiments/run_improvement_experiment.py: the runner of the self-improvement
experiment (docs/self-improvement-experiment.md's table), its smoke run end to end."""

import pytest

from experiments import improvement_experiment as ie
from experiments import run_improvement_experiment as run


def rows_of(markdown: str) -> dict[str, list[str]]:
    """The exploitability table's rows by strategy (the first table whose header names
    "Our strategy")."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if "| Our strategy |" in line)
    out = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[1]] = cells
    return out


def number(cell: str) -> float:
    return float(cell.strip("*"))


def test_the_smoke_run_lowers_what_x_wins_and_its_control_changes_nothing(tmp_path, capsys):
    out = tmp_path / "results.md"
    assert run.main(["--quick", "--no-diagnostics", "--output", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("Command: `") and "\nMachine: " in text and "\nWall time: " in text
    assert text.strip() in capsys.readouterr().out  # the report is printed too
    rows = rows_of(text)
    before, floor = rows[ie.BEFORE], rows[ie.FLOOR]
    control = next(cells for name, cells in rows.items() if name.startswith(ie.CONTROL))
    assert all(cells[0] == "0.750" for cells in rows.values())  # --quick: one size, the first
    for cells in rows.values():
        first, second, mean = (number(c) for c in cells[2:5])
        assert mean == pytest.approx((first + second) / 2, abs=0.01)  # the mean of the two seats
        # what opening x gains: the row's mean over the floor's, where the opponent never raises first
        assert number(cells[5]) == pytest.approx(mean - number(floor[4]), abs=0.02)
        assert number(cells[5]) >= -0.01
    assert control[2:7] == before[2:7]  # an extension in a gap x never uses changes nothing
    after = [cells for name, cells in rows.items() if name.startswith("After type")]
    assert len(after) == 4  # types 2 and 1, per position and both players' openings changed
    for cells in after:
        assert number(cells[4]) < number(before[4]) / 2  # one improvement run: far less for x


def test_sizes_and_their_checks():
    setup = ie.ImprovementSetup()
    a, b = setup.gaps()[0]
    sizes = run.parse_sizes("0.75, mid,0.6", setup)
    assert sizes[0] == 0.75 and sizes[2] == 0.6 and a < sizes[1] < b
    assert run.main(["--sizes", "1.0", "--iterations", "1"]) == 2  # a base size: refused before any solve
    assert run.main(["--sizes", "3.0", "--iterations", "1"]) == 2  # beyond the largest base size
