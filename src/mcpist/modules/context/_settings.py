"""Settings of the `context` module, read once by the server and passed in as `ctx.settings`."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class EndpointSettings(BaseModel):
    """An OpenAI-compatible chat-completions endpoint (the seed's light and main models)."""

    model_config = ConfigDict(extra="forbid")

    base_url: Annotated[str, Field(description="e.g. https://api.openai.com/v1 or http://localhost:11434/v1")]
    api_key: SecretStr | None = None
    classifier_model: str = Field(default="gpt-4o-mini", description="the light, cheap model that labels intents")
    responder_model: str = Field(default="gpt-4o", description="the main model that answers in `respond`")
    json_mode: bool = Field(default=True, description="send response_format=json_object when classifying")


class ContextSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    idle_timeout: timedelta = Field(
        default=timedelta(days=7), description="a session unused this long expires (seconds or ISO 8601 duration)"
    )
    turn_window: Annotated[int, Field(ge=1, le=20, description="exchanges kept in the turn context")] = 3
    core_max_items: Annotated[
        int, Field(ge=1, le=50, description="problem definitions kept in the core context (the first always)")
    ] = 5
    max_keywords: Annotated[int, Field(ge=0, le=20)] = 5
    max_message_chars: Annotated[int, Field(ge=100, le=100_000)] = 8000
    max_response_chars: Annotated[int, Field(ge=100, le=1_000_000)] = 32_000
    max_sessions_per_user: Annotated[
        int, Field(ge=1, le=100_000, description="live sessions one user may hold; more is RESOURCE_EXHAUSTED")
    ] = 200
    listed_prompts: Annotated[
        int, Field(ge=0, le=100, description="sessions offered as argument-less MCP prompts, newest first")
    ] = 20
    classifier: Literal["model", "rules", "llm"] = Field(
        default="model",
        description="model: the shipped embedding model plus the dialog's structure; rules: the old cue rules; llm",
    )
    responder: Literal["off", "llm"] = "off"
    llm_backend: Literal["auto", "sampling", "endpoint"] = Field(
        default="auto", description="auto: the client's LLM through MCP sampling when offered, else the endpoint"
    )
    classifier_timeout: Annotated[float, Field(gt=0, le=600, description="seconds; then the model classifies")] = 15.0
    responder_timeout: Annotated[float, Field(gt=0, le=3600, description="seconds for `respond`'s LLM call")] = 120.0
    responder_temperature: Annotated[float, Field(ge=0, le=2)] = 0.7
    responder_max_tokens: Annotated[int, Field(ge=1, le=100_000)] = 2048
    endpoint: EndpointSettings | None = None
