"""Scaling behavior: stabilization windows and rate policies, ``horizontal.go``
(``stabilizeRecommendationWithBehaviors``, ``convertDesiredReplicasWithBehaviorRate``,
``calculateScaleUpLimitWithScalingRules``, ``calculateScaleDownLimitWithBehaviors``) with the defaults of
``pkg/apis/autoscaling/v2/defaults.go``: scale-up without a window, at most max(+4 pods, +100%) per 15 s;
scale-down with a 300 s window, at most -100% per 15 s.

:class:`BehaviorState` is one HPA's memory (its recent recommendations and scale events); the functions
are pure given it. Upstream keeps the same in memory, so a restarted controller forgets them too.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

__all__ = ["DEFAULT_SCALE_DOWN", "DEFAULT_SCALE_UP", "BehaviorState", "Limited", "Rules", "normalize"]


class Policy(msgspec.Struct, frozen=True):
    type: str  # "Pods" | "Percent"
    value: int
    period_seconds: int


class Rules(msgspec.Struct, frozen=True, kw_only=True):
    stabilization_window_seconds: int
    select_policy: str = "Max"
    policies: tuple[Policy, ...] = ()


DEFAULT_SCALE_UP = Rules(stabilization_window_seconds=0, select_policy="Max",
                         policies=(Policy("Pods", 4, 15), Policy("Percent", 100, 15)))
DEFAULT_SCALE_DOWN = Rules(stabilization_window_seconds=300, select_policy="Max",
                           policies=(Policy("Percent", 100, 15),))


def rules_from(spec: dict[str, Any] | None, default: Rules) -> Rules:
    """HPAScalingRules (JSON form) with upstream's defaulting of missing fields."""
    if not spec:
        return default
    policies = tuple(Policy(p["type"], int(p["value"]), int(p["periodSeconds"])) for p in spec.get("policies") or ())
    window = spec.get("stabilizationWindowSeconds")
    return Rules(stabilization_window_seconds=default.stabilization_window_seconds if window is None else int(window),
                 select_policy=spec.get("selectPolicy") or "Max", policies=policies or default.policies)


class BehaviorState:
    """Recent recommendations ``(time, replicas)`` and scale events ``(time, +/-change)`` of one HPA."""

    def __init__(self) -> None:
        self.recommendations: list[tuple[float, int]] = []
        self.scale_up_events: list[tuple[float, int]] = []
        self.scale_down_events: list[tuple[float, int]] = []

    def record_scale(self, now: float, change: int, up: Rules, down: Rules) -> None:
        """``storeScaleEvent``, dropping events older than the longest policy period."""
        if change > 0:
            keep = max((p.period_seconds for p in up.policies), default=0)
            self.scale_up_events = [e for e in self.scale_up_events if e[0] > now - keep] + [(now, change)]
        elif change < 0:
            keep = max((p.period_seconds for p in down.policies), default=0)
            self.scale_down_events = [e for e in self.scale_down_events if e[0] > now - keep] + [(now, -change)]


class Limited(msgspec.Struct, frozen=True):
    replicas: int
    reason: str
    message: str


def _stabilize(state: BehaviorState, now: float, current: int, desired: int, up: Rules, down: Rules
               ) -> tuple[int, str, str]:
    up_rec = down_rec = desired
    up_cut, down_cut = now - up.stabilization_window_seconds, now - down.stabilization_window_seconds
    for t, replicas in state.recommendations:
        if t > up_cut:
            up_rec = min(up_rec, replicas)
        if t > down_cut:
            down_rec = max(down_rec, replicas)
    keep = max(up.stabilization_window_seconds, down.stabilization_window_seconds)
    state.recommendations = [r for r in state.recommendations if r[0] > now - keep] + [(now, desired)]
    recommendation = current
    if recommendation < up_rec:
        recommendation = up_rec
    if recommendation > down_rec:
        recommendation = down_rec
    if recommendation != desired:
        if desired < current:
            return recommendation, "ScaleDownStabilized", "recent recommendations were higher than current one, " \
                "applying the highest recent recommendation"
        return recommendation, "ScaleUpStabilized", "recent recommendations were lower than current one, " \
            "applying the lowest recent recommendation"
    return recommendation, "ReadyForNewScale", "recommended size matches current size"


def _changed_in_period(events: list[tuple[float, int]], period: int, now: float) -> int:
    return sum(change for t, change in events if t > now - period)


def _up_limit(state: BehaviorState, current: int, rules: Rules, now: float) -> int:
    if rules.select_policy == "Disabled":
        return current
    limits = []
    for p in rules.policies:
        start = current - _changed_in_period(state.scale_up_events, p.period_seconds, now) + \
            _changed_in_period(state.scale_down_events, p.period_seconds, now)
        limits.append(start + p.value if p.type == "Pods" else math.ceil(start * (1 + p.value / 100)))
    if not limits:
        return current
    return min(limits) if rules.select_policy == "Min" else max(limits)


def _down_limit(state: BehaviorState, current: int, rules: Rules, now: float) -> int:
    if rules.select_policy == "Disabled":
        return current
    limits = []
    for p in rules.policies:
        start = current - _changed_in_period(state.scale_up_events, p.period_seconds, now) + \
            _changed_in_period(state.scale_down_events, p.period_seconds, now)
        limits.append(start - p.value if p.type == "Pods" else math.floor(start * (1 - p.value / 100)))
    if not limits:
        return current
    return max(limits) if rules.select_policy == "Min" else min(limits)


def normalize(state: BehaviorState, now: float, current: int, desired: int, min_replicas: int, max_replicas: int,
              up: Rules, down: Rules) -> tuple[int, tuple[str, str], Limited | None]:
    """``normalizeDesiredReplicasWithBehaviors``: the replica count to set, the AbleToScale reason/message of
    the stabilization, and the ScalingLimited outcome (None: within range)."""
    stabilized, reason, message = _stabilize(state, now, current, desired, up, down)
    if stabilized > current:
        limit = max(_up_limit(state, current, up, now), current)  # no more until old events age out
        if limit < max_replicas and stabilized > limit:
            return limit, (reason, message), Limited(limit, "ScaleUpLimit",
                                                     "the desired replica count is increasing faster than the "
                                                     "maximum scale rate")
        if stabilized > max_replicas:
            return max_replicas, (reason, message), Limited(max_replicas, "TooManyReplicas",
                                                            "the desired replica count is more than the maximum "
                                                            "replica count")
    elif stabilized < current:
        limit = min(_down_limit(state, current, down, now), current)
        if limit > min_replicas and stabilized < limit:
            return limit, (reason, message), Limited(limit, "ScaleDownLimit",
                                                     "the desired replica count is decreasing faster than the "
                                                     "maximum scale rate")
        if stabilized < min_replicas:
            return min_replicas, (reason, message), Limited(min_replicas, "TooFewReplicas",
                                                            "the desired replica count is less than the minimum "
                                                            "replica count")
    return stabilized, (reason, message), None
