"""Helpers shared by the default plugins (upstream ``plugins/helper``). Node affinity and taint matching,
which the DaemonSet controller needs too, live in :mod:`kubelite.api.scheduling` (component-helpers)."""

from __future__ import annotations

__all__ = ["default_normalize_score"]


def default_normalize_score(max_priority: int, reverse: bool, scores: list[int]) -> None:
    """``helper.DefaultNormalizeScore``: scale to [0, max_priority] by the maximum; reverse flips."""
    top = max(scores, default=0)
    if top == 0:
        if reverse:
            scores[:] = [max_priority] * len(scores)
        return
    if reverse:
        scores[:] = [max_priority - max_priority * s // top for s in scores]
    else:
        scores[:] = [max_priority * s // top for s in scores]
