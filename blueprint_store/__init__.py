"""Abstraction and the blueprint artifact: card buckets, the action abstraction, MCCFR
training, the memory-mapped store, self-improvement. May import solver and protocol.

Its kernels compile under the solver's compile lock (``solver.kernel_cache``)."""

from pokerbot.solver import kernel_cache

kernel_cache.install()
