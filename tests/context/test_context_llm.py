"""The opt-in LLM paths: classification and `respond`, through an OpenAI-compatible endpoint or MCP sampling."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import httpx
import pytest

from mcpist.modules import DeadlineExceeded, Unavailable
from mcpist.modules.context import ContextSettings, EndpointSettings

pytestmark = pytest.mark.anyio

KEY = "sk-test-secret-1234"
ENDPOINT = EndpointSettings(
    base_url="http://llm.test/v1", api_key=KEY, classifier_model="light-1", responder_model="main-1"
)
LABEL = json.dumps(
    {"intent": ["CONSTRAINT_ADDITION"], "reason": "『オープンソースに限定』という制約。"}, ensure_ascii=False
)


def _answer(content: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": content}}]})


class FakeEndpoint:
    """An OpenAI-compatible chat-completions server that checks each request as the API defines it."""

    def __init__(self, classify: Any = LABEL, reply: Any = "Here is a plan.") -> None:
        self.classify = classify
        self.reply = reply
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and request.url == "http://llm.test/v1/chat/completions"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        body = json.loads(request.content)
        self.requests.append(body)
        assert [m["role"] for m in body["messages"]] == ["user"]
        answer = self.classify if body["model"] == "light-1" else self.reply
        if body["model"] == "light-1":
            assert body["temperature"] <= 0.1 and body["response_format"] == {"type": "json_object"}
            assert "# ラベル定義" in body["messages"][0]["content"]
        else:
            assert body["model"] == "main-1" and body["messages"][0]["content"].startswith("# Mission")
        if isinstance(answer, httpx.Response):
            return answer
        if isinstance(answer, Exception):
            raise answer
        return _answer(answer)


class FakeSampler:
    """The user's own LLM as the protocol layer offers it (a `Sampler`)."""

    def __init__(self, *answers: str, block: bool = False) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []
        self.block = block

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> str:
        self.calls.append({"messages": messages, "temperature": temperature, "max_tokens": max_tokens})
        if self.block:
            await anyio.Event().wait()
        return self.answers.pop(0)


async def test_the_llm_classifier_uses_the_endpoint_and_seed_004s_prompt(make_ctx: Any, call: Any) -> None:
    fake = FakeEndpoint()
    ctx = make_ctx(settings=ContextSettings(classifier="llm", endpoint=ENDPOINT), handler=fake)
    sid = (await call(ctx, "start_session"))["session_id"]
    result = await call(ctx, "add_turn", session_id=sid, message="モデルはオープンソースに限定して。")
    assert result["classified_by"] == "llm:endpoint" and "classifier_fallback" not in result
    assert result["classification"] == json.loads(LABEL)
    # the labels are the LLM's, but the first substantive message still becomes the mission
    assert result["stored_as"] == ["core"]
    (request,) = fake.requests
    assert '"""\nモデルはオープンソースに限定して。\n"""' in request["messages"][0]["content"]


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("I think it is a constraint.", "invalid answer"),
        ('{"intent": ["BUDGET"], "reason": "x"}', "invalid answer"),
        ('{"intent": ["QUESTION", "REFINEMENT", "UNCLEAR"], "reason": "x"}', "invalid answer"),
        (httpx.Response(500, json={"error": {"message": f"boom for key {KEY}"}}), "UNAVAILABLE: the LLM endpoint"),
        (httpx.ConnectError("refused"), "UNAVAILABLE: the LLM endpoint could not be reached"),
        (httpx.ReadTimeout("slow"), "DEADLINE_EXCEEDED"),
    ],
)
async def test_the_llm_classifier_falls_back_to_the_model(
    make_ctx: Any, call: Any, caplog: pytest.LogCaptureFixture, answer: Any, why: str
) -> None:
    ctx = make_ctx(settings=ContextSettings(classifier="llm", endpoint=ENDPOINT), handler=FakeEndpoint(classify=answer))
    sid = (await call(ctx, "start_session"))["session_id"]
    with caplog.at_level(logging.WARNING):
        result = await call(ctx, "add_turn", session_id=sid, message="The budget is under $3k.")
    assert result["classified_by"] == "model" and result["classifier_fallback"].startswith(why)
    # the model and the dialog's structure: the first substantive message states the goal
    assert result["classification"]["intent"] == ["PROBLEM_DEFINITION"]
    assert KEY not in json.dumps(result) and KEY not in caplog.text
    assert "using the model" in caplog.text


async def test_sampling_is_preferred_and_json_in_fences_is_accepted(make_ctx: Any, call: Any) -> None:
    sampler = FakeSampler(f"```json\n{LABEL}\n```")
    ctx = make_ctx(settings=ContextSettings(classifier="llm", endpoint=ENDPOINT), sampler=sampler)
    sid = (await call(ctx, "start_session"))["session_id"]
    result = await call(ctx, "add_turn", session_id=sid, message="Only open-source models.")
    assert result["classified_by"] == "llm:sampling"
    assert result["classification"]["intent"] == ["CONSTRAINT_ADDITION"]
    (sampled,) = sampler.calls
    assert sampled["temperature"] <= 0.1 and "Only open-source models." in sampled["messages"][0]["content"]


async def test_respond_runs_the_whole_turn_through_the_endpoint(make_ctx: Any, call: Any) -> None:
    fake = FakeEndpoint(reply="Use Whisper, then summarise with an open model.")
    ctx = make_ctx(settings=ContextSettings(responder="llm", endpoint=ENDPOINT), handler=fake)
    sid = (await call(ctx, "start_session"))["session_id"]
    await call(ctx, "add_turn", session_id=sid, message="I want to summarise meeting notes automatically.")
    result = await call(ctx, "respond", session_id=sid, message="It must run on a CPU only.")
    assert result["response"] == "Use Whisper, then summarise with an open model."
    assert result["responded_by"] == "endpoint" and result["classified_by"] == "model"
    (request,) = fake.requests
    assert request["messages"][0]["content"] == result["prompt"]
    assert "- It must run on a CPU only." in result["prompt"]
    view = await call(ctx, "get_context", session_id=sid)
    assert view["turns"][-1]["response"] == result["response"]
    follow_up = await call(ctx, "add_turn", session_id=sid, message="Thanks!")
    assert "Assistant: Use Whisper" in follow_up["prompt"]


async def test_respond_uses_sampling_when_the_client_offers_it(make_ctx: Any, call: Any) -> None:
    sampler = FakeSampler("ラズパイでも動きます。")
    ctx = make_ctx(settings=ContextSettings(responder="llm"), sampler=sampler)
    sid = (await call(ctx, "start_session"))["session_id"]
    result = await call(ctx, "respond", session_id=sid, message="議事録を要約したいです。")
    assert (result["response"], result["responded_by"]) == ("ラズパイでも動きます。", "sampling")
    assert sampler.calls[0]["messages"][0]["content"].startswith("# Mission (あなたの使命)")


@pytest.mark.parametrize(
    ("reply", "error", "match"),
    [
        (httpx.Response(503, json={"error": {"message": f"overloaded ({KEY})"}}), Unavailable, r"HTTP 503.*\*\*\*"),
        (httpx.Response(200, json={"choices": []}), Unavailable, "choices"),
        (httpx.ReadTimeout("slow"), DeadlineExceeded, "did not answer"),
    ],
)
async def test_a_failed_respond_stores_nothing(
    make_ctx: Any, call: Any, reply: Any, error: type[Exception], match: str
) -> None:
    ctx = make_ctx(settings=ContextSettings(responder="llm", endpoint=ENDPOINT), handler=FakeEndpoint(reply=reply))
    sid = (await call(ctx, "start_session"))["session_id"]
    before = await call(ctx, "get_context", session_id=sid)
    with pytest.raises(error, match=match) as caught:
        await call(ctx, "respond", session_id=sid, message="I want to buy a laptop. The budget is $2000.")
    assert KEY not in str(caught.value) and KEY not in json.dumps(caught.value.data)
    after = await call(ctx, "get_context", session_id=sid)
    assert after == before


async def test_a_sampler_that_never_answers_hits_the_deadline(make_ctx: Any, call: Any) -> None:
    ctx = make_ctx(settings=ContextSettings(responder="llm", responder_timeout=0.05), sampler=FakeSampler(block=True))
    sid = (await call(ctx, "start_session"))["session_id"]
    with pytest.raises(DeadlineExceeded, match=r"client's LLM did not answer within 0\.05 s"):
        await call(ctx, "respond", session_id=sid, message="Hello")
    assert (await call(ctx, "get_context", session_id=sid))["turns"] == []


async def test_respond_without_an_llm_says_what_to_configure(make_ctx: Any, call: Any) -> None:
    off = make_ctx()
    sid = (await call(off, "start_session"))["session_id"]
    with pytest.raises(Unavailable, match="responder = 'llm'"):
        await call(off, "respond", session_id=sid, message="Hello")
    nothing = make_ctx(settings=ContextSettings(responder="llm"))
    with pytest.raises(Unavailable, match=r"did not offer sampling and modules\.context\.endpoint is not set"):
        await call(nothing, "respond", session_id=sid, message="Hello")
    endpoint_only = make_ctx(settings=ContextSettings(responder="llm", llm_backend="endpoint"), sampler=FakeSampler())
    with pytest.raises(Unavailable, match="endpoint is not set"):
        await call(endpoint_only, "respond", session_id=sid, message="Hello")


def test_the_api_key_stays_out_of_settings_reprs() -> None:
    settings = ContextSettings(endpoint=ENDPOINT)
    assert KEY not in repr(settings) and KEY not in str(settings.model_dump())
    assert KEY not in settings.model_dump_json()


async def test_items_stored_on_the_llms_labels_say_so(make_ctx: Any, call: Any) -> None:
    ctx = make_ctx(settings=ContextSettings(classifier="llm", endpoint=ENDPOINT), handler=FakeEndpoint())
    sid = (await call(ctx, "start_session"))["session_id"]
    await call(ctx, "add_turn", session_id=sid, message="議事録を自動で要約したい。")
    result = await call(ctx, "add_turn", session_id=sid, message="モデルはオープンソースに限定して。")
    assert result["stored_as"] == ["evolving"] and result["classified_by"] == "llm:endpoint"
    view = await call(ctx, "get_context", session_id=sid)
    assert "最初の実質的なメッセージ" in view["core"][0]["reason"]
    (item,) = view["evolving"]
    assert item["label"] == "CONSTRAINT_ADDITION" and item["reason"].startswith("llm:endpointの判定: 『オープンソース")
