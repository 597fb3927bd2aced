"""The blueprint artifact: one versioned file, a msgpack header and memory-mapped arrays.

Layout (little-endian):

    0   8 bytes  magic b"PKBPRINT"
    8   u32      format version (FORMAT_VERSION)
    12  u32      CRC-32 of the header bytes
    16  u64      header length
    24  header   msgpack: game definition text, action and card abstraction specs,
                 bucket counts, training figures, and per array its offset, dtype,
                 shape and CRC-32
    ... arrays, each starting on a 4,096-byte boundary

Opening reads the 24-byte preamble and the header, checks them against the file
size, and maps the arrays read-only: constant time whatever the size, and processes
that open one file share its pages through the page cache. ``verify()`` checks every
array's CRC (a full read). Writing goes to a temporary file renamed over the target,
so an interrupted write never leaves a broken store behind.

A store may also hold extensions written by the self-improver (``improve.py``): each
is a strategy for the whole game under another first-round abstraction (an added
opening size, Libratus's "type 2", or only the opponent's most common size, "type
1"), trained on the same card abstraction; its arrays carry the prefix ``ext<i>_``.
The player switches to one when an opponent's first bet maps to its size.

A lookup walks the stored betting tree along a rules state's actions and returns the
probabilities of the abstract actions for the viewer's bucket, thresholded on read on
the first two rounds: each bucket's actions under 4 % dropped and the rest
renormalised (``apply_threshold``: per hand, not the range thresholding Libratus used,
which drops an action only where every hand plays it under the threshold:
``range_kept``); ``reach`` gives every hand's probability of a line.
"""

from __future__ import annotations

import copy
import hashlib
import os
import struct
import tempfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import msgpack
import numpy as np

from pokerbot.protocol.betting import Action, ActionType, BettingState
from pokerbot.protocol.gamedef import GameDef, format_gamedef, parse_gamedef
from pokerbot.solver.betting_tree import BettingTree
from pokerbot.solver.tree import DECISION

from .abstraction import HOLE_PAIRS, CardAbstraction, CardAbstractionSpec, hand_bucket, hand_buckets
from .actions import ActionAbstraction

MAGIC = b"PKBPRINT"
FORMAT_VERSION = 1
ALIGN = 4096
#: A store begins with magic, format version, the header's CRC-32 and length.
PREAMBLE = struct.Struct("<8sIIQ")
#: Boards whose hand buckets a store keeps (``Blueprint.hand_buckets``): about 10 KB each.
BUCKET_CACHE = 256
#: Thresholding on read: on rounds 0-1, each bucket's actions below this probability are
#: dropped (per hand; the name is historical: see ``range_kept`` for Libratus's rule). The
#: ranges an opponent is modelled with; our players play at ``real_play.PLAY_THRESHOLD``.
RANGE_THRESHOLD = 0.04
THRESHOLD_ROUNDS = (0, 1)


class StoreError(ValueError):
    """A blueprint file that cannot be used: truncated, corrupt, another format or
    version, or made for another game or abstraction."""


class OffTreeError(KeyError):
    """The state's betting left the blueprint's abstraction (an off-tree bet)."""

    def __init__(self, node: int, action: Action, betting: str) -> None:
        super().__init__(f"action {action} after {betting!r} is not in the blueprint's abstraction")
        self.node = node
        self.action = action
        self.betting = betting


@dataclass
class ExtensionContents:
    """A strategy for the whole game under another first-round abstraction, used
    after an opponent's first bet of about ``size`` (a pot fraction at raise depth 0).
    ``kind``: "type2" (a size added between two of the base's; used when translation
    among the base's sizes and this one picks it) or "type1" (the opponent's most
    common size only; used while the opponent's last eight such bets were of it)."""

    kind: str
    size: float
    actions: ActionAbstraction
    tree: BettingTree
    strategy: np.ndarray
    training: dict
    action_arrays: tuple[np.ndarray, np.ndarray] | None = None  # (type, size) per node, for a tree read back
    opponent: int | None = None  # the position whose first raise it answers (None: either)


@dataclass
class BlueprintContents:
    """What ``write_blueprint`` stores."""

    game: GameDef
    actions: ActionAbstraction
    cards: CardAbstraction
    tree: BettingTree
    strategy: np.ndarray  # float32 per slot: the average strategy
    training: dict
    extensions: list[ExtensionContents] = field(default_factory=list)
    action_arrays: tuple[np.ndarray, np.ndarray] | None = None  # (type, size) per node, for a tree read back


EXTENSION_KINDS = ("type1", "type2")


def _tree_arrays(
    tree: BettingTree, action_arrays: tuple[np.ndarray, np.ndarray] | None = None
) -> dict[str, np.ndarray]:
    if action_arrays is not None:  # a tree read from a store keeps its actions as arrays
        atype, asize = action_arrays
    else:
        atype = np.array([-1 if a is None else int(a.type) for a in tree.actions], dtype=np.int8)
        asize = np.array([0 if a is None else a.size for a in tree.actions], dtype=np.int64)
    if len(atype) != tree.num_nodes:
        raise ValueError(f"the tree has {tree.num_nodes} nodes but {len(atype)} actions")
    return {
        "tree_kind": tree.kind,
        "tree_player": tree.player,
        "tree_round": tree.round,
        "tree_first_child": tree.first_child,
        "tree_num_children": tree.num_children,
        "tree_spent": tree.spent,
        "tree_slot_offset": tree.slot_offset,
        "tree_action_type": atype,
        "tree_action_size": asize,
    }


def write_blueprint(path: str | os.PathLike, contents: BlueprintContents) -> None:
    """Write the store atomically (temporary file, then rename)."""
    c = contents
    arrays = dict(_tree_arrays(c.tree, c.action_arrays))
    arrays["strategy"] = np.ascontiguousarray(c.strategy, dtype=np.float32)
    arrays["cards_preflop"] = np.ascontiguousarray(c.cards.preflop, dtype=np.uint16)
    arrays["cards_flop"] = np.ascontiguousarray(c.cards.flop, dtype=np.uint16)
    arrays["cards_turn"] = np.ascontiguousarray(c.cards.turn, dtype=np.uint16)
    if arrays["strategy"].shape != (c.tree.num_slots,):
        raise ValueError(f"strategy has shape {arrays['strategy'].shape}, the tree has {c.tree.num_slots} slots")
    extensions = []
    for i, e in enumerate(c.extensions):
        if e.kind not in EXTENSION_KINDS:
            raise ValueError(f"extension kind must be one of {EXTENSION_KINDS}, got {e.kind!r}")
        if e.strategy.shape != (e.tree.num_slots,):
            raise ValueError(f"extension {i}: strategy has shape {e.strategy.shape}, its tree {e.tree.num_slots} slots")
        if tuple(e.tree.buckets) != tuple(c.tree.buckets):
            raise ValueError(f"extension {i}: buckets {e.tree.buckets} differ from the blueprint's {c.tree.buckets}")
        for name, a in _tree_arrays(e.tree, e.action_arrays).items():
            arrays[f"ext{i}_{name}"] = a
        arrays[f"ext{i}_strategy"] = np.ascontiguousarray(e.strategy, dtype=np.float32)
        extensions.append(
            {
                "kind": e.kind,
                "size": float(e.size),
                "actions": e.actions.as_dict(),
                "num_slots": int(e.tree.num_slots),
                "training": e.training,
                "opponent": e.opponent,
            }
        )
    table: dict[str, dict] = {}
    header = {
        "format": FORMAT_VERSION,
        "game": format_gamedef(c.game),
        "actions": c.actions.as_dict(),
        "cards": c.cards.spec.as_dict(),
        "buckets": list(c.tree.buckets),
        "num_slots": int(c.tree.num_slots),
        "training": c.training,
        "extensions": extensions,
        "arrays": table,
    }
    # offsets depend on the header's length, which depends on the offsets: fix the
    # header size with generous placeholders first
    for name, a in arrays.items():
        table[name] = {"offset": 2**62, "dtype": a.dtype.str, "shape": list(a.shape), "crc32": 2**32 - 1}
    probe = len(msgpack.packb(header, use_bin_type=True)) + 64
    at = _align(PREAMBLE.size + probe)
    for name, a in arrays.items():
        table[name] = {
            "offset": at,
            "dtype": a.dtype.str,
            "shape": list(a.shape),
            "crc32": zlib.crc32(a.data.cast("B")),  # a.data: the array's memoryview
        }
        at = _align(at + a.nbytes)
    body = msgpack.packb(header, use_bin_type=True)
    if len(body) > probe:
        raise AssertionError("header grew past its reserved size")
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".blueprint-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(PREAMBLE.pack(MAGIC, FORMAT_VERSION, zlib.crc32(body), len(body)))
            f.write(body)
            for name, a in arrays.items():
                f.seek(table[name]["offset"])
                f.write(a.data.cast("B"))
            f.truncate(at)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private; a store is read by other users (a container's
        # unprivileged player mounting it), so give it the usual mode under the umask
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o644 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


_PLAY_DIGESTS: dict[tuple[str, int, int], str] = {}


def play_digest(path: str | os.PathLike) -> str:
    """``Blueprint(path).play_digest()``, kept per (path, size, modification time)."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    if key not in _PLAY_DIGESTS:
        _PLAY_DIGESTS[key] = Blueprint(path).play_digest()
    return _PLAY_DIGESTS[key]


def _byte_chunks(a: np.ndarray) -> Iterator[memoryview]:
    """An array's bytes in 16 MB pieces (a full read that never copies the whole array)."""
    flat = a.reshape(-1).view(np.uint8) if a.size else np.zeros(0, np.uint8)
    for start in range(0, flat.size, 1 << 24):
        yield flat[start : start + (1 << 24)].data


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


class Blueprint:
    """A store opened read-only (see the module docstring)."""

    #: an extension's training figures (set on the extension views only; the base
    #: store's are its header's "training")
    training_figures: dict[str, Any]

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        try:
            size = os.path.getsize(self.path)
            with open(self.path, "rb") as f:
                pre = f.read(PREAMBLE.size)
                if len(pre) < PREAMBLE.size:
                    raise StoreError(f"{self.path}: {len(pre)} bytes is too short for a blueprint store")
                magic, version, crc, length = PREAMBLE.unpack(pre)
                if magic != MAGIC:
                    raise StoreError(f"{self.path}: not a blueprint store (bad magic {magic!r})")
                if version != FORMAT_VERSION:
                    raise StoreError(f"{self.path}: store format {version}, this program reads {FORMAT_VERSION}")
                if PREAMBLE.size + length > size:
                    raise StoreError(f"{self.path}: truncated (header of {length} bytes, file of {size})")
                body = f.read(length)
        except OSError as e:
            raise StoreError(f"{self.path}: cannot read: {e.strerror or e}") from None
        if zlib.crc32(body) != crc:
            raise StoreError(f"{self.path}: header is corrupt (CRC mismatch)")
        try:
            self.header = msgpack.unpackb(body, raw=False)
            self.game = parse_gamedef(self.header["game"], source=f"{self.path} header")
            self.actions = ActionAbstraction.from_dict(self.header["actions"])
            card_fields: dict[str, Any] = {
                k: (tuple(v) if isinstance(v, list) else v) for k, v in self.header["cards"].items()
            }
            spec = CardAbstractionSpec(**card_fields)
            table = self.header["arrays"]
        except (KeyError, TypeError, ValueError, msgpack.UnpackException) as e:
            raise StoreError(f"{self.path}: header is malformed: {e}") from None
        self._arrays: dict[str, np.ndarray] = {}
        for name, info in table.items():
            dtype = np.dtype(info["dtype"])
            shape = tuple(info["shape"])
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            if info["offset"] + nbytes > size:
                raise StoreError(
                    f"{self.path}: truncated (array {name!r} ends at byte {info['offset'] + nbytes}, "
                    f"the file has {size})"
                )
            self._arrays[name] = (
                np.memmap(self.path, dtype=dtype, mode="r", offset=info["offset"], shape=shape)
                if nbytes
                else np.zeros(shape, dtype=dtype)
            )
        missing = {"strategy", "cards_preflop", "cards_flop", "cards_turn", "tree_kind"} - set(self._arrays)
        if missing:
            raise StoreError(f"{self.path}: arrays missing from the store: {sorted(missing)}")
        a = self._arrays
        self.tree = BettingTree(
            kind=a["tree_kind"],
            player=a["tree_player"],
            round=a["tree_round"],
            first_child=a["tree_first_child"],
            num_children=a["tree_num_children"],
            spent=a["tree_spent"],
            slot_offset=a["tree_slot_offset"],
            num_slots=int(self.header["num_slots"]),
            buckets=tuple(self.header["buckets"]),
        )
        self.strategy = a["strategy"]
        if self.strategy.shape != (self.tree.num_slots,):
            raise StoreError(
                f"{self.path}: strategy has {self.strategy.shape[0]} slots, the tree {self.tree.num_slots}"
            )
        self.cards = CardAbstraction(spec, a["cards_preflop"], a["cards_flop"], a["cards_turn"])
        self._atype = a["tree_action_type"]
        self._asize = a["tree_action_size"]
        self._child_actions: dict[int, list[Action]] = {}
        self._buckets: dict[tuple, np.ndarray] = {}  # shared with the extensions: the same cards
        self.kind = "base"
        self.size: float | None = None
        self.opponent: int | None = None
        self.extensions: list[Blueprint] = []
        try:
            for i, ext in enumerate(self.header.get("extensions", [])):
                self.extensions.append(self._extension(i, ext))
        except (KeyError, TypeError, ValueError) as err:
            raise StoreError(f"{self.path}: extension is malformed: {err}") from None

    @property
    def arrays(self) -> Mapping[str, np.ndarray]:
        """Every array of the store by name (memory-mapped, read-only)."""
        return MappingProxyType(self._arrays)

    def _extension(self, i: int, info: dict) -> Blueprint:
        """A view of extension ``i``: this store with the extension's tree and strategy."""
        a = self._arrays
        p = f"ext{i}_"
        if info["kind"] not in EXTENSION_KINDS:
            raise ValueError(f"unknown kind {info['kind']!r}")
        missing = {p + n for n in ("strategy", "tree_kind", "tree_action_type")} - set(a)
        if missing:
            raise StoreError(f"{self.path}: arrays missing from the store: {sorted(missing)}")
        view = copy.copy(self)
        view.extensions = []
        view.kind = info["kind"]
        view.size = float(info["size"])
        view.opponent = info.get("opponent")
        if view.opponent not in (None, 0, 1):
            raise ValueError(f"opponent position {view.opponent!r}")
        view.actions = ActionAbstraction.from_dict(info["actions"])
        view.tree = BettingTree(
            kind=a[p + "tree_kind"],
            player=a[p + "tree_player"],
            round=a[p + "tree_round"],
            first_child=a[p + "tree_first_child"],
            num_children=a[p + "tree_num_children"],
            spent=a[p + "tree_spent"],
            slot_offset=a[p + "tree_slot_offset"],
            num_slots=int(info["num_slots"]),
            buckets=self.tree.buckets,
        )
        view.strategy = a[p + "strategy"]
        if view.strategy.shape != (view.tree.num_slots,):
            raise StoreError(
                f"{self.path}: extension {i} strategy has {view.strategy.shape[0]} slots, "
                f"its tree {view.tree.num_slots}"
            )
        view._atype = a[p + "tree_action_type"]
        view._asize = a[p + "tree_action_size"]
        view._child_actions = {}  # its own tree's
        view.training_figures = info.get("training", {})
        return view

    def contents(self) -> BlueprintContents:
        """Everything in the store (arrays still memory-mapped), to write a new store from."""
        exts = []
        for e in self.extensions:
            assert e.size is not None  # every extension has the size it answers
            exts.append(
                ExtensionContents(
                    e.kind, e.size, e.actions, e.tree, e.strategy, e.training_figures, (e._atype, e._asize), e.opponent
                )
            )
        return BlueprintContents(
            self.game,
            self.actions,
            self.cards,
            self.tree,
            self.strategy,
            self.header.get("training", {}),
            exts,
            (self._atype, self._asize),
        )

    # ------------------------------------------------------------------ checks
    def verify(self) -> None:
        """Check every array against its CRC (reads the whole file)."""
        for name, info in self.header["arrays"].items():
            a = self._arrays[name]
            crc = 0
            for chunk in _byte_chunks(a):
                crc = zlib.crc32(chunk, crc)
            if crc != info["crc32"]:
                raise StoreError(f"{self.path}: array {name!r} is corrupt (CRC mismatch)")

    def play_digest(self) -> str:
        """The SHA-256 (16 hex digits) of what plays: the header without its training
        figures and array offsets, and every array's bytes (a full read). A store trained
        again to the same strategy (one thread, the same seed and iterations) has the same
        digest, though its file's bytes differ in the figures (times, machine)."""
        header = {k: v for k, v in self.header.items() if k not in ("training", "arrays")}
        header["extensions"] = [
            {k: v for k, v in e.items() if k != "training"} for e in self.header.get("extensions", [])
        ]
        h = hashlib.sha256(msgpack.packb(header, use_bin_type=True))
        for name in sorted(self._arrays):
            a = self._arrays[name]
            h.update(f"{name} {a.dtype.str} {list(a.shape)}".encode())
            for chunk in _byte_chunks(a):
                h.update(chunk)
        return h.hexdigest()[:16]

    def check_game(self, game: GameDef) -> None:
        """Refuse to play ``game`` with a blueprint trained for another one."""
        if format_gamedef(game) != format_gamedef(self.game):
            raise StoreError(f"{self.path}: trained for another game:\n{format_gamedef(self.game)}")

    @property
    def size_bytes(self) -> int:
        return os.path.getsize(self.path)

    # ------------------------------------------------------------------ the tree
    def child_actions(self, node: int) -> list[Action]:
        """The abstract actions of ``node``'s children, in order (read once a node)."""
        known = self._child_actions.get(node)
        if known is None:
            f, m = int(self.tree.first_child[node]), int(self.tree.num_children[node])
            types, sizes = self._atype[f : f + m].tolist(), self._asize[f : f + m].tolist()
            known = self._child_actions[node] = [Action(ActionType(t), int(z)) for t, z in zip(types, sizes)]
        return list(known)

    def node_of(self, state: BettingState) -> int:
        """The node reached by ``state``'s betting; OffTreeError at the first action
        that is not one of the abstraction's."""
        node = 0
        for acts in state.actions:
            for a in acts:
                if self.tree.kind[node] != DECISION:
                    raise OffTreeError(node, a, state.betting_string())
                children = self.child_actions(node)
                key = Action(a.type, a.size if a.type is ActionType.RAISE and self.game.is_nolimit else 0)
                if key not in children:
                    raise OffTreeError(node, a, state.betting_string())
                node = int(self.tree.first_child[node]) + children.index(key)
        return node

    def probabilities(self, node: int, bucket: int, threshold: bool = True) -> np.ndarray:
        """The average strategy at (node, bucket), range-thresholded on rounds 0-1."""
        if self.tree.kind[node] != DECISION:
            raise ValueError(f"node {node} is not a decision")
        m = int(self.tree.num_children[node])
        base = int(self.tree.slot_offset[node]) + bucket * m
        p = np.array(self.strategy[base : base + m], dtype=np.float64)
        if threshold and int(self.tree.round[node]) in THRESHOLD_ROUNDS:
            p = apply_threshold(p)
        return p

    def strategy_rows(self, node: int) -> np.ndarray:
        """(buckets of the node's round, children): the average strategy at decision
        ``node`` for every bucket, as trained (no thresholding)."""
        if self.tree.kind[node] != DECISION:
            raise ValueError(f"node {node} is not a decision")
        m = int(self.tree.num_children[node])
        base = int(self.tree.slot_offset[node])
        rows = int(self.tree.buckets[int(self.tree.round[node])])
        return np.array(self.strategy[base : base + rows * m], dtype=np.float64).reshape(rows, m)

    def hand_buckets(self, round_: int, board: Sequence[int]) -> np.ndarray:
        """``abstraction.hand_buckets`` on ``board`` (read-only), kept for the last
        ``BUCKET_CACHE`` boards asked about: a walk asks about one board many times."""
        key = (round_, tuple(int(c) for c in board))
        known = self._buckets.get(key)
        if known is None:
            if len(self._buckets) >= BUCKET_CACHE:
                self._buckets.pop(next(iter(self._buckets)))  # the oldest
            known = self._buckets[key] = hand_buckets(self.cards, round_, key[1])
            known.flags.writeable = False
        return known

    def bucket(self, round_: int, hole: Sequence[int], board: Sequence[int]) -> int:
        return hand_bucket(self.cards, round_, hole, board)

    def strategy_for(self, state: BettingState, hole: Sequence[int]) -> tuple[list[Action], np.ndarray]:
        """The abstract actions at ``state`` and their probabilities for ``hole``."""
        node = self.node_of(state)
        r = int(self.tree.round[node])
        board = state.board_cards[: self.game.total_board_cards(r)]
        return self.child_actions(node), self.probabilities(node, self.bucket(r, hole, board))

    def reach(
        self,
        line: Sequence[tuple[int, int]],
        player: int,
        board: Sequence[int],
        threshold: bool = True,
        pool_raises: bool = False,
        played: Callable[[int, np.ndarray], np.ndarray] | None = None,
    ) -> np.ndarray:
        """Probability, for each of the 1,326 hole pairs, that ``player`` takes the
        line: ``line`` is (node, child index) per action along it (both players'
        actions; the other player's are skipped); ``board`` the cards dealt so far.
        0 for hands blocked by the board. With ``pool_raises``, a raise's factor is the
        probability of raising at all (any of the node's sizes, all-in included).
        ``played(node, rows)``: the strategy as played from the store's rows (every
        bucket's), instead of range thresholding on the first rounds."""
        out = np.ones(1326)
        per_round: dict[int, np.ndarray] = {}
        for node, child in line:
            if int(self.tree.player[node]) != player:
                continue
            r = int(self.tree.round[node])
            if r not in per_round:
                per_round[r] = self.hand_buckets(r, list(board)[: self.game.total_board_cards(r)])
            buckets = per_round[r]
            live = buckets >= 0
            probs = self.strategy_rows(node)
            if played is not None:
                probs = played(node, probs)
            elif threshold and r in THRESHOLD_ROUNDS:
                probs = apply_threshold(probs)
            taken = [child]
            if pool_raises:
                raises = [c for c, a in enumerate(self.child_actions(node)) if a.type is ActionType.RAISE]
                taken = raises if child in raises else taken
            out[live] *= probs[:, taken].sum(axis=1)[buckets[live]]
            out[~live] = 0.0
        blocked = set(board)
        out[[bool(set(h) & blocked) for h in HOLE_PAIRS.tolist()]] = 0.0
        return out


def range_kept(rows: np.ndarray, threshold: float) -> np.ndarray:
    """Libratus's range thresholding at a node: the actions kept, those some hand of the
    round (some row of ``rows``, every bucket's strategy at the node) plays with at least
    ``threshold``; an action is dropped only where every hand plays it below."""
    return np.asarray(rows).max(axis=0) >= threshold


def apply_kept(p: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """``p`` (one strategy or rows) with the actions outside ``kept`` (one mask for
    every row, or a mask per row) dropped and renormalised; a row that would keep
    nothing keeps its likeliest action."""
    p = np.asarray(p, dtype=np.float64)
    keep = np.broadcast_to(kept, p.shape).copy()
    empty = ~(keep & (p > 0)).any(axis=-1, keepdims=True)
    likeliest = np.zeros_like(keep)
    np.put_along_axis(likeliest, np.argmax(p, axis=-1)[..., None], True, axis=-1)
    keep |= empty & likeliest
    q = np.where(keep, p, 0.0)
    s = q.sum(axis=-1, keepdims=True)
    return np.divide(q, s, out=np.full_like(q, 1.0 / p.shape[-1]), where=s > 0)


def apply_threshold(p: np.ndarray, threshold: float = RANGE_THRESHOLD) -> np.ndarray:
    """Drop actions below ``threshold`` and renormalise (the largest is always kept);
    ``p`` one strategy or (..., actions) rows of them, each thresholded alone."""
    p = np.asarray(p, dtype=np.float64)
    return apply_kept(p, p >= threshold)
