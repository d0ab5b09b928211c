"""The opt-in LLM paths: the user's own LLM through MCP sampling, or an OpenAI-compatible endpoint.

Both answer text. Failures become UNAVAILABLE (upstream refused or broke) or DEADLINE_EXCEEDED
(timeout); the endpoint's API key never appears in a message, a log line or a result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import ValidationError

from mcpist.modules import DeadlineExceeded, MCPistError, Sampler, Unavailable
from mcpist.upstream import ServiceClient

from ._rules import Classification
from ._settings import ContextSettings, EndpointSettings

Purpose = Literal["classify", "respond"]
Backend = Literal["sampling", "endpoint"]

CLASSIFIER_MAX_TOKENS = 300
CLASSIFIER_TEMPERATURE = 0.0
_ERROR_CHARS = 200

# Seed 004 Appendix A, verbatim; "{message}" marks where the user's message goes.
CLASSIFIER_PROMPT = (Path(__file__).parent / "classifier_prompt_ja.txt").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Completion:
    text: str
    backend: Backend


def choose_backend(settings: ContextSettings, sampler: Sampler | None) -> Backend | None:
    """Which LLM to ask, or None when neither the client nor the settings offer one."""
    if settings.llm_backend in ("auto", "sampling") and sampler is not None:
        return "sampling"
    if settings.llm_backend in ("auto", "endpoint") and settings.endpoint is not None:
        return "endpoint"
    return None


def not_configured(settings: ContextSettings) -> Unavailable:
    if settings.llm_backend == "sampling":
        hint = "the MCP client did not offer sampling (llm_backend = 'sampling')"
    elif settings.llm_backend == "endpoint":
        hint = "modules.context.endpoint is not set (llm_backend = 'endpoint')"
    else:
        hint = "the MCP client did not offer sampling and modules.context.endpoint is not set"
    return Unavailable(f"no LLM is available: {hint}", {"reason": "not_configured"})


_ANY_STATUS = range(100, 600)


def _redact(text: str, endpoint: EndpointSettings) -> str:
    key = endpoint.api_key.get_secret_value() if endpoint.api_key else ""
    if key:
        text = text.replace(key, "***")
    return text[:_ERROR_CHARS]


async def _endpoint(
    http: ServiceClient,
    endpoint: EndpointSettings,
    purpose: Purpose,
    messages: list[dict[str, str]],
    *,
    max_tokens: int,
    temperature: float,
    deadline_s: float,
) -> str:
    model = endpoint.classifier_model if purpose == "classify" else endpoint.responder_model
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    if purpose == "classify" and endpoint.json_mode:
        body["response_format"] = {"type": "json_object"}
    headers = {"Authorization": f"Bearer {endpoint.api_key.get_secret_value()}"} if endpoint.api_key else {}
    url = endpoint.base_url.rstrip("/") + "/chat/completions"
    try:
        # every status comes back: the endpoint's errors are reported in this module's words below
        response = await http.request("POST", url, json=body, headers=headers, timeout_s=deadline_s, ok=_ANY_STATUS)
    except DeadlineExceeded:
        raise DeadlineExceeded(
            f"the LLM endpoint did not answer within {deadline_s:g} s", {"backend": "endpoint", "timeout_s": deadline_s}
        ) from None
    except Unavailable as exc:
        raise Unavailable(
            f"the LLM endpoint could not be reached: {_redact(exc.message, endpoint)}", {"backend": "endpoint"}
        ) from None
    if response.status_code >= 400:
        detail = ""
        try:
            error = response.json().get("error")
            detail = error.get("message", "") if isinstance(error, dict) else str(error or "")
        except (ValueError, AttributeError):
            pass
        message = f"the LLM endpoint answered HTTP {response.status_code}"
        if detail:
            message += f": {_redact(detail, endpoint)}"
        raise Unavailable(message, {"backend": "endpoint", "status": response.status_code})
    try:
        content = response.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise Unavailable(
            "the LLM endpoint's answer has no choices[0].message.content", {"backend": "endpoint"}
        ) from None
    if not isinstance(content, str):
        raise Unavailable("the LLM endpoint answered without text", {"backend": "endpoint"})
    return content


async def complete(
    *,
    settings: ContextSettings,
    sampler: Sampler | None,
    http: ServiceClient,
    purpose: Purpose,
    prompt: str,
    max_tokens: int,
    temperature: float,
) -> Completion:
    """Ask the chosen LLM with one user message.

    Raises:
        Unavailable: no LLM is available, or it refused or failed.
        DeadlineExceeded: it did not answer in time.
    """
    backend = choose_backend(settings, sampler)
    if backend is None:
        raise not_configured(settings)
    messages = [{"role": "user", "content": prompt}]
    timeout = settings.classifier_timeout if purpose == "classify" else settings.responder_timeout
    try:
        # one deadline for the whole call: httpx's own timeouts bound each read, not the total
        with anyio.fail_after(timeout):
            if backend == "endpoint" and settings.endpoint is not None:
                text = await _endpoint(
                    http,
                    settings.endpoint,
                    purpose,
                    messages,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    deadline_s=timeout,
                )
            elif sampler is not None:
                text = await sampler.complete(messages, max_tokens=max_tokens, temperature=temperature)
            else:  # pragma: no cover - choose_backend returns "sampling" only with a sampler
                raise not_configured(settings)
    except TimeoutError:
        who = "the LLM endpoint" if backend == "endpoint" else "the client's LLM"
        raise DeadlineExceeded(
            f"{who} did not answer within {timeout:g} s", {"backend": backend, "timeout_s": timeout}
        ) from None
    except MCPistError:
        raise
    except Exception as exc:  # a sampler is the protocol layer's code; whatever it raises, the LLM is unavailable
        raise Unavailable(f"the client's LLM failed: {type(exc).__name__}", {"backend": backend}) from None
    if not isinstance(text, str):
        raise Unavailable("the LLM answered without text", {"backend": backend})
    return Completion(text, backend)


_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_classification(text: str) -> Classification:
    """Seed 004's JSON from an LLM answer (code fences and chatter around it are tolerated).

    Raises:
        ValueError: no valid {"intent": [...], "reason": ...} object.
    """
    match = _JSON_OBJECT.search(text)
    if match is None:
        raise ValueError("no JSON object in the answer")
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg}") from None
    if isinstance(data, dict) and isinstance(data.get("intent"), str):
        data["intent"] = [data["intent"]]
    try:
        result = Classification.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"not seed 004's classification JSON: {exc.error_count()} problem(s)") from None
    return Classification(intent=list(dict.fromkeys(result.intent)), reason=result.reason)


def classifier_prompt(message: str) -> str:
    return CLASSIFIER_PROMPT.replace("{message}", message)
