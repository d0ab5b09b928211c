"""The `context` module object, its lifespan and the state its tools share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import anyio.to_thread

from mcpist.modules import Module, ModuleResources, ToolContext

from ._encoder import Encoder, shared_encoder
from ._intent import Weights, shipped
from ._settings import ContextSettings
from ._text import Tokenizer

DOCS = """\
Keeps a long conversation on its goal and constraints (CC-MCP, seed 004).

1. `start_session` -> session_id.
2. Each user message: `add_turn(session_id, message)`. It labels the intent, keeps the goal
   (core), constraints and refinements (evolving; a new value for the same attribute replaces the
   old one) and the last exchanges, and returns `prompt`: send that to your LLM instead of the
   bare message.
3. Your LLM's answer: `record_response(session_id, text)`, so the next prompt shows it.
   Or, when the server has an LLM configured, `respond(session_id, message)` does 2 and 3 at once.
4. `get_context` shows each item with its label and the reason it is stored (or what replaced it);
   `drop_item` / `pin_item` correct it. `get_prompt`, `list_sessions`, `end_session`. Sessions expire when idle.
The prompt is also an MCP prompt: `context_session` (argument session_id).
"""


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ContextState:
    """What the lifespan yields (`ctx.state`): the tokenizer, the sentence encoder, the model weights, the clock."""

    tokenizer: Tokenizer
    encoder: Encoder
    weights: Weights
    clock: Callable[[], datetime] = field(default=_utcnow)


module = Module(
    "context",
    summary="Conversation sessions that keep goal and constraints",
    description=(
        "Conversation sessions for long chats: intent labels, TF-IDF keywords, a core/evolving/turn "
        "context store where a new value for the same attribute replaces the old one, and a synthesised "
        "prompt per turn."
    ),
    settings=ContextSettings,
    migrations=Path(__file__).parent / "migrations",
    docs=DOCS,
)


@module.startup
async def _lifespan(resources: ModuleResources) -> AsyncIterator[ContextState]:
    # SudachiDict and the encoder ship inside packages: loading reads local files only, never the network;
    # the encoder takes about two seconds, off the event loop
    encoder = await anyio.to_thread.run_sync(shared_encoder)
    yield ContextState(tokenizer=Tokenizer.load(), encoder=encoder, weights=shipped())


Ctx = ToolContext[ContextSettings, ContextState]
"""What every tool of this module receives: its settings and the state its startup yielded, typed."""
