"""Settings of the memory module: the embedding provider and search defaults."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

LocalModel = Literal["use-multilingual-v3", "multilingual-e5-small"]


class OpenAIEmbeddings(BaseModel):
    """Any OpenAI-compatible `/embeddings` endpoint."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="e.g. https://api.openai.com/v1 (the path `/embeddings` is appended)")
    model: str = Field(description="model name sent in each request, e.g. text-embedding-3-small")
    api_key: SecretStr | None = None
    api_key_env: str | None = Field(default=None, description="read the key from this environment variable")
    dimensions: int | None = Field(default=None, ge=1, le=16000, description="ask the endpoint for this size")
    timeout: float = Field(default=30.0, gt=0)
    batch_size: int = Field(default=64, ge=1, le=2048)
    minimum_similarity: float = Field(default=0.3, ge=-1, le=1)
    duplicate_similarity: float = Field(default=0.95, ge=-1, le=1)
    max_input_chars: int = Field(
        default=8_000, ge=100, le=1_000_000, description="characters of a text sent to be embedded (8,191 tokens)"
    )


class MemorySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: Literal["local", "openai"] = "local"
    local_model: LocalModel = "use-multilingual-v3"
    openai: OpenAIEmbeddings | None = None
    default_k: int = Field(default=10, ge=1, le=100)
    default_namespace: str = Field(default="default", min_length=1, max_length=200)
    minimum_similarity: float | None = Field(
        default=None, ge=-1, le=1, description="default for search; None uses the model's own default"
    )
    duplicate_similarity: float | None = Field(
        default=None, ge=-1, le=1, description="warn on save above this cosine; None uses the model's default"
    )
    max_content_chars: int = Field(default=100_000, ge=1)
    max_metadata_bytes: int = Field(default=16_384, ge=2)
    max_query_chars: int = Field(
        default=2_000, ge=10, le=100_000, description="a search query; longer ones are INVALID_ARGUMENT"
    )
    max_memos_per_namespace: int = Field(
        default=100_000, ge=1, description="memos one user keeps in one namespace; a save beyond is RESOURCE_EXHAUSTED"
    )
    cpu_workers: int = Field(
        default=2, ge=1, le=64, description="embeddings and tokenisations running at once; others wait their turn"
    )
    cpu_deadline_s: float = Field(
        default=10.0, gt=0, le=600, description="one embedding or tokenisation, waiting for its turn included"
    )
    hnsw_threshold: int = Field(
        default=20_000, ge=1, description="SQLite: a namespace this large gets an HNSW graph; smaller ones are exact"
    )
    hnsw_ef_search: int = Field(default=96, ge=10, le=4000)
