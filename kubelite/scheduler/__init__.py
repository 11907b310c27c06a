"""kubelite's kube-scheduler. See :mod:`kubelite.scheduler.scheduler` for how to start it.

Public API: :class:`Scheduler`, and the plugin framework in :mod:`kubelite.scheduler.framework`.
"""

from kubelite.scheduler.explain import Explanation, Rejection
from kubelite.scheduler.scheduler import Scheduler
from kubelite.scheduler.statistics import LatencySummary, SchedulerStatistics

__all__ = ["Explanation", "LatencySummary", "Rejection", "Scheduler", "SchedulerStatistics"]
