"""Identifiers drawn from the cluster's one seeded ``random.Random``.

Every random choice in kubelite comes from the ``rng`` the cluster owns and passes in; the same seed
gives the same uids, generated names and jitter, which is what makes a run replay byte for byte.
"""

from __future__ import annotations

import random

__all__ = ["SUFFIX_ALPHABET", "new_uid", "random_suffix"]

#: Upstream's alphabet for generateName suffixes (k8s.io/apimachinery/pkg/util/rand: no vowels, no
#: confusable characters), so generated names look like real ones ("nginx-7d9f8").
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


# uuid.UUID(int=n, version=4): the variant bits (10xx) and the version nibble (4) forced into n
_UUID4_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_UUID4_SET = (0x8000 << 48) | (0x4000 << 64)


def new_uid(rng: random.Random) -> str:
    """A version-4 UUID string from ``rng``: ``str(uuid.UUID(int=rng.getrandbits(128), version=4))``,
    formatted directly (every create stamps one)."""
    h = f"{rng.getrandbits(128) & _UUID4_CLEAR | _UUID4_SET:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def random_suffix(rng: random.Random, n: int = 5) -> str:
    """``n`` characters as upstream's ``rand.String`` draws them for generateName."""
    return "".join(rng.choice(SUFFIX_ALPHABET) for _ in range(n))
