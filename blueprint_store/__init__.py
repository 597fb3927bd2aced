"""Abstraction and the blueprint artifact: card buckets, the action abstraction, MCCFR
training, the memory-mapped store, self-improvement. May import solver and protocol."""
