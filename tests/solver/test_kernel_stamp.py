"""A kernel's on-disk cache is invalidated by an edit to any source it may depend on, not
only its own file (``kernel_cache.install``'s source stamp; numba alone keeps running a
called kernel's old code: issue #1833)."""

import importlib
import os
import subprocess
import sys

import numba as nb

from pokerbot.solver import kernel_cache

#: Run in a fresh process: call ``a.f`` (which calls ``b.g``) from the folder argv[1]/lib,
#: with the package stamp installed for argv[1] when argv[2] is "stamped", and print its
#: value and whether numba loaded it from its cache or compiled it.
CHILD = """
import sys
from pokerbot.solver import kernel_cache
root, how = sys.argv[1], sys.argv[2]
if how == "stamped":
    kernel_cache.install(root, ("lib",))
sys.path.insert(0, root + "/lib")
import a
print(a.f(), "loaded" if a.f.stats.cache_hits else "compiled")
"""

A = """import numba as nb
from b import g


@nb.njit(cache=True)
def f():
    return g()
"""

B = """import numba as nb


@nb.njit(cache=True)
def g():
    return 1
"""


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_stamp_follows_contents_not_mtimes(tmp_path):
    root = tmp_path / "src"
    write(root / "low" / "x.py", "A = 1\n")
    write(root / "low" / "sub" / "y.py", "B = 2\n")
    write(root / "low" / "notes.txt", "not a source\n")
    write(root / "high" / "z.py", "C = 3\n")
    low, both = kernel_cache.source_stamp(str(root), ("low",)), kernel_cache.source_stamp(str(root), ("low", "high"))
    assert low != both

    x = root / "low" / "x.py"
    st = x.stat()
    os.utime(x, (st.st_atime + 100, st.st_mtime + 100))  # a checkout touching it
    x.write_bytes(x.read_bytes())  # rewritten unchanged
    assert kernel_cache.source_stamp(str(root), ("low",)) == low

    x.write_text("A = 2\n")  # one byte, same size
    assert kernel_cache.source_stamp(str(root), ("low",)) != low
    x.write_text("A = 1\n")
    assert kernel_cache.source_stamp(str(root), ("low",)) == low

    (root / "low" / "notes.txt").write_text("still not a source\n")
    assert kernel_cache.source_stamp(str(root), ("low",)) == low

    (root / "high" / "z.py").write_text("C = 4\n")  # another folder: only the stamps that cover it
    assert kernel_cache.source_stamp(str(root), ("low",)) == low
    assert kernel_cache.source_stamp(str(root), ("low", "high")) != both

    write(root / "low" / "sub" / "new.py", "")  # a new module, even an empty one
    assert kernel_cache.source_stamp(str(root), ("low",)) != low


def test_a_kernel_depends_on_its_layer_and_those_below(tmp_path):
    root = str(tmp_path / "pkg")
    layers = ("protocol", "solver", "blueprint_store", "bot")

    def sources(*rel: str):
        return kernel_cache.kernel_sources(os.path.join(root, *rel), root, layers)

    assert sources("protocol", "hand_rank.py") == ("protocol",)
    assert sources("solver", "passes.py") == ("protocol", "solver")
    assert sources("blueprint_store", "indexer.py") == ("protocol", "solver", "blueprint_store")
    assert sources("bot", "bench", "evaluator.py") == layers
    assert sources("experiments", "spots.py") == (*layers, "experiments")  # no layer: all, and its own folder
    assert sources("setup.py") == layers
    assert kernel_cache.kernel_sources(str(tmp_path / "elsewhere" / "x.py"), root, layers) is None
    assert kernel_cache.LAYERS == layers


def test_the_packages_kernels_are_stamped():
    """Every cached kernel of the package's imported modules has one of our locators (so
    none was decorated before ``install``), with the stamp of its layer and those below."""
    for name in ("solver.passes", "solver.mccfr", "blueprint_store.abstraction"):
        importlib.import_module(kernel_cache.PACKAGE + name)
    from pokerbot.solver import passes

    kernels = [
        value
        for name, module in list(sys.modules.items())
        if name.startswith(kernel_cache.PACKAGE)
        for value in list(vars(module).values())
        if isinstance(value, nb.core.registry.CPUDispatcher) and hasattr(value._cache, "_impl")  # cache=True
    ]
    assert len(kernels) > 40
    for kernel in kernels:
        # numba's attributes (not imported names): the dispatcher's cache and its locator
        locator = kernel._cache._impl.locator
        assert isinstance(locator, kernel_cache.STAMPED_LOCATORS), kernel_cache.kernel_name(kernel)
        folders = kernel_cache.kernel_sources(kernel.py_func.__code__.co_filename)
        assert locator.sources_stamp == kernel_cache.package_stamp(kernel_cache.ROOT, folders)
    solver = kernel_cache.package_stamp(kernel_cache.ROOT, ("protocol", "solver"))
    assert passes.normalise._cache._impl.locator.get_source_stamp()[1] == solver


def run_edit_run(tmp_path, how: str) -> list[str]:
    """``a.f`` (calling ``b.g``, which returns 1) in a fresh process on a fresh numba cache,
    then again after b.py is edited to return 2, then once more: each run's output."""
    root = tmp_path / "src"
    write(root / "lib" / "a.py", A)
    write(root / "lib" / "b.py", B)
    # no .pyc: the edit keeps b.py's size and may keep its mtime's second, which is all
    # Python checks before it reuses a stale .pyc
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")

    def run() -> str:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(root), how],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    first = run()
    (root / "lib" / "b.py").write_text(B.replace("return 1", "return 2"))
    return [first, run(), run()]


def test_an_edit_to_a_called_kernels_file_recompiles_its_caller(tmp_path):
    """With the stamp, the caller is compiled anew after the edit (and loaded from the
    cache on the next run: the stamp does not make every run compile)."""
    assert run_edit_run(tmp_path, "stamped") == ["1 compiled", "2 compiled", "2 loaded"]


def test_without_the_stamp_the_caller_keeps_the_old_callee(tmp_path):
    """Negative control: numba alone loads the caller from its cache after the edit, with
    the old callee inlined (its own file did not change), so the first test can fail."""
    assert run_edit_run(tmp_path, "numba") == ["1 compiled", "1 loaded", "1 loaded"]
