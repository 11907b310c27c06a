"""Identifiers from the cluster RNG: uids are exactly the version-4 UUIDs the standard library makes
from the same 128 random bits, so a seed gives the same uids as before the direct formatting."""

from __future__ import annotations

import random
import uuid

from kubelite.rand import SUFFIX_ALPHABET, new_uid, random_suffix


def test_new_uid_is_uuid4_of_the_same_bits() -> None:
    ours, reference = random.Random(11), random.Random(11)
    for _ in range(20_000):
        uid = new_uid(ours)
        assert uid == str(uuid.UUID(int=reference.getrandbits(128), version=4))
        assert uuid.UUID(uid).version == 4


def test_random_suffix_uses_upstreams_alphabet() -> None:
    suffix = random_suffix(random.Random(3))
    assert len(suffix) == 5
    assert set(suffix) <= set(SUFFIX_ALPHABET)
