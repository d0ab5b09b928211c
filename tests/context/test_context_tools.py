"""The tools of module `context` on SQLite and PostgreSQL, with the default (model) classifier."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from mcpist.modules import Caller, InvalidArgument, ModuleResources, NotFound, ToolContext
from mcpist.modules.context import ContextSettings, ContextState, module
from mcpist.modules.context._synth import sections
from mcpist.storage.engine import create_engine

pytestmark = pytest.mark.anyio


async def _session(call: Any, ctx: Any, *messages: str, reply: str | None = None) -> tuple[str, dict[str, Any]]:
    sid: str = (await call(ctx, "start_session"))["session_id"]
    result: dict[str, Any] = {}
    for message in messages:
        result = await call(ctx, "add_turn", session_id=sid, message=message)
        if reply is not None:
            await call(ctx, "record_response", session_id=sid, text=reply)
    return sid, result


async def test_a_turn_is_classified_stored_and_synthesised(ctx: Any, call: Any) -> None:
    sid, first = await _session(call, ctx, "AIで議事録を自動要約したいんだけど、何かいい方法ある\uff1f")
    assert first["classification"]["intent"] == ["PROBLEM_DEFINITION", "QUESTION"]
    assert "目的(課題の提示)" in first["classification"]["reason"]
    assert first["classified_by"] == "model"
    assert first["stored_as"] == ["core"]
    assert {"議事録", "要約"} <= {k["term"] for k in first["keywords"]}
    prompt = sections(first["prompt"])
    assert "議事録" in prompt["Mission"]
    assert "AIで議事録" in prompt["User's Current Message"]

    second = await call(
        ctx,
        "add_turn",
        session_id=sid,
        message="いいね。ただし、利用するモデルはオープンソースのものに限定してほしい。",
    )
    assert second["classification"]["intent"] == ["CONSTRAINT_ADDITION"]
    assert second["stored_as"] == ["evolving"]
    constraints = sections(second["prompt"])["Constraints"]
    # the filler sentence 「いいね。」 is not a constraint
    assert "- ただし、利用するモデルはオープンソースのものに限定してほしい。" in constraints

    question = await call(ctx, "add_turn", session_id=sid, message="どのモデルが軽いですか\uff1f")
    assert question["classification"]["intent"] == ["QUESTION"]
    assert question["keywords"] == [] and question["stored_as"] == []

    view = await call(ctx, "get_context", session_id=sid)
    assert [i["kind"] for i in view["core"]] == ["problem"]
    assert [i["kind"] for i in view["evolving"]] == ["constraint"]
    assert [t["turn"] for t in view["turns"]] == [1, 2, 3]
    assert view["session"]["language"] == "ja" and view["session"]["title"].startswith("AIで議事録")


async def test_a_replaced_constraint_is_superseded_and_shown_as_such(ctx: Any, call: Any) -> None:
    sid, result = await _session(
        call,
        ctx,
        "I want to build a website for my bakery.",
        "The budget is under $3k.",
        "It has to support online orders.",
        "Actually, $5k is fine for the budget.",
    )
    assert result["superseded"] == ["The budget is under $3k."]
    stated = "".join(sections(result["prompt"])[s] for s in ("Mission", "Constraints"))
    assert "$5k" in stated and "online orders" in stated and "$3k" not in stated
    assert result["prompt"].startswith("# Mission\nYou are an AI assistant")
    view = await call(ctx, "get_context", session_id=sid)
    (old,) = view["superseded"]
    assert old["text"] == "The budget is under $3k."
    assert old["superseded_by"] == view["evolving"][-1]["id"]


async def test_a_refinement_attaches_to_what_it_refines(ctx: Any, call: Any) -> None:
    sid, result = await _session(
        call,
        ctx,
        "Help me write a quarterly report for the board.",
        "The report must cover the sales figures.",
        "More specifically, break the sales figures down by region.",
    )
    view = await call(ctx, "get_context", session_id=sid)
    constraint, refinement = view["evolving"]
    assert refinement["kind"] == "refinement" and refinement["refines"] == constraint["id"]
    assert "- The report must cover the sales figures.\n  - More specifically" in result["prompt"]


async def test_a_goal_that_carried_a_replaced_constraint_is_flagged(ctx: Any, call: Any) -> None:
    _, result = await _session(
        call, ctx, "来週の旅行を計画したいです。予算は5万円以内です。", "やっぱり予算は8万円まで出せます。"
    )
    parts = sections(result["prompt"])
    assert "来週の旅行を計画したいです。" in parts["Mission"]
    assert "5万円" not in parts["Mission"] + parts["Constraints"] and "8万円" in parts["Constraints"]

    sid, result = await _session(call, ctx, "I want to plan a trip to Kyoto under $2000.", "Actually, make it $3000.")
    parts = sections(result["prompt"])
    # one sentence holds both: the goal is never dropped, its outdated value is masked and the
    # prompt says which one wins
    assert "- I want to plan a trip to Kyoto under (see Constraints)." in parts["Mission"]
    assert "$2000" not in parts["Mission"] and "the constraint (the latest decision) wins" in parts["Mission"]
    assert "$3000" in parts["Constraints"] and "$2000" not in parts["Constraints"]

    view = await call(ctx, "get_context", session_id=sid)
    assert view["core"][0]["text"] == "I want to plan a trip to Kyoto under $2000."  # stored as said


async def test_the_turn_context_keeps_the_last_exchanges(make_ctx: Any, call: Any) -> None:
    ctx = make_ctx(settings=ContextSettings(turn_window=2))
    sid, _ = await _session(call, ctx, "one apple", "two bananas", "three cherries", reply="noted")
    result = await call(ctx, "add_turn", session_id=sid, message="four dates")
    recent = sections(result["prompt"])["Recent Conversation"]
    assert recent.strip() == "User: three cherries\nAssistant: noted"
    view = await call(ctx, "get_context", session_id=sid)
    assert [(t["message"], t.get("response")) for t in view["turns"]] == [
        ("three cherries", "noted"),
        ("four dates", None),
    ]


class _Goals:
    """An LLM classifier that calls every message a problem definition (so each one is a new goal)."""

    async def complete(self, messages: list[dict[str, str]], **_: Any) -> str:
        return '{"intent": ["PROBLEM_DEFINITION"], "reason": "a goal"}'


async def test_the_core_stays_small_and_keeps_the_original_problem(make_ctx: Any, call: Any) -> None:
    # after the first goal the model reads "I want to ..." as a requirement unless it is sure; the
    # LLM path labels each message a goal, so the cap on the core is what this test exercises
    ctx = make_ctx(settings=ContextSettings(core_max_items=2, classifier="llm"), sampler=_Goals())
    goals = [
        "I want to learn Rust.",
        "I want to write a CLI tool.",
        "I want to publish it on crates.io.",
        "I want to add shell completions.",
    ]
    sid, result = await _session(call, ctx, *goals)
    view = await call(ctx, "get_context", session_id=sid)
    assert [i["text"] for i in view["core"]] == [goals[0], goals[-1]]
    mission = sections(result["prompt"])["Mission"]
    assert goals[0] in mission and goals[-1] in mission and goals[1] not in mission


async def test_record_response(ctx: Any, call: Any) -> None:
    sid = (await call(ctx, "start_session"))["session_id"]
    with pytest.raises(NotFound, match="add_turn first"):
        await call(ctx, "record_response", session_id=sid, text="hello")
    await call(ctx, "add_turn", session_id=sid, message="I want to bake bread.")
    first = await call(ctx, "record_response", session_id=sid, text="Start with a poolish.")
    again = await call(ctx, "record_response", session_id=sid, text="Start with a biga.")
    assert (first["turn"], first["replaced"], again["replaced"]) == (1, False, True)
    view = await call(ctx, "get_context", session_id=sid)
    assert view["turns"][0]["response"] == "Start with a biga."


async def test_sessions_belong_to_the_user_who_started_them(make_ctx: Any, call: Any) -> None:
    alice, bob = make_ctx("alice"), make_ctx("bob")
    sid, _ = await _session(call, alice, "I want to plan a wedding.")
    for tool, params in [
        ("get_context", {}),
        ("get_prompt", {}),
        ("add_turn", {"message": "The budget is $1."}),
        ("record_response", {"text": "x"}),
        ("end_session", {}),
    ]:
        with pytest.raises(NotFound, match="no such session"):
            await call(bob, tool, session_id=sid, **params)
    assert (await call(bob, "list_sessions"))["sessions"] == []
    assert [s["session_id"] for s in (await call(alice, "list_sessions"))["sessions"]] == [sid]
    assert (await call(alice, "get_context", session_id=sid))["session"]["turns"] == 1


async def test_sessions_expire_when_idle(make_ctx: Any, call: Any, clock: Any) -> None:
    ctx = make_ctx(settings=ContextSettings(idle_timeout=timedelta(hours=1)))
    sid, _ = await _session(call, ctx, "I want to paint my kitchen.")
    clock.advance(timedelta(minutes=50))
    await call(ctx, "add_turn", session_id=sid, message="Only eco-friendly paint.")
    clock.advance(timedelta(minutes=50))
    assert (await call(ctx, "get_context", session_id=sid))["session"]["turns"] == 2
    clock.advance(timedelta(minutes=11))
    with pytest.raises(NotFound, match="expired"):
        await call(ctx, "get_prompt", session_id=sid)
    assert (await call(ctx, "list_sessions"))["sessions"] == []
    fresh = await call(ctx, "start_session")
    assert [s["session_id"] for s in (await call(ctx, "list_sessions"))["sessions"]] == [fresh["session_id"]]


async def test_sessions_survive_a_restart(ctx: Any, call: Any, database_url: str, clock: Any, tmp_path: Path) -> None:
    sid, before = await _session(
        call, ctx, "動画編集用のパソコンを買いたい。", "予算は15万円くらいです。", reply="了解"
    )
    engine = create_engine(database_url)
    assert module.lifespan is not None
    resources = ModuleResources(engine, ContextSettings(), tmp_path, logging.getLogger("test"))
    try:
        async with module.lifespan(resources) as started, httpx.AsyncClient() as http:
            assert isinstance(started, ContextState)
            restarted = ToolContext(
                http=http,
                settings=ContextSettings(),
                account=None,
                logger=logging.getLogger("test"),
                caller=Caller("u1"),
                state=replace(started, clock=clock),
                engine=engine,
            )
            after = await call(restarted, "get_prompt", session_id=sid)
            assert after["prompt"] == before["prompt"]
            more = await call(restarted, "add_turn", session_id=sid, message="やっぱり予算は20万円まで出せます。")
            assert more["turn"] == 3 and more["superseded"] == ["予算は15万円くらいです。"]
    finally:
        await engine.dispose()


async def test_ending_a_session_discards_it(ctx: Any, call: Any) -> None:
    sid, _ = await _session(call, ctx, "I want to learn the cello.")
    assert (await call(ctx, "end_session", session_id=sid)) == {"session_id": sid, "ended": True}
    with pytest.raises(NotFound):
        await call(ctx, "get_context", session_id=sid)
    with pytest.raises(NotFound):
        await call(ctx, "end_session", session_id=sid)


async def test_keyword_statistics_are_per_user_and_leave_with_the_session(make_ctx: Any, call: Any) -> None:
    alice, bob = make_ctx("alice"), make_ctx("bob")
    sid, _ = await _session(call, alice, "I want a python script.", "I want python tests.", "I want python packaging.")
    seen = await call(alice, "add_turn", session_id=sid, message="I want to use python and django.")
    # python is common in alice's corpus, so django outranks it for her
    assert [k["term"] for k in seen["keywords"]][:2] == ["django", "python"]
    _, fresh = await _session(call, bob, "I want to use python and django.")
    # bob's corpus has only this message: equal scores, first appearance first
    assert [k["term"] for k in fresh["keywords"]] == ["python", "django"]
    assert fresh["keywords"][0]["score"] == fresh["keywords"][1]["score"]
    await call(alice, "end_session", session_id=sid)
    _, after = await _session(call, alice, "I want to use python and django.")
    assert [k["term"] for k in after["keywords"]] == ["python", "django"]


async def test_concurrent_turns_of_one_session_are_all_kept(ctx: Any, call: Any) -> None:
    sid, _ = await _session(call, ctx, "I want to build a search service.")
    turns: list[int] = []

    async def add(message: str) -> None:
        turns.append((await call(ctx, "add_turn", session_id=sid, message=message))["turn"])

    async with anyio.create_task_group() as tg:
        tg.start_soon(add, "It must be fast.")
        tg.start_soon(add, "It must be cheap.")
    assert sorted(turns) == [2, 3]
    view = await call(ctx, "get_context", session_id=sid)
    assert sorted(i["text"] for i in view["evolving"]) == ["It must be cheap.", "It must be fast."]


@pytest.mark.parametrize(
    ("tool", "params", "field"),
    [
        ("add_turn", {"message": "   "}, "message"),
        ("add_turn", {"message": "x" * 8001}, "message"),
        ("add_turn", {}, "message"),
        ("add_turn", {"message": "hi", "extra": 1}, "extra"),
        ("record_response", {"text": ""}, "text"),
        ("get_context", {"session_id": ""}, "session_id"),
    ],
)
async def test_invalid_arguments_name_the_field(
    ctx: Any, call: Any, tool: str, params: dict[str, Any], field: str
) -> None:
    sid = (await call(ctx, "start_session"))["session_id"]
    with pytest.raises(InvalidArgument, match=field):
        await call(ctx, tool, **{"session_id": sid, **params})


async def test_sessions_are_offered_as_mcp_prompts(make_ctx: Any, call: Any) -> None:
    alice, bob = make_ctx("alice"), make_ctx("bob")
    sid, result = await _session(call, alice, "京都への家族旅行を計画したいです。", "予算は20万円以内にしてください。")
    prompts = module.prompts
    assert prompts is not None
    listed = await prompts.list_prompts(alice)
    assert [p.name for p in listed] == ["context_session", f"context_session_{sid}"]
    assert [a.name for a in listed[0].arguments] == ["session_id"] and listed[0].arguments[0].required
    assert listed[1].arguments == () and "京都への家族旅行" in listed[1].description
    by_argument = await prompts.get_prompt(alice, "context_session", {"session_id": sid})
    by_name = await prompts.get_prompt(alice, f"context_session_{sid}", {})
    assert by_argument.messages == by_name.messages
    (message,) = by_name.messages
    assert message.role == "user" and message.text == result["prompt"]
    assert [p.name for p in await prompts.list_prompts(bob)] == ["context_session"]
    with pytest.raises(NotFound):
        await prompts.get_prompt(bob, "context_session", {"session_id": sid})
    with pytest.raises(InvalidArgument, match="session_id"):
        await prompts.get_prompt(alice, "context_session", {})
    with pytest.raises(NotFound):
        await prompts.get_prompt(alice, "other", {})
