"""The evaluation of `benchmarks/context_eval.py`, loaded for the tests (benchmarks/ is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "context_eval.py"
_spec = importlib.util.spec_from_file_location("context_eval", _PATH)
assert _spec is not None and _spec.loader is not None
context_eval = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("context_eval", context_eval)
_spec.loader.exec_module(context_eval)

Score = context_eval.Score
play = context_eval.play
expected = context_eval.expected
