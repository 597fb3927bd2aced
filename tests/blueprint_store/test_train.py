"""train_blueprint end to end with a stand-in card abstraction (the k-means tables have
their own tests): a store comes out, a checkpoint is kept, and --resume continues."""

import os
from types import SimpleNamespace

import numpy as np
import pytest

from pokerbot.blueprint_store import train
from pokerbot.blueprint_store.abstraction import HOLDEM_ROUNDS, CardAbstraction, CardAbstractionSpec
from pokerbot.blueprint_store.indexer import HandIndexer
from pokerbot.blueprint_store.store import Blueprint, play_digest
from pokerbot.solver import evaluator as ev

pytestmark = pytest.mark.timeout(300)


def fake_cards(spec, log=print, progress=None):
    ix = HandIndexer(HOLDEM_ROUNDS)
    return CardAbstraction(
        spec,
        ix.index_many(ev.all_hole_pairs()).astype(np.uint16),
        (np.arange(ix.size(1)) % spec.buckets[1]).astype(np.uint16),
        (np.arange(ix.size(2)) % spec.buckets[2]).astype(np.uint16),
        0.0,
    )


def test_train_write_and_resume(tmp_path, monkeypatch):
    monkeypatch.setattr(train, "build_card_abstraction", fake_cards)
    preset = train.Preset(
        "test", CardAbstractionSpec(buckets=(169, 4, 4, 4)), train.PRESETS["tiny"].actions, seconds=2.0, batch=2_000
    )
    out = str(tmp_path / "bp" / "t.bp")
    os.makedirs(os.path.dirname(out))
    lines = []
    first = train.train_blueprint(preset, out, threads=1, log=lines.append)
    assert first["iterations"] > 0 and os.path.exists(out)
    assert any("iterations" in x and "left" in x for x in lines)  # progress output
    bp = Blueprint(out)
    bp.verify()
    assert bp.header["training"]["iterations"] == first["iterations"]
    assert os.path.exists(out + ".ckpt/state.npz") and os.path.exists(out + ".ckpt/cards.npz")
    # resuming keeps the iterations already done and adds more
    lines.clear()
    second = train.train_blueprint(preset, out, threads=1, seconds=4.0, resume=True, log=lines.append)
    assert any("resumed at" in x for x in lines) and any("reused" in x for x in lines)
    assert second["iterations"] > first["iterations"]
    assert Blueprint(out).header["training"]["iterations"] == second["iterations"]


def test_one_thread_and_an_iteration_budget_train_the_same_store_again(tmp_path, monkeypatch):
    """Two trainings of one seed and iteration count on one thread play the same (equal
    play digests, though the training figures differ); another seed does not (control)."""
    monkeypatch.setattr(train, "build_card_abstraction", fake_cards)
    preset = train.Preset(
        "test", CardAbstractionSpec(buckets=(169, 4, 4, 4)), train.PRESETS["tiny"].actions, seconds=60.0, batch=2_000
    )
    digests = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        out = str(tmp_path / f"{name}.bp")
        train.train_blueprint(preset, out, threads=1, iterations=9_000, seed=seed, log=lambda x: None)
        digests.append(play_digest(out))
    assert digests[0] == digests[1] != digests[2]


def test_unknown_preset_and_wrong_game(tmp_path):
    from pokerbot.protocol.gamedef import bundled_game

    with pytest.raises(ValueError, match="unknown preset"):
        train.train_blueprint("huge", str(tmp_path / "x.bp"))
    with pytest.raises(ValueError, match="no-limit hold'em"):
        train.train_blueprint("tiny", str(tmp_path / "x.bp"), game=bundled_game("leduc.nolimit.2p"))


class _InstantSolver:
    """Stands in for MCCFR in run_schedule: a batch takes no time."""

    def __init__(self):
        self.iterations = 0
        self.nodes_touched = 0
        self.settings = SimpleNamespace(prune_after=0)
        self.discounts = 0

    def train(self, deals, iterations, batch, threads):
        self.iterations += iterations
        self.nodes_touched += 1000 * iterations

    def discount(self, factor):
        self.discounts += 1


def test_progress_lines_are_timed_not_per_batch(monkeypatch):
    solver = _InstantSolver()
    monkeypatch.setattr(train, "replace", lambda settings, **kw: SimpleNamespace(**{**vars(settings), **kw}))
    lines = []
    train.run_schedule(solver, None, budget=0.5, batch=10, threads=1, log=lines.append, progress_seconds=0.2)
    progress = [x for x in lines if "iterations" in x and "left" in x]
    assert solver.iterations > 1000  # thousands of batches ...
    assert 2 <= len(progress) <= 4  # ... but a line every 0.2 s and one at the end
    assert progress[-1].endswith(" 0 s left")
    assert 9 <= solver.discounts <= 10 and solver.settings.prune_after > 0  # the schedule still runs per batch


def test_a_progress_callback_gets_the_seconds_trained_after_every_batch(monkeypatch):
    solver = _InstantSolver()
    monkeypatch.setattr(train, "replace", lambda settings, **kw: SimpleNamespace(**{**vars(settings), **kw}))
    lines, calls = [], []
    train.run_schedule(
        solver, None, budget=0.3, batch=10, threads=1, log=lines.append, progress=lambda *a: calls.append(a)
    )
    assert len(calls) == solver.iterations // 10 + 1  # one per batch and one at the end
    assert {(c[0], c[2], c[3]) for c in calls} == {("MCCFR", 0.3, "s")}
    done = [c[1] for c in calls]
    assert done == sorted(done) and done[-1] == 0.3  # seconds trained, clamped to the budget at the end
    assert calls[-1][4] == f"{solver.iterations:,} iterations"
    assert not [x for x in lines if "left" in x]  # no periodic log lines besides the bar


def test_a_stop_writes_a_checkpoint_after_the_batch_and_resume_goes_on(tmp_path, monkeypatch):
    """``stop`` is asked between batches: once it says yes, the state is checkpointed and
    TrainingStopped raised, with no store; --resume then continues from that state."""
    monkeypatch.setattr(train, "build_card_abstraction", fake_cards)
    preset = train.Preset(
        "test", CardAbstractionSpec(buckets=(169, 4, 4, 4)), train.PRESETS["tiny"].actions, seconds=60.0, batch=2_000
    )
    out = str(tmp_path / "t.bp")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) >= 3  # after the third batch

    with pytest.raises(train.TrainingStopped, match="stopped at 6,000 iterations.*--resume") as stopped:
        train.train_blueprint(preset, out, threads=1, log=lambda x: None, stop=stop)
    assert stopped.value.iterations == 6_000 and not os.path.exists(out)
    with np.load(out + ".ckpt/state.npz") as z:
        assert int(z["iterations"]) == 6_000 and np.any(z["regret"] != 0)
    lines = []
    done = train.train_blueprint(preset, out, threads=1, seconds=stopped.value.seconds + 1.0, resume=True,
                                 log=lines.append)  # fmt: skip
    assert any("resumed at 6,000 iterations" in x for x in lines) and done["iterations"] > 6_000


def test_the_command_stops_on_a_signal_during_mccfr_with_a_checkpoint(tmp_path, monkeypatch, capsys):
    """SIGINT (as Ctrl-C, or SIGTERM) while MCCFR runs: the command writes a checkpoint after
    the batch, says how to go on and exits with 130; the handlers it set are put back."""
    import argparse
    import signal
    import threading
    import time

    from pokerbot.bot.cli import train_blueprint as cli

    monkeypatch.setattr(train, "build_card_abstraction", fake_cards)
    made = []

    class Recorded(cli.StopRequest):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(cli, "StopRequest", Recorded)

    def interrupt_once_training() -> None:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 120 and not (made and made[0].polled):
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    parser = argparse.ArgumentParser(prog="pokerbot")
    cli.add(parser.add_subparsers(dest="command"))
    out = str(tmp_path / "t.bp")
    before = signal.getsignal(signal.SIGINT)
    threading.Thread(target=interrupt_once_training, daemon=True).start()
    assert cli.run(parser.parse_args(["train-blueprint", "--preset", "tiny", "--out", out, "--threads", "1"])) == 130
    assert "stopped at" in capsys.readouterr().err and not os.path.exists(out)
    with np.load(out + ".ckpt/state.npz") as z:
        assert int(z["iterations"]) > 0
    assert signal.getsignal(signal.SIGINT) is before


def test_an_iteration_budget_stops_at_that_count_with_the_schedule_in_iterations(monkeypatch):
    """``iterations`` replaces the clock: exactly that many iterations (the last batch
    cut short), discounting at every 2 % of them in the first 20 %, pruning from 20 %."""
    solver = _InstantSolver()
    monkeypatch.setattr(train, "replace", lambda settings, **kw: SimpleNamespace(**{**vars(settings), **kw}))
    calls = []
    train.run_schedule(
        solver, None, budget=1e9, batch=70, threads=1, log=lambda x: None, progress=lambda *a: calls.append(a),
        iterations=10_005,
    )  # fmt: skip
    assert solver.iterations == 10_005  # not a multiple of the batch: the last one is cut
    assert solver.discounts == 10  # at 200, 400, ..., 2,000 iterations
    assert 2_001 <= solver.settings.prune_after <= 2_001 + 70  # the first batch after 20 %
    assert calls[-1][1:4] == (10_005.0, 10_005.0, "iterations")


def test_an_iteration_budget_and_seconds_are_refused_together(tmp_path):
    with pytest.raises(ValueError, match="not both"):
        train.train_blueprint("tiny", str(tmp_path / "x.bp"), seconds=5.0, iterations=1_000)
