"""One process compiles each kernel: numba's on-disk cache shared by the processes of a machine.

Numba compiles a kernel (``@njit(cache=True)``) on its first call with new argument
types unless its on-disk cache has it. Processes started together on a fresh machine (a
match's two agents and their solver workers) would each compile the same kernels at the
same time. ``install`` makes every compile of one of our kernels take a lock file of its
own first, one per kernel and argument types (``lock_path``): a process that finds it
held waits, then numba finds in its cache what the other process has just compiled, and
loads it. Different kernels compile in different processes at the same time. A compile
holds the locks of the kernels it compiles on the way (the kernels it calls): it only
ever waits for a kernel below the ones it holds, so two processes cannot wait for each
other.

Numba by itself invalidates a kernel's on-disk cache only when the kernel's own file
changes (numba issue #1833), while the cache holds the code of every kernel it calls and
the module constants it read: after an edit to another file it would run the old code.
``install`` also gives every cached kernel in the package's folders a source stamp of
the folders it may depend on (``kernel_sources``: its layer and the layers below it,
``LAYERS``, the only ones it may import), through numba's cache locators
(``StampedUserProvidedLocator`` and its two siblings): any change to a ``*.py`` file
there compiles those kernels anew on their next use, while a checkout that changes mtimes
but no bytes keeps the cache (``source_stamp`` hashes contents).

``watch`` tells a callback about each compile (for progress lines); with
$POKERBOT_COMPILE_LOG set to a path, every process that imports the solver appends a
JSON line per compile of one of our kernels there (process, kernel, argument types,
seconds), so that a first run can show which process compiled what.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator

from numba.core.caching import CacheImpl, InTreeCacheLocator, UserProvidedCacheLocator, UserWideCacheLocator

#: Where every process that imports the solver logs its compiles (see the module doc).
COMPILE_LOG_ENV = "POKERBOT_COMPILE_LOG"
#: How long a process waits for another's compile before it compiles on its own.
WAIT_LIMIT_SECONDS = 1800.0
#: The package whose kernels take the lock.
PACKAGE = "pokerbot."
#: The package's folder (the repository root of a checkout), which holds its layers.
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
#: The package's layers, from the bottom: a module imports only from its own layer and
#: those below it (tests/test_structure.py), so its kernels can only call their kernels
#: and read their constants.
LAYERS = ("protocol", "solver", "blueprint_store", "bot")

_installed = False
#: (root, layers) of each package whose kernels' caches carry a source stamp (``install``).
_stamped: list[tuple[str, tuple[str, ...]]] = []
#: Called with a line when this process starts waiting for another's compile.
on_wait: Callable[[str], None] | None = None


def lock_directory() -> str:
    """The lock files' folder: one per user, numba cache location and installed package."""
    import numba

    here = os.path.dirname(os.path.abspath(__file__))
    key = f"{here}|{os.environ.get('NUMBA_CACHE_DIR', '')}|{numba.__version__}"
    digest = hashlib.sha1(key.encode()).hexdigest()[:12]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"pokerbot-kernels-{uid}-{digest}")


def lock_path(kernel: str, signature: str) -> str:
    """The lock file of one kernel with one tuple of argument types."""
    digest = hashlib.sha1(f"{kernel}|{signature}".encode()).hexdigest()[:20]
    return os.path.join(lock_directory(), f"{digest}.lock")


def kernel_name(dispatcher) -> str:
    """``module.function`` of a numba dispatcher, without the package prefix; a kernel
    made by a factory gets the values it closes over, ``[parallel=True]``: each of the
    factory's kernels is a kernel of its own (numba caches them apart, by those values)."""
    func = dispatcher.py_func
    module = func.__module__.removeprefix(PACKAGE)
    name = f"{module}.{func.__qualname__.replace('.<locals>.', '.')}"
    cells = func.__closure__ or ()
    if not cells:
        return name
    values = ",".join(f"{v}={_closed_value(c)}" for v, c in zip(func.__code__.co_freevars, cells, strict=True))
    return f"{name}[{values}]"


def _closed_value(cell) -> str:
    """A closure cell's value for a kernel's name: plain values as written, functions
    and kernels by name, anything else by its type."""
    try:
        value = cell.cell_contents
    except ValueError:  # a cell not filled yet
        return "?"
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    inner = getattr(value, "py_func", value)
    return getattr(inner, "__qualname__", type(value).__name__)


def _ours(dispatcher) -> bool:
    """One of our cached kernels (not numba's object-mode blocks, which it never caches)."""
    from numba.core.registry import CPUDispatcher

    return isinstance(dispatcher, CPUDispatcher) and dispatcher.py_func.__module__.startswith(PACKAGE)


def _holder(f) -> str:
    with contextlib.suppress(OSError, ValueError):
        f.seek(0)
        return f.read().strip() or "another process"
    return "another process"


@contextlib.contextmanager
def held(kernel: str, signature: str) -> Iterator[None]:
    """Hold the lock of ``kernel`` with ``signature`` (argument types); without one
    (no flock, no writable temporary folder, or past WAIT_LIMIT_SECONDS of waiting)
    go on unlocked: the process then compiles on its own."""
    f = _acquire(kernel, signature)
    try:
        yield
    finally:
        if f is not None:
            with contextlib.suppress(OSError):
                f.truncate(0)
            f.close()  # closing the descriptor releases the lock


def _acquire(kernel: str, signature: str):
    try:
        import fcntl
    except ImportError:  # no flock (Windows): each process compiles on its own
        return None
    path = lock_path(kernel, signature)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        f = open(path, "a+")
    except OSError:
        return None
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if on_wait is not None:
            on_wait(f"waiting for {_holder(f)} to compile {kernel}")
        deadline = time.monotonic() + WAIT_LIMIT_SECONDS
        while True:
            time.sleep(0.02)
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    f.close()
                    return None
    except OSError:
        f.close()
        return None
    with contextlib.suppress(OSError):
        f.seek(0)
        f.truncate()
        f.write(f"process {os.getpid()}")
        f.flush()
    return f


def install(root: str = ROOT, layers: tuple[str, ...] = LAYERS) -> None:
    """Make every compile of one of our kernels in this process hold that kernel's
    compile lock, log compiles where $POKERBOT_COMPILE_LOG says, and stamp the cache of
    every kernel in ``root`` with the sources it may depend on (``kernel_sources``;
    another package's ``root`` and ``layers`` add it: a test's). Kernels decorated
    before the call keep numba's own stamp. Idempotent."""
    global _installed
    _install_stamps(os.path.realpath(root), tuple(layers))
    if _installed:
        return
    from numba.core import sigutils
    from numba.core.dispatcher import Dispatcher

    plain = Dispatcher.compile

    def compile_once(self, sig):
        if not _ours(self):
            return plain(self, sig)
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:  # compiled or loaded already in this process
            return plain(self, sig)
        with held(kernel_name(self), str(tuple(args))):
            return plain(self, sig)

    Dispatcher.compile = compile_once  # type: ignore[method-assign]
    _installed = True
    path = os.environ.get(COMPILE_LOG_ENV)
    if path:
        _log_compiles(path)


def source_stamp(root: str, folders: tuple[str, ...]) -> str:
    """A digest of every ``*.py`` file under ``folders`` of ``root``: its path from
    ``root``, its size and the sha1 of its bytes (not its mtime: a checkout that rewrites
    a file unchanged keeps the stamp). Read anew on each call."""
    digest = hashlib.sha1()
    for folder in folders:
        for here, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(here, name)
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                except OSError:  # removed while walking: it is not a source any more
                    continue
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                digest.update(f"{rel}\0{len(data)}\0".encode())
                digest.update(hashlib.sha1(data).digest())
    return digest.hexdigest()


@functools.cache
def package_stamp(root: str, folders: tuple[str, ...]) -> str:
    """``source_stamp``, read once a process (the sources of the code it has imported)."""
    return source_stamp(root, folders)


def kernel_sources(py_file: str, root: str = ROOT, layers: tuple[str, ...] = LAYERS) -> tuple[str, ...] | None:
    """The folders of ``root`` whose sources a kernel defined in ``py_file`` may depend
    on: its layer and those below; for a file of ``root`` in no layer (an experiment's or
    a test's kernel) every layer and its own folder; None for a file outside ``root``."""
    try:
        rel = os.path.relpath(os.path.realpath(py_file), os.path.realpath(root))
    except ValueError:  # another drive (Windows)
        return None
    parts = rel.split(os.sep)
    if parts[0] == os.pardir:
        return None
    top = parts[0]
    if top in layers:
        return layers[: layers.index(top) + 1]
    return layers if len(parts) == 1 else (*layers, top)


def _package_of(py_file: str) -> tuple[str, tuple[str, ...]] | None:
    """(root, folders) of the first stamped package holding ``py_file``, or None."""
    for root, layers in _stamped:
        folders = kernel_sources(py_file, root, layers)
        if folders is not None:
            return root, folders
    return None


def _with_stamp(locate: Callable, py_func, py_file: str):
    """numba's ``locate(py_func, py_file)`` for a kernel of a stamped package, given
    the stamp of its sources; None (the next locator's turn) for any other kernel."""
    package = _package_of(py_file)
    if package is None:
        return None
    locator = locate(py_func, py_file)
    if locator is not None:
        locator.sources_stamp = package_stamp(*package)
    return locator


class SourcesStamp:
    """A numba cache locator's mixin: its source stamp is numba's (the kernel's own file)
    and that of the package folders the kernel may depend on."""

    sources_stamp = ""

    @classmethod
    def from_function(cls, py_func, py_file: str):
        return _with_stamp(super().from_function, py_func, py_file)  # type: ignore[misc]

    def get_source_stamp(self) -> tuple[object, str]:
        return super().get_source_stamp(), self.sources_stamp  # type: ignore[misc]


class StampedUserProvidedLocator(SourcesStamp, UserProvidedCacheLocator):
    """numba's cache in $NUMBA_CACHE_DIR, for a kernel of a stamped package."""


class StampedInTreeLocator(SourcesStamp, InTreeCacheLocator):
    """numba's cache in the ``__pycache__`` beside the source, stamped the same way."""


class StampedUserWideLocator(SourcesStamp, UserWideCacheLocator):
    """numba's cache in the user's cache folder, stamped the same way."""


#: Ours, in numba's order (its cache folder if set, else beside the source, else the user's).
STAMPED_LOCATORS = (StampedUserProvidedLocator, StampedInTreeLocator, StampedUserWideLocator)


def _install_stamps(root: str, layers: tuple[str, ...]) -> None:
    """Stamp the caches of ``root``'s kernels decorated from now on (idempotent)."""
    if (root, layers) not in _stamped:
        _stamped.append((root, layers))
    # numba asks each class of CacheImpl._locator_classes in turn for a kernel's cache
    # when the kernel is decorated (CacheImpl.__init__); numba's config points at this
    # list as the locators and their order ($NUMBA_CACHE_LOCATOR_CLASSES replaces it
    # for a process, and then bypasses ours). An attribute, not an imported underscore
    # name; changed in place, so that every CacheImpl subclass sees ours first.
    classes = CacheImpl._locator_classes
    if classes[: len(STAMPED_LOCATORS)] != list(STAMPED_LOCATORS):
        classes[:] = [*STAMPED_LOCATORS, *(c for c in classes if c not in STAMPED_LOCATORS)]


class _Listener:
    """A numba compile-event listener calling ``started(name, depth)`` and
    ``finished(name, seconds, depth, argument types)`` for our kernels."""

    def __init__(self, started, finished) -> None:
        from numba.core import event

        self._event = event
        self._stack: list[float] = []
        outer = self

        class Listener(event.Listener):
            def on_start(self, ev) -> None:
                outer._stack.append(time.perf_counter())
                d = ev.data["dispatcher"]
                if _ours(d) and started is not None:
                    started(kernel_name(d), len(outer._stack) - 1)

            def on_end(self, ev) -> None:
                t0 = outer._stack.pop()
                d = ev.data["dispatcher"]
                if _ours(d) and finished is not None:
                    finished(kernel_name(d), time.perf_counter() - t0, len(outer._stack), str(ev.data["args"]))

        self.listener = Listener()

    def register(self) -> None:
        self._event.register("numba:compile", self.listener)

    def unregister(self) -> None:
        self._event.unregister("numba:compile", self.listener)


def _log_compiles(path: str) -> None:
    def finished(name: str, seconds: float, depth: int, args: str) -> None:
        line = {
            "pid": os.getpid(),
            "kernel": name,
            "signature": hashlib.sha1(args.encode()).hexdigest()[:16],
            "seconds": round(seconds, 3),
            "depth": depth,
        }
        with contextlib.suppress(OSError), open(path, "a") as f:
            f.write(json.dumps(line) + "\n")

    _Listener(None, finished).register()


@contextlib.contextmanager
def watch(
    started: Callable[[str, int], None] | None = None,
    finished: Callable[[str, float, int, str], None] | None = None,
) -> Iterator[None]:
    """Within the block, ``started(kernel, depth)`` when numba starts compiling one of
    our kernels (depth: kernels it is compiled for, 0 at the top), and
    ``finished(kernel, seconds, depth, argument types)`` when it is done. Loads from the
    cache are not compiles and are not reported."""
    listener = _Listener(started, finished)
    listener.register()
    try:
        yield
    finally:
        listener.unregister()


def compile_log(path: str) -> list[dict]:
    """The lines of a $POKERBOT_COMPILE_LOG file (unreadable lines left out)."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                with contextlib.suppress(ValueError):
                    out.append(json.loads(line))
    except OSError:
        pass
    return out


def compiled_twice(lines: list[dict]) -> dict[tuple[str, str], list[int]]:
    """(kernel, signature) compiled by more than one process in a compile log, with
    the processes."""
    by: dict[tuple[str, str], set[int]] = {}
    for x in lines:
        by.setdefault((x["kernel"], x["signature"]), set()).add(int(x["pid"]))
    return {k: sorted(v) for k, v in by.items() if len(v) > 1}
