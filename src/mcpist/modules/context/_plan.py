"""One turn's update of the context store (seed 004 §5.2 "更新と抽出"), computed before anything is written.

Planning is pure: it takes the store as read, the classification and the corpus statistics, and
returns every row to insert, update or delete. `respond` can then call the LLM between planning
and writing, so a failed call leaves nothing half-stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from . import _rules, _supersede, _tfidf
from ._model import Exchange, Item, Kind, Store
from ._rules import Classification
from ._text import Language, split_sentences

_IMPORTANT: set[_rules.Label] = {"PROBLEM_DEFINITION", "CONSTRAINT_ADDITION", "REFINEMENT"}
_EVOLVING: set[_rules.Label] = {"CONSTRAINT_ADDITION", "REFINEMENT"}
TITLE_CHARS = 80

TermsOf = Callable[[str], list[str]]


@dataclass
class TurnPlan:
    store: Store  # the store after this turn, for synthesis
    expected_turns: int
    exchange: Exchange
    new_items: list[Item]
    changes: dict[str, dict[str, str | None]]
    dropped: list[str]
    prune_through: int
    term_docs: list[str]
    keywords: list[tuple[str, float]]
    superseded_texts: list[str] = field(default_factory=list)
    stored_as: list[str] = field(default_factory=list)


def _new_id() -> str:
    return uuid.uuid4().hex


def _content_sentences(message: str, language: Language, terms_of: TermsOf) -> list[str]:
    """The message's sentences that say something ("いいね。", "Thanks." do not)."""
    sentences = [
        s
        for s in split_sentences(message)
        if terms_of(s) or _supersede.slots_of(s) or set(_rules.classify(s, language).intent) & _EVOLVING
    ]
    return sentences or [message.strip()]


def _route(
    message: str, labels: set[_rules.Label], language: Language, terms_of: TermsOf
) -> tuple[str | None, list[str]]:
    """What goes to the core tier and which statements go to the evolving tier."""
    problem = "PROBLEM_DEFINITION" in labels
    evolving = bool(labels & _EVOLVING)
    if not evolving:
        return (message.strip() if problem else None), []
    sentences = _content_sentences(message, language, terms_of)
    verdicts: list[tuple[str, set[_rules.Label]]] = [(s, set(_rules.classify(s, language).intent)) for s in sentences]
    conditions = [s for s, v in verdicts if v & _EVOLVING or _supersede.slots_of(s)]
    if problem:
        goals = [s for s, v in verdicts if "PROBLEM_DEFINITION" in v and not v & _EVOLVING]
        if goals and conditions and len(sentences) > 1:
            return " ".join(goals), conditions
        return message.strip(), [message.strip()]
    if len(sentences) > 1 and len(conditions) == len(sentences):
        return None, conditions
    return None, [" ".join(sentences)]


def plan_turn(
    store: Store,
    *,
    message: str,
    language: Language,
    classification: Classification,
    terms_of: TermsOf,
    df: Mapping[str, int],
    n_docs: int,
    max_keywords: int,
    core_max_items: int,
    turn_window: int,
    now: datetime,
) -> TurnPlan:
    """Plan one user turn. `df` and `n_docs` are the user's corpus statistics before this message."""
    labels = set(classification.intent)
    turn = store.session.turns + 1
    message_terms = terms_of(message)
    distinct = sorted(set(message_terms))
    df_now = {term: df.get(term, 0) + 1 for term in distinct}
    docs_now = n_docs + 1

    def keywords_of(terms: list[str]) -> list[tuple[str, float]]:
        return _tfidf.keywords(terms, df_now, docs_now, max_keywords)

    important = bool(labels & _IMPORTANT)
    message_keywords = keywords_of(message_terms) if important else []
    items = [replace(item) for item in store.items]
    after = Store(replace(store.session), items, [replace(e) for e in store.exchanges])
    plan = TurnPlan(
        store=after,
        expected_turns=store.session.turns,
        exchange=Exchange(
            turn=turn,
            message=message,
            language=language,
            intent=list(classification.intent),
            reason=classification.reason,
            keywords=[k for k, _ in message_keywords],
            created_at=now,
        ),
        new_items=[],
        changes={},
        dropped=[],
        prune_through=turn - turn_window,
        term_docs=distinct,
        keywords=message_keywords,
    )

    core_text, statements = _route(message, labels, language, terms_of) if important else (None, [])

    def make(tier: str, kind: Kind, text: str) -> Item:
        terms = terms_of(text)
        item = Item(
            id=_new_id(),
            tier="core" if tier == "core" else "evolving",
            kind=kind,
            text=text,
            keywords=[k for k, _ in keywords_of(terms)],
            terms=sorted(set(terms)),
            slots=sorted(_supersede.slots_of(text)),
            turn=turn,
            created_at=now,
        )
        plan.new_items.append(item)
        return item

    def change(item: Item, **values: str | None) -> None:
        for key, value in values.items():
            setattr(item, key, value)
        if not any(item is new for new in plan.new_items):
            plan.changes.setdefault(item.id, {}).update(values)

    if core_text is not None:
        make("core", "problem", core_text)
        plan.stored_as.append("core")
        core = [item for item in items + plan.new_items if item.tier == "core" and item.active]
        original = min(core, key=lambda item: (item.turn, item.created_at))
        while len(core) > core_max_items:
            oldest = next(item for item in core if item is not original)
            core.remove(oldest)
            plan.dropped.append(oldest.id)
        items[:] = [item for item in items if item.id not in plan.dropped]

    refinement = bool(classification.intent) and (
        classification.intent[0] == "REFINEMENT" or ("REFINEMENT" in labels and "CONSTRAINT_ADDITION" not in labels)
    )
    replaced = {t for phrase in _supersede.replaced_phrases(message, language) for t in terms_of(phrase)}
    for text in statements:
        existing = [item for item in items if item.active]
        item = make("evolving", "refinement" if refinement else "constraint", text)
        plan.stored_as.append("evolving")
        statement = _supersede.Statement(
            slots=frozenset(item.slots),
            terms=frozenset(item.terms),
            replaced_terms=frozenset(replaced),
            refinement="REFINEMENT" in labels,
            additive=_supersede.is_additive(text),
        )
        candidates = [
            _supersede.Candidate(old.id, old.kind, frozenset(old.slots), frozenset(old.terms))
            for old in existing
            if old.tier == "evolving" and old.turn != turn
        ]
        gone = _supersede.superseded(statement, candidates)
        for old_id in gone:
            old = next(i for i in existing if i.id == old_id)
            if item.parent_id is None and old.parent_id is not None:
                item.parent_id = old.parent_id
            change(old, superseded_by=item.id)
            plan.superseded_texts.append(old.text)
            for child in existing:
                if child.parent_id == old.id and child.active:
                    change(child, parent_id=item.id)
        if not gone and item.kind == "refinement":
            everything = [
                _supersede.Candidate(old.id, old.kind, frozenset(old.slots), frozenset(old.terms)) for old in existing
            ]
            item.parent_id = _supersede.refined(statement, everything)
        items.append(item)
    if core_text is not None:
        items.extend(item for item in plan.new_items if item.tier == "core")

    after.items = sorted(items, key=lambda item: (item.turn, item.created_at, item.tier != "core"))
    after.exchanges = [e for e in after.exchanges if e.turn > plan.prune_through] + [plan.exchange]
    after.session.turns = turn
    after.session.language = language
    after.session.updated_at = now
    if after.session.title is None or (core_text is not None and not store.active("core")):
        after.session.title = _title(core_text or message)
    return plan


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
