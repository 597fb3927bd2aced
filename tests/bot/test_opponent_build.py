"""``pokerbot opponent build``: the resumable steps (``opponents.recipe``), the source
it is given, the launcher it writes and its settings, against a stand-in for the real
program (a folder with its layout whose ``run_bot`` checks the arguments it is given and
plays the ``call`` bot); and, where a local copy of Slumbot 2017's source is named by
$POKERBOT_SLUMBOT_SOURCE, the real build (``-m slumbot``: about half an hour on 2 cores
and 11 GB of memory)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

from pokerbot.bot.opponents import build, slumbot2017
from pokerbot.bot.opponents.recipe import BuildError, Step, run_steps


def test_steps_resume_where_they_stopped_and_a_changed_step_is_redone(tmp_path):
    out = str(tmp_path / "b")
    count = tmp_path / "count"

    def step(name, text, fail=False):
        command = ["sh", "-c", f"echo {text} >> {count}" + ("; echo broken >&2; exit 3" if fail else "")]
        return Step(name, [command], f"writes {text}")

    stream = io.StringIO()
    with pytest.raises(BuildError) as e:
        run_steps(out, [step("one", "a"), step("two", "b", fail=True), step("three", "c")], stream)
    assert "step 'two' failed (exit status 3)" in str(e.value) and "broken" in str(e.value)
    assert count.read_text().split() == ["a", "b"]
    run_steps(out, [step("one", "a"), step("two", "b"), step("three", "c")], stream)
    assert count.read_text().split() == ["a", "b", "b", "c"]  # one was done: not run again
    run_steps(out, [step("one", "a"), step("two", "B"), step("three", "c")], stream)
    assert count.read_text().split() == ["a", "b", "b", "c", "B", "c"]  # two changed: it and what follows
    assert "[1/3] one: done earlier" in stream.getvalue()
    assert os.path.exists(os.path.join(out, "logs", "02-two.log"))


def fake_source(folder) -> str:
    """A folder with Slumbot 2017's layout (a Makefile, src/files.cpp) in a git repository."""
    os.makedirs(folder / "src")
    (folder / "Makefile").write_text("all:\n")
    (folder / "src" / "files.cpp").write_text("// stand-in\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(folder), *command], check=True)
    return str(folder)


def test_the_source_is_cloned_or_copied_and_a_wrong_one_is_refused(tmp_path):
    repo = fake_source(tmp_path / "repo")
    commit = slumbot2017.fetch_source(repo, str(tmp_path / "clone"))
    assert len(commit) == 7 and (tmp_path / "clone" / "src" / "files.cpp").exists()
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "Makefile").write_text("")
    with pytest.raises(BuildError, match="does not hold Slumbot 2017"):
        slumbot2017.fetch_source(str(plain), str(tmp_path / "copy"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(BuildError, match="neither its repository nor a copy"):
        slumbot2017.fetch_source(str(tmp_path / "empty"), str(tmp_path / "copy2"))
    with pytest.raises(BuildError, match="cannot clone"):
        slumbot2017.fetch_source("https://invalid.invalid/x.git", str(tmp_path / "copy3"))


def test_the_recipe_patches_compiles_abstracts_and_trains_in_resumable_batches(tmp_path):
    settings = slumbot2017.Settings(threads=2, batches=3, iterations_per_batch=1000, endgame="river")
    steps = slumbot2017.build_steps(str(tmp_path), settings)
    names = [s.name for s in steps]
    assert names[:2] == ["patch", "compile"] and names[-1] == "endgame strategy"
    train = [s for s in steps if s.name.startswith("train")]
    assert [s.name for s in train] == ["train batch 1", "train batch 2", "train batch 3"]
    more = slumbot2017.build_steps(str(tmp_path), slumbot2017.Settings(threads=2, batches=4, iterations_per_batch=1000))
    assert [s.identity for s in more[: len(steps) - 1]] == [s.identity for s in steps[:-1]]  # trained further: kept
    assert [s.commands[0][6:8] for s in train] == [["0", "0"], ["2", "2"], ["4", "4"]]  # batches advance by threads
    assert all(s.env["SLUMBOT_DATA"] == str(tmp_path / "data") for s in steps[2:])
    for patch in slumbot2017.PATCHES:
        assert os.path.exists(os.path.join(slumbot2017.HERE, patch))
    assert settings.iterations == 6000 and settings.last_checkpoint == 4
    for bad in (slumbot2017.Settings(endgame="turn"), slumbot2017.Settings(batches=0)):
        with pytest.raises(BuildError):
            bad.verify()


STAND_IN = textwrap.dedent(
    """\
    #!{python}
    # a stand-in for Slumbot 2017's run_bot: checks what the launcher gives it, then
    # plays the call bot on the dealer it was pointed at
    import os, sys
    args = sys.argv[1:]
    assert len(args) == 13, args
    assert os.path.isdir(os.environ["SLUMBOT_DATA"]), os.environ["SLUMBOT_DATA"]
    assert args[0].endswith("runs/holdem_params") and args[3].endswith("acpcb_params"), args
    with open(os.path.join(os.environ["SLUMBOT_DATA"], "args.json"), "w") as f:
        import json; json.dump(args, f)
    play = ["-m", "pokerbot.bot.cli", "play", args[-2], args[-1], "--strategy", "call"]
    os.execv(sys.executable, [sys.executable, *play])
    """
)


def stand_in_steps(out: str, settings) -> list[Step]:
    """The real recipe's layout, its programs replaced by the stand-in."""
    src = os.path.join(out, "src")
    script = os.path.join(out, "stand-in.py")
    with open(script, "w") as f:
        f.write(STAND_IN.format(python=sys.executable))
    return [
        Step(
            "stand-in",
            [
                ["mkdir", "-p", os.path.join(src, "bin"), os.path.join(out, "data")],
                ["cp", script, os.path.join(src, "bin", "run_bot")],
                ["chmod", "+x", os.path.join(src, "bin", "run_bot")],
            ],
            "the stand-in",
        ),  # fmt: skip
    ]


def test_the_launcher_plays_a_match_and_a_folder_keeps_its_settings(tmp_path, monkeypatch):
    from pokerbot.bot.cli import main

    source = fake_source(tmp_path / "repo")
    monkeypatch.setattr(slumbot2017, "build_steps", stand_in_steps)
    out = str(tmp_path / "sb")
    settings = slumbot2017.Settings(threads=1, batches=2, iterations_per_batch=10)
    record = build.build_opponent("slumbot2017", source, out, settings, io.StringIO())
    assert record["iterations"] == 20 and record["license"].startswith("MIT")
    run = os.path.join(out, "run")
    assert os.access(run, os.X_OK) and "20 targeted CFR" in open(run).read()
    assert subprocess.run([run], capture_output=True).returncode == 2  # usage
    results = str(tmp_path / "m")
    assert main(["match", "call", run, "--hands", "20", "--out", results, "--no-progress"]) == 0
    summary = json.load(open(os.path.join(results, "summary.json")))
    assert summary["ok"] and summary["hands"] == 20
    args = json.load(open(os.path.join(out, "data", "args.json")))
    assert args[8:10] == ["4", "0"] and args[10] == "1"  # no endgame solving; the last checkpoint
    with pytest.raises(BuildError, match="holds another build"):
        build.build_opponent("slumbot2017", source, out, slumbot2017.Settings(threads=2), io.StringIO())
    with pytest.raises(BuildError, match="can grow, not shrink"):
        build.build_opponent("slumbot2017", source, out, slumbot2017.Settings(1, 1, 10), io.StringIO())
    more = slumbot2017.Settings(threads=1, batches=3, iterations_per_batch=10)  # trained further: allowed
    assert build.build_opponent("slumbot2017", source, out, more, io.StringIO())["iterations"] == 30
    assert main(["opponent", "build", "slumbot2017", "--source", str(tmp_path / "nowhere"), "--out", out]) == 1


@pytest.mark.slumbot
def test_the_real_program_builds_and_plays(tmp_path):
    """The real build from $POKERBOT_SLUMBOT_SOURCE (a copy of its repository), with
    little training, then 50 hands against the call bot on our dealer."""
    from pokerbot.bot.cli import main

    source = os.environ.get("POKERBOT_SLUMBOT_SOURCE")
    assert source, "set POKERBOT_SLUMBOT_SOURCE to a local copy of github.com/ericgjackson/slumbot2017"
    out = str(tmp_path / "sb")
    settings = slumbot2017.Settings(threads=2, batches=1, iterations_per_batch=100_000)
    build.build_opponent("slumbot2017", source, out, settings)
    results = str(tmp_path / "m")
    assert main(["match", os.path.join(out, "run"), "call", "--hands", "50", "--out", results, "--no-progress"]) == 0
    assert json.load(open(os.path.join(results, "summary.json")))["ok"]
