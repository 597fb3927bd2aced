"""How much memory training a blueprint takes, said before it is allocated.

``training_memory`` adds up what ``train_blueprint`` holds at its peak: the interpreter
with its kernels, the betting tree and the card tables throughout, and then the larger
of the card abstraction's fit (its sampled hands, freed before training) and the
training arrays at the end (the regrets, int32, and average-strategy weights, float32,
one each per slot, with the strategy being written, float32 per slot). ``verify_memory_fits``
refuses a run the machine cannot hold (``available_memory``: what Linux says is
available, within a container's limit), before hours of card abstraction.
"""

from __future__ import annotations

from dataclasses import dataclass

from pokerbot.solver.betting_tree import BettingTree

from .abstraction import CardAbstractionSpec

#: The interpreter with numpy, numba, the hand indexer and the training kernels loaded
#: (resident; about 170 MB measured on CPython 3.11 / numba 0.68, with some room).
BASELINE_BYTES = 200_000_000
#: Per betting-tree node: its arrays and the action and betting string kept per node
#: (259 and 297 bytes measured on the default and large trees).
TREE_BYTES_PER_NODE = 300
#: The card tables: 1,326 preflop, 1,286,792 flop and 55,190,538 turn entries (uint16).
CARD_TABLE_BYTES = 2 * (1_326 + 1_286_792 + 55_190_538)
#: A sampled fit point: one equity histogram bin in double, held twice while sampled.
FIT_POINT_BYTES = 2 * 8


@dataclass(frozen=True)
class TrainingMemory:
    """Bytes per part, and the peak (``total``)."""

    regrets_and_weights: int
    strategy_written: int
    tree: int
    card_tables: int
    card_fit: int
    baseline: int

    @property
    def total(self) -> int:
        late = max(self.card_fit, self.regrets_and_weights + self.strategy_written)
        return self.baseline + self.tree + self.card_tables + late

    def describe(self) -> str:
        parts = (
            ("regrets and weights", self.regrets_and_weights),
            ("the strategy written", self.strategy_written),
            ("the betting tree", self.tree),
            ("card tables", self.card_tables),
            ("interpreter and kernels", self.baseline),
        )
        return f"{gigabytes(self.total)} ({', '.join(f'{name} {gigabytes(b)}' for name, b in parts)})"


def gigabytes(b: int) -> str:
    return f"{b / 1e9:.2f} GB"


def training_memory(tree: BettingTree, cards: CardAbstractionSpec) -> TrainingMemory:
    """The peak resident memory of training ``tree`` with card abstraction ``cards`` in
    one process (on Ray, of the head, which gathers the same arrays to write the store)."""
    fit = max(cards.fit_flop_boards, cards.fit_turn_boards) * 1_326 * cards.bins * FIT_POINT_BYTES
    return TrainingMemory(
        regrets_and_weights=tree.memory_bytes(),
        strategy_written=4 * tree.num_slots,
        tree=TREE_BYTES_PER_NODE * tree.num_nodes,
        card_tables=CARD_TABLE_BYTES,
        card_fit=fit,
        baseline=BASELINE_BYTES,
    )


def available_memory() -> int | None:
    """Bytes this process may still take: Linux's MemAvailable, and no more than a
    container's memory limit leaves (cgroup v2 or v1); None where neither is known."""
    found: list[int] = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    for limit_path, usage_path in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        try:
            with open(limit_path) as f:
                text = f.read().strip()
            if text == "max":
                continue
            with open(usage_path) as f:
                usage = int(f.read().strip())
            limit = int(text)
        except (OSError, ValueError):
            continue
        if limit < 2**60:  # "no limit" reads as a huge number under cgroup v1
            found.append(max(0, limit - usage))
    return min(found) if found else None


def verify_memory_fits(need: TrainingMemory, available: int | None) -> None:
    """Raise MemoryError when ``need`` is more than ``available`` (None: unknown, no
    check)."""
    if available is not None and need.total > available:
        raise MemoryError(
            f"training this preset needs about {need.describe()}, but this machine has "
            f"{gigabytes(available)} available; use a machine with more memory, a smaller preset, "
            "or --no-memory-check to try anyway"
        )
