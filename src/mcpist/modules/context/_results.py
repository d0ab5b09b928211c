"""What the tools return (their output schemas derive from these models)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ._model import Exchange, Item, SessionRow
from ._rules import Classification

ClassifiedBy = Literal["model", "rules", "llm:sampling", "llm:endpoint"]


class StartSessionResult(BaseModel):
    session_id: str
    expires_at: datetime = Field(description="when the session expires unless it is used again")


class Keyword(BaseModel):
    term: str
    score: float = Field(description="TF-IDF over the caller's sessions")


class TurnResult(BaseModel):
    session_id: str
    turn: int
    classification: Classification = Field(description="seed 004 §4.2: intent (at most two labels) and reason")
    classified_by: ClassifiedBy
    classifier_fallback: str | None = Field(
        default=None,
        description="why the LLM classifier was not used (the model labelled instead), when it was configured",
    )
    keywords: list[Keyword] = Field(description="only for problem definitions, constraints and refinements")
    stored_as: list[Literal["core", "evolving"]] = Field(description="the tiers the message was stored in")
    superseded: list[str] = Field(description="earlier constraints this message replaced")
    prompt: str = Field(description="the synthesised prompt for the main LLM (seed 004 §4.5)")


class RespondResult(TurnResult):
    response: str
    responded_by: Literal["sampling", "endpoint"]


class RecordResponseResult(BaseModel):
    session_id: str
    turn: int = Field(description="the user turn the response was attached to")
    replaced: bool = Field(description="whether an earlier response of that turn was overwritten")


class ContextItem(BaseModel):
    id: str
    kind: Literal["problem", "constraint", "refinement"]
    text: str
    label: str
    reason: str = Field(description="why it is stored")
    keywords: list[str]
    turn: int
    status: Literal["active", "pinned", "replaced", "dropped"] = Field(
        description="pinned: never replaced automatically; dropped: by drop_item"
    )
    refines: str | None = None
    superseded_by: str | None = None
    replaced_by: str | None = Field(default=None, description="the text that replaced it")
    replaced_reason: str | None = None

    @classmethod
    def of(cls, item: Item, texts: dict[str, str] | None = None) -> ContextItem:
        status: Literal["active", "pinned", "replaced", "dropped"] = (
            "dropped" if item.dropped else "replaced" if item.superseded_by else "pinned" if item.pinned else "active"
        )
        return cls(
            id=item.id,
            kind=item.kind,
            text=item.text,
            label=item.label,
            reason=item.reason,
            keywords=item.keywords,
            turn=item.turn,
            status=status,
            refines=item.parent_id,
            superseded_by=item.superseded_by,
            replaced_by=(texts or {}).get(item.superseded_by or ""),
            replaced_reason=item.replaced_reason,
        )


class TurnView(BaseModel):
    turn: int
    message: str
    response: str | None
    intent: list[str]
    keywords: list[str]

    @classmethod
    def of(cls, exchange: Exchange) -> TurnView:
        return cls(
            turn=exchange.turn,
            message=exchange.message,
            response=exchange.response,
            intent=exchange.intent,
            keywords=exchange.keywords,
        )


class SessionSummary(BaseModel):
    session_id: str
    title: str | None = Field(description="from the first problem definition")
    language: Literal["ja", "en"] | None
    turns: int
    created_at: datetime
    updated_at: datetime
    expires_at: datetime

    @classmethod
    def of(cls, session: SessionRow, expires_at: datetime) -> SessionSummary:
        return cls(
            session_id=session.id,
            title=session.title,
            language=session.language,
            turns=session.turns,
            created_at=session.created_at,
            updated_at=session.updated_at,
            expires_at=expires_at,
        )


class ContextView(BaseModel):
    session: SessionSummary
    core: list[ContextItem] = Field(description="long-term: problem definitions (the first is never dropped)")
    evolving: list[ContextItem] = Field(description="mid-term: active constraints and refinements")
    turns: list[TurnView] = Field(description="short-term: the last exchanges")
    superseded: list[ContextItem] = Field(description="items out of the prompt: replaced or dropped, oldest first")


class ItemChange(BaseModel):
    session_id: str
    item: ContextItem
    prompt: str = Field(description="the synthesised prompt after the change")


class PromptView(BaseModel):
    session_id: str
    language: Literal["ja", "en"]
    prompt: str


class SessionList(BaseModel):
    sessions: list[SessionSummary]


class EndSessionResult(BaseModel):
    session_id: str
    ended: bool = True
