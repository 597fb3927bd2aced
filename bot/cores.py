"""The CPUs this process may use, and how solving agents share them.

A player that has the machine to itself (``pokerbot play``, the web page's bot, the
Slumbot client) solves on every CPU it may use; a match divides them among the agents
it runs at once (``share_of_cpus``).

>>> share_of_cpus(agents=2, cpus=2), share_of_cpus(agents=4, cpus=2), share_of_cpus(agents=1, cpus=16)
(1, 1, 16)
"""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def share_of_cpus(agents: int, cpus: int | None = None) -> int:
    """Solver threads for each of ``agents`` agents that may compute at the same time on
    ``cpus`` CPUs (default: those this process may use): an equal share, at least 1."""
    cpus = usable_cpus() if cpus is None else cpus
    return max(1, cpus // max(1, agents))
