"""One turn end to end (seed 004 §5.2): classify, plan, optionally ask the main LLM, then store."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import anyio.to_thread

from mcpist.modules import Conflict, InvalidArgument, MCPistError, Unavailable

from . import _llm, _reading, _rules, _store
from ._model import SessionRow, Store
from ._module import ContextState, Ctx
from ._plan import TurnPlan, plan_turn, texts_to_embed
from ._results import ClassifiedBy, Keyword, TurnResult
from ._rules import Classification
from ._settings import ContextSettings
from ._synth import synthesize
from ._text import Language, detect_language

_ATTEMPTS = 3


@dataclass(frozen=True)
class Classified:
    """A classification given from outside the plan (LLM or cue rules); None leaves it to the model."""

    classification: Classification | None
    by: ClassifiedBy
    fallback: str | None


def cutoff(settings: ContextSettings, now: datetime) -> datetime:
    return now - settings.idle_timeout


def expires_at(settings: ContextSettings, session: SessionRow) -> datetime:
    return session.updated_at + settings.idle_timeout


def check_text(field: str, value: str, limit: int) -> str:
    """Raises: InvalidArgument: the text is blank or longer than `limit` characters."""
    if not value.strip():
        raise InvalidArgument(f"{field} must not be empty", {"field": field})
    if len(value) > limit:
        raise InvalidArgument(f"{field} is {len(value)} characters; the limit is {limit}", {"field": field})
    return value


async def classify(ctx: Ctx, message: str, language: Language) -> Classified:
    """The model labels in the plan by default; the cue rules or the LLM when configured.

    A failed LLM call falls back to the model and says why.
    """
    settings = ctx.settings
    if settings.classifier == "model":
        return Classified(None, "model", None)
    if settings.classifier == "rules":
        return Classified(_rules.classify(message, language), "rules", None)
    try:
        completion = await _llm.complete(
            settings=settings,
            sampler=ctx.sampler,
            http=ctx.http,
            purpose="classify",
            prompt=_llm.classifier_prompt(message),
            max_tokens=_llm.CLASSIFIER_MAX_TOKENS,
            temperature=_llm.CLASSIFIER_TEMPERATURE,
        )
        result = _llm.parse_classification(completion.text)
    except (MCPistError, ValueError) as exc:
        reason = f"{exc.code}: {exc.message}" if isinstance(exc, MCPistError) else f"invalid answer: {exc}"
        ctx.logger.warning("context: LLM classification failed, using the model (%s)", reason)
        return Classified(None, "model", reason)
    return Classified(result, "llm:endpoint" if completion.backend == "endpoint" else "llm:sampling", None)


async def plan(ctx: Ctx, state: ContextState, session_id: str, message: str, classified: Classified) -> TurnPlan:
    settings = ctx.settings
    now = state.clock()
    language = detect_language(message)
    async with ctx.engine.connect() as conn:
        session = await _store.get_session(conn, ctx.caller.user_id, session_id, cutoff(settings, now))
        store = await _store.load_store(conn, session)
        terms = state.tokenizer.terms(message, language)
        df, n_docs = await _store.corpus_stats(conn, ctx.caller.user_id, terms)
    texts = _reading.texts_to_embed(message, language) + texts_to_embed(store)
    # about 3 ms per new text (stored ones come from the encoder's cache); off the event loop
    matrix = await anyio.to_thread.run_sync(state.encoder.encode, texts)
    vectors = dict(zip(texts, matrix, strict=True))
    return plan_turn(
        store,
        reading=_reading.read(message, language, vectors, state.weights),
        external=classified.classification,
        external_by=classified.by,
        terms_of=lambda text: state.tokenizer.terms(text, language),
        vectors=vectors,
        weights=state.weights,
        df=df,
        n_docs=n_docs,
        max_keywords=settings.max_keywords,
        core_max_items=settings.core_max_items,
        turn_window=settings.turn_window,
        now=now,
    )


def result_of(session_id: str, p: TurnPlan, classified: Classified) -> TurnResult:
    return TurnResult(
        session_id=session_id,
        turn=p.exchange.turn,
        classification=p.classification,
        classified_by=classified.by,
        classifier_fallback=classified.fallback,
        keywords=[Keyword(term=term, score=score) for term, score in p.keywords],
        stored_as=[tier for tier in ("core", "evolving") if tier in p.stored_as],
        superseded=p.superseded_texts,
        prompt=synthesize(p.store, p.exchange.language),
    )


async def add_turn(ctx: Ctx, session_id: str, message: str) -> TurnResult:
    """Raises: NotFound, InvalidArgument, Conflict (the session kept changing under us)."""
    state = ctx.state
    check_text("message", message, ctx.settings.max_message_chars)
    classified = await classify(ctx, message, detect_language(message))
    for _ in range(_ATTEMPTS):
        p = await plan(ctx, state, session_id, message, classified)
        try:
            async with ctx.engine.begin() as conn:
                await _store.apply_turn(conn, p)
        except _store.StaleSession:
            continue  # another turn landed first: plan again on top of it
        return result_of(session_id, p, classified)
    raise Conflict(f"session_id {session_id!r}: other turns kept arriving; retry", {"field": "session_id"})


async def respond(ctx: Ctx, session_id: str, message: str) -> tuple[TurnResult, str, str]:
    """Raises: NotFound, InvalidArgument, Unavailable, DeadlineExceeded, Conflict."""
    state = ctx.state
    settings = ctx.settings
    check_text("message", message, settings.max_message_chars)
    if settings.responder == "off":
        raise Unavailable(
            "respond needs the main LLM: set modules.context.responder = 'llm' (and an endpoint, or use a client "
            "that supports MCP sampling); without it, use add_turn and send its prompt to your own LLM",
            {"reason": "not_configured"},
        )
    if _llm.choose_backend(settings, ctx.sampler) is None:
        raise _llm.not_configured(settings)
    classified = await classify(ctx, message, detect_language(message))
    p = await plan(ctx, state, session_id, message, classified)
    prompt = synthesize(p.store, p.exchange.language)
    completion = await _llm.complete(
        settings=settings,
        sampler=ctx.sampler,
        http=ctx.http,
        purpose="respond",
        prompt=prompt,
        max_tokens=settings.responder_max_tokens,
        temperature=settings.responder_temperature,
    )
    reply = completion.text[: settings.max_response_chars]
    try:
        async with ctx.engine.begin() as conn:
            await _store.apply_turn(conn, p, response=reply)
    except _store.StaleSession:
        raise Conflict(
            f"session_id {session_id!r}: another turn was added while the LLM answered; nothing was stored, retry",
            {"field": "session_id"},
        ) from None
    p.exchange.response = reply
    return result_of(session_id, p, classified), reply, completion.backend


async def load(ctx: Ctx, session_id: str) -> Store:
    """Raises: NotFound."""
    state = ctx.state
    async with ctx.engine.connect() as conn:
        session = await _store.get_session(conn, ctx.caller.user_id, session_id, cutoff(ctx.settings, state.clock()))
        return await _store.load_store(conn, session)


def prompt_of(store: Store) -> str:
    return synthesize(store, store.session.language or "en")
