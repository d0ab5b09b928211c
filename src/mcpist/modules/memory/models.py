"""What the tools return (their outputSchema derives from these models)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field


class SaveWarning(BaseModel):
    code: Literal["near_duplicate", "embedding_truncated"] = Field(
        description="near_duplicate: another memo says nearly the same; embedding_truncated: only the start of "
        "the content was embedded (what the model reads); keyword search still covers all of it"
    )
    message: str
    memo_id: str = Field(description="the other memo (near_duplicate), or this one")
    similarity: float | None = None


class SaveResult(BaseModel):
    memo_id: str
    namespace: str
    title: str | None = None
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    version: int
    created: bool = Field(description="true when this call created the memo")
    embedding_model: str
    warnings: list[SaveWarning] = Field(default_factory=list)


class SearchItem(BaseModel):
    memo_id: str
    title: str | None = None
    content: str
    score: float = Field(description="what the items are ranked by; higher is better (see `mode`)")
    similarity: float | None = Field(default=None, description="cosine similarity to the query or pivot")
    distance: float | None = Field(default=None, description="L2 distance, when distance_metric is l2")
    matched: list[Literal["semantic", "keyword", "metadata"]]
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    version: int


class SearchResult(BaseModel):
    items: list[SearchItem]
    mode: Literal["hybrid", "semantic", "keyword", "metadata"]
    minimum_similarity: float | None = Field(default=None, description="the threshold applied, if any")
    embedding_model: str


class DeleteResult(BaseModel):
    deleted: bool
    memo_id: str
    namespace: str
    version: int = Field(description="the version the memo had when it was deleted")
    relations_removed: int


class Relation(BaseModel):
    namespace: str
    source_memo_id: str
    target_memo_id: str
    tag: str
    weight: float
    reason: str | None = None
    created_at: datetime
    updated_at: datetime
    version: int


class RelationSaveResult(Relation):
    created: bool
    changed: bool = Field(description="false when weight and reason were already as given")


class RelationDeleteResult(BaseModel):
    deleted: bool
    relation: Relation


class Node(BaseModel):
    memo_id: str
    title: str | None = None
    snippet: str = Field(description="the start of the content")
    metadata: dict[str, Any]
    updated_at: datetime
    version: int


class RelationListResult(BaseModel):
    edges: list[Relation]
    nodes: list[Node]
    truncated: bool = Field(description="more relations match than `limit`")


class GraphEdge(Relation):
    depth: int = Field(description="1 for edges touching the start memo")
    direction: Literal["forward", "backward"]
    path: list[str] = Field(description="memo ids from the start memo to the far end of this edge")
    cycle: bool = Field(description="the far end is already on the path: this edge closes a cycle")


class GraphResult(BaseModel):
    start_memo_id: str
    edges: list[GraphEdge]
    nodes: list[Node]
    truncated: bool = Field(description="the walk stopped at `limit` edges")
    cycles: int = Field(description="edges that close a cycle")
