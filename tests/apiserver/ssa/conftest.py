"""Make the reference implementation (``ssa_reference.py``, the original unspecialised field manager kept
as a test oracle) importable by the tests beside it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
