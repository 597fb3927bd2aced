"""``pokerbot warm --progress`` and the match's background warm-up: the stages in order,
the end, and a failure told rather than hidden."""

import io
import json
import os
import subprocess
import sys

import pytest

from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.bot.evaluation.match import PlayerSpec
from pokerbot.bot.kernel_warm import BackgroundWarm

pytestmark = pytest.mark.timeout(900)


def test_warm_prints_its_stages_in_order_then_done(small_blueprint):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pokerbot.bot.cli",
            "warm",
            "--progress",
            "--threads",
            "2",
            "--blueprint",
            small_blueprint,
        ],
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    stages = [x for x in lines if "stage" in x]
    assert [x["stage"] for x in stages] == list(LibratusAgent.KERNEL_STAGES)
    assert [x["index"] for x in stages] == list(range(len(stages))) and {x["stages"] for x in stages} == {len(stages)}
    assert "done" in lines[-1] and lines[-1]["compiled"] >= 0


def test_the_background_warm_up_ends_and_a_failure_is_told(small_blueprint, tmp_path):
    warm = BackgroundWarm(1, small_blueprint)
    out = io.StringIO()
    assert warm.wait(stream=out)
    assert warm.done is not None and warm.index == warm.stages - 1 == 3  # one thread: no threaded stage
    assert "stage 4 of 4 (blueprint lookups)" in warm.status() and warm.running_status() is None
    broken = BackgroundWarm(1, str(tmp_path / "missing.bp"))
    out = io.StringIO()
    assert not broken.wait(stream=out)
    assert "loading the agent's kernels failed" in out.getvalue() and "missing.bp" in out.getvalue()
    out = io.StringIO()
    broken.close(out)  # the match's end says it too
    assert "failed (the players compiled them)" in out.getvalue()


def test_before_the_first_hand_the_progress_line_says_what_the_warm_up_is_at():
    from pokerbot.bot.evaluation.match import MatchProgress
    from pokerbot.bot.progress import ProgressBar

    at = ["compiling the agent's kernels: stage 2 of 4 (the solver on one thread)"]
    bar = ProgressBar(10, "hands", stream=io.StringIO(), tty=False)
    progress = MatchProgress(10, 100, "x", bar=bar, start=100.0, starting=lambda: at[0])
    assert progress.status(now=130.0) == (0, "starting the players, 30s; " + at[0])
    at[0] = None  # the warm-up ended
    assert "they load the blueprint and their kernels" in progress.status(now=131.0)[1]


def test_a_match_warms_for_the_most_threads_its_agents_ask_for(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    specs = ("libratus", "unsafe --threads 2", "libratus --threads=4", "libratus --threads auto")
    assert [PlayerSpec("A", s).solver_threads for s in specs] == [3, 2, 4, 3]  # by default every CPU
    assert [PlayerSpec("A", s, threads=1).solver_threads for s in specs] == [1, 2, 4, 3]  # a match's share
    assert PlayerSpec("B", "random").solver_threads is None and PlayerSpec("B", "blueprint").solver_threads is None
    assert PlayerSpec("B", "./bot --threads 3").solver_threads is None  # not ours
