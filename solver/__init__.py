"""Numeric kernels (numba): the hand evaluator, public trees, vector CFR+, subgame gadgets,
best response, MCCFR. May import protocol only.

Importing it makes this process compile each kernel under the machine's compile lock
(``kernel_cache``), so that processes started together compile a kernel once."""

from . import kernel_cache

kernel_cache.install()
