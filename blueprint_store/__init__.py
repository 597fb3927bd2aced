"""Abstraction and the blueprint artifact (card buckets, action abstraction, the memory-mapped store). May import solver and protocol."""
