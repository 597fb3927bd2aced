"""scripts/profile_solve.py: perf's samples named by kernel (the names read off numba's symbols)."""

import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(__file__)
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "profile_solve.py")
spec = importlib.util.spec_from_file_location("profile_solve", SCRIPT)
profile_solve = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profile_solve)

#: A symbol as numba names a kernel of the package (the sweep's, with its signature cut short).
SWEEP = (
    "_ZN8pokerbot6solver13showdown_pass15showdown_valuesB3v54B86c8tJTIeFIjxB2IKSgI4CrvQClYb5wBbdC9XqecCEoK6joJ6"
    "YlgemipILQHReXiKYn1dcpV6rCQzjIohZmgA_3dE5ArrayIfLi1E1C7mutable7alignedEd"
)


def test_a_kernel_symbol_reads_as_its_module_and_name():
    assert profile_solve.readable(SWEEP) == "solver.showdown_pass.showdown_values"
    assert profile_solve.readable("_ZN8pokerbot6solver9tree_pass12_matched_rowB3v35B86c") == (
        "solver.tree_pass._matched_row"
    )


def test_numba_s_wrappers_and_other_code_are_not_named():
    assert profile_solve.readable("_ZN7cpython8pokerbot6solver13showdown_pass15showdown_valuesB3v54B") is None
    assert profile_solve.readable("cfunc." + SWEEP) is None
    assert profile_solve.readable("NRT_incref") is None


def test_bad_arguments_are_refused_before_anything_runs():
    run = subprocess.run([sys.executable, SCRIPT, "--iterations", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--iterations" in run.stderr
