"""Exponential backoff with jitter and periodic reset, on the cluster clock and RNG.

A port of apimachinery ``pkg/util/wait/backoff.go`` (``Backoff.Step``, ``Jitter``,
``Backoff.DelayWithReset``), which the Reflector uses between failed ListAndWatch attempts.

Contract:
- :meth:`BackoffManager.step` returns the next delay: ``duration``, then ``duration * factor``, ... up to
  ``cap``, each stretched by a random jitter in ``[0, jitter * delay)`` drawn from ``rng``.
- Once ``reset_interval`` has passed since the sequence (re)started, the next step starts over from the
  initial duration, so an apiserver that has been healthy for a while is retried quickly again.
- Pure computation plus ``clock.now()``: no waiting, no global randomness.
"""

from __future__ import annotations

import math
import random

from kubelite.clock import Clock

__all__ = ["Backoff", "BackoffManager", "jitter"]


def jitter(duration: float, max_factor: float, rng: random.Random) -> float:
    """``duration`` plus a random fraction of up to ``max_factor * duration`` (upstream ``wait.Jitter``)."""
    if max_factor <= 0.0:
        max_factor = 1.0
    return duration + rng.random() * max_factor * duration


class Backoff:
    """upstream ``wait.Backoff``: mutable; :meth:`step` advances it."""

    __slots__ = ("cap", "duration", "factor", "jitter", "steps")

    def __init__(self, *, duration: float, factor: float = 1.0, jitter: float = 0.0, steps: int = 1,
                 cap: float = 0.0) -> None:
        self.duration = duration
        self.factor = factor
        self.jitter = jitter
        self.steps = steps
        self.cap = cap

    def copy(self) -> Backoff:
        """An independent copy (its own step count)."""
        return Backoff(duration=self.duration, factor=self.factor, jitter=self.jitter, steps=self.steps,
                       cap=self.cap)

    def step(self, rng: random.Random) -> float:
        """The next delay; once ``steps`` are used up (or ``cap`` is hit) the delay stays put."""
        if self.steps < 1:
            return jitter(self.duration, self.jitter, rng) if self.jitter > 0 else self.duration
        self.steps -= 1
        delay = self.duration
        if self.factor != 0:
            self.duration = self.duration * self.factor
            if self.cap > 0 and self.duration > self.cap:
                self.duration = self.cap
                self.steps = 0
        return jitter(delay, self.jitter, rng) if self.jitter > 0 else delay


class BackoffManager:
    """``Backoff.DelayWithReset(clock, reset_interval)``: a Backoff that starts over every
    ``reset_interval`` seconds."""

    __slots__ = ("_backoff", "_clock", "_initial", "_last_start", "_rng", "reset_interval")

    def __init__(self, backoff: Backoff, *, clock: Clock, rng: random.Random, reset_interval: float) -> None:
        self._initial = backoff.copy()
        self._backoff = backoff.copy()
        self._clock = clock
        self._rng = rng
        self.reset_interval = reset_interval
        self._last_start = clock.now()

    def step(self) -> float:
        """The next delay (exponential with jitter, reset after a quiet period), as upstream ``BackoffManager.Backoff``."""
        now = self._clock.now()
        if self.reset_interval <= 0:
            self._backoff = self._initial.copy()
        elif now - self._last_start > self.reset_interval:
            self._backoff = self._initial.copy()
            self._last_start = now
        return self._backoff.step(self._rng)

    @classmethod
    def reflector_default(cls, *, clock: Clock, rng: random.Random) -> BackoffManager:
        """The Reflector's defaults: 800 ms doubling to 30 s, jitter 1.0, reset after 2 minutes."""
        init, cap = 0.8, 30.0
        return cls(
            Backoff(duration=init, factor=2.0, jitter=1.0, steps=math.ceil(cap / init), cap=cap),
            clock=clock, rng=rng, reset_interval=120.0,
        )
