"""Leader election over a coordination.k8s.io/v1 Lease (client-go ``tools/leaderelection``).

See :mod:`kubelite.leaderelection.leader_election` for the guarantees (and the lack of fencing) and
:mod:`kubelite.leaderelection.resourcelock` for the lock.
"""

from kubelite.leaderelection.leader_election import JITTER_FACTOR, LeaderElectionConfig, LeaderElector
from kubelite.leaderelection.resourcelock import LeaderElectionRecord, LeaseLock, ResourceLock

__all__ = [
    "JITTER_FACTOR",
    "LeaderElectionConfig",
    "LeaderElectionRecord",
    "LeaderElector",
    "LeaseLock",
    "ResourceLock",
]
