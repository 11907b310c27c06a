"""Markers for the apiserver tests: ``nightly`` campaigns run only with KUBELITE_NIGHTLY=1."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "nightly: long fuzz campaigns (run with KUBELITE_NIGHTLY=1)")
