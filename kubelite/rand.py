"""Identifiers drawn from the cluster's one seeded ``random.Random``.

Every random choice in kubelite comes from the ``rng`` the cluster owns and passes in; the same seed
gives the same uids, generated names and jitter, which is what makes a run replay byte for byte.
"""

from __future__ import annotations

import random
import uuid

__all__ = ["SUFFIX_ALPHABET", "new_uid", "random_suffix"]

#: Upstream's alphabet for generateName suffixes (k8s.io/apimachinery/pkg/util/rand: no vowels, no
#: confusable characters), so generated names look like real ones ("nginx-7d9f8").
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def new_uid(rng: random.Random) -> str:
    """A version-4 UUID string from ``rng``."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def random_suffix(rng: random.Random, n: int = 5) -> str:
    """``n`` characters as upstream's ``rand.String`` draws them for generateName."""
    return "".join(rng.choice(SUFFIX_ALPHABET) for _ in range(n))
