"""The hierarchical context store of one session, in memory (seed 004 §4.4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from ._text import Language

Tier = Literal["core", "evolving"]
Kind = Literal["problem", "constraint", "refinement"]


@dataclass
class Item:
    """A statement kept in the core (problem definitions) or evolving (constraints, refinements) tier."""

    id: str
    tier: Tier
    kind: Kind
    text: str
    keywords: list[str]
    terms: list[str]
    slots: list[str]
    turn: int
    created_at: datetime
    parent_id: str | None = None
    superseded_by: str | None = None
    label: str = ""
    reason: str = ""
    pinned: bool = False
    dropped: bool = False
    replaced_reason: str | None = None

    @property
    def active(self) -> bool:
        return self.superseded_by is None and not self.dropped


@dataclass
class Exchange:
    """One user message of the turn context and the assistant's reply, once recorded."""

    turn: int
    message: str
    language: Language
    intent: list[str]
    reason: str
    keywords: list[str]
    created_at: datetime
    response: str | None = None


@dataclass
class SessionRow:
    id: str
    user_id: str
    title: str | None
    language: Language | None
    turns: int
    created_at: datetime
    updated_at: datetime


@dataclass
class Store:
    session: SessionRow
    items: list[Item] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)

    def active(self, tier: Tier) -> list[Item]:
        return [item for item in self.items if item.tier == tier and item.active]

    def superseded(self) -> list[Item]:
        """Items out of the prompt: replaced by a later one, or dropped by the user."""
        return [item for item in self.items if not item.active]

    def goals(self) -> list[Item]:
        return [item for item in self.active("core") if item.kind == "problem"]

    def by_id(self, item_id: str) -> Item | None:
        return next((item for item in self.items if item.id == item_id), None)
