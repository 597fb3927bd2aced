"""The memory a training run needs, said and checked before anything large is allocated:
the estimate's arithmetic, the refusal (in the library and on the command line) before
the card abstraction starts, the override, and what Linux says is available."""

import argparse
import os

import numpy as np
import pytest

from pokerbot.blueprint_store import train, training_memory
from pokerbot.blueprint_store.abstraction import CardAbstractionSpec
from pokerbot.blueprint_store.training_memory import TrainingMemory, verify_memory_fits
from pokerbot.bot.cli import train_blueprint as cli
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver.betting_tree import build_betting_tree
from pokerbot.solver.mccfr import normalised


class CardsStarted(Exception):
    """Raised by a stand-in card abstraction: the run got past its memory check."""


def cards_started(spec, log=print, progress=None):
    raise CardsStarted


def test_the_estimate_counts_eight_bytes_a_slot_to_train_and_four_to_write():
    p = train.PRESETS["default"]
    tree = build_betting_tree(bundled_game("holdem.nolimit.2p"), p.actions.sizes(), p.cards.buckets)
    need = training_memory.training_memory(tree, p.cards)
    assert tree.num_slots == 10_765_179
    assert need.regrets_and_weights == 8 * tree.num_slots and need.strategy_written == 4 * tree.num_slots
    # the fit's sampled hands are freed before training: the peak holds the larger of the two
    late = need.regrets_and_weights + need.strategy_written
    assert need.total == need.baseline + need.tree + need.card_tables + max(late, need.card_fit)
    assert "regrets and weights 0.09 GB" in need.describe()


def test_a_machine_without_the_memory_is_refused_before_the_card_abstraction(tmp_path, monkeypatch):
    monkeypatch.setattr(train, "build_card_abstraction", cards_started)
    monkeypatch.setattr(train, "available_memory", lambda: 100_000_000)  # 0.1 GB
    out = str(tmp_path / "t.bp")
    lines: list[str] = []
    with pytest.raises(MemoryError, match=r"needs about .* GB.*0\.10 GB available.*--no-memory-check"):
        train.train_blueprint("tiny", out, threads=1, log=lines.append)
    assert any("training needs about" in x for x in lines)  # said before refusing
    assert not os.path.exists(out + ".ckpt/cards.npz") and not os.path.exists(out)
    # the override goes on to the card abstraction; so does a machine that has the memory
    with pytest.raises(CardsStarted):
        train.train_blueprint("tiny", out, threads=1, log=lines.append, check_memory=False)
    monkeypatch.setattr(train, "available_memory", lambda: 10**12)
    with pytest.raises(CardsStarted):
        train.train_blueprint("tiny", out, threads=1, log=lines.append)


def test_the_command_refuses_with_a_clear_message_and_accepts_the_override(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(train, "build_card_abstraction", cards_started)
    monkeypatch.setattr(train, "available_memory", lambda: 100_000_000)
    parser = argparse.ArgumentParser(prog="pokerbot")
    cli.add(parser.add_subparsers(dest="command"))
    out = str(tmp_path / "t.bp")
    assert cli.run(parser.parse_args(["train-blueprint", "--preset", "tiny", "--out", out])) == 1
    err = capsys.readouterr().err
    assert "pokerbot train-blueprint: training this preset needs about" in err and "--no-memory-check" in err
    args = parser.parse_args(["train-blueprint", "--preset", "tiny", "--out", out, "--no-memory-check"])
    with pytest.raises(CardsStarted):
        cli.run(args)


def test_verify_memory_fits_passes_where_it_fits_or_is_unknown():
    need = TrainingMemory(800, 400, 10, 10, 5000, 100)
    assert need.total == 100 + 10 + 10 + 5000  # the fit is larger than the training arrays here
    verify_memory_fits(need, 5120)
    verify_memory_fits(need, None)
    with pytest.raises(MemoryError):
        verify_memory_fits(need, 5119)


def test_available_memory_reads_what_linux_says():
    if not os.path.exists("/proc/meminfo"):
        pytest.skip("not Linux")
    with open("/proc/meminfo") as f:
        total = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemTotal:"))
    got = training_memory.available_memory()
    assert got is not None and 0 < got <= total


def test_the_average_strategy_stored_in_single_precision_is_the_double_one_rounded():
    game = bundled_game("holdem.nolimit.2p")
    tree = build_betting_tree(game, train.PRESETS["tiny"].actions.sizes(), (169, 5, 5, 5))
    phi = np.random.default_rng(2).random(tree.num_slots).astype(np.float32)
    phi[: tree.num_slots // 3] = 0  # unvisited information sets: uniform
    double = normalised(tree, phi)
    single = normalised(tree, phi, np.float32)
    assert single.dtype == np.float32
    np.testing.assert_array_equal(single, double.astype(np.float32))


@pytest.mark.slow  # builds the large preset's betting tree (about 10 s)
def test_the_large_preset_has_the_slots_its_documentation_counts():
    p = train.PRESETS["large"]
    tree = build_betting_tree(bundled_game("holdem.nolimit.2p"), p.actions.sizes(), p.cards.buckets)
    need = training_memory.training_memory(tree, p.cards)
    assert tree.num_slots == LARGE_SLOTS
    assert 8.5e9 < need.total < 9.5e9


#: docs/cluster.md's count for the large preset
LARGE_SLOTS = 708_501_285


def test_the_card_spec_of_the_large_preset_is_valid():
    spec: CardAbstractionSpec = train.PRESETS["large"].cards
    spec.verify()
    assert spec.buckets == (169, 1000, 1000, 1000)
