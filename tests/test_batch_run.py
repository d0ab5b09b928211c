"""Running a batch: ordering, concurrency, partial failure, limits and cancellation."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from mcpist.batch import BatchLimits, Task, run_batch
from mcpist.errors import NotFound, Unavailable

DEADLINE = 5  # seconds; only reached when a test is about to fail

Handler = Callable[[Task, dict[str, Any]], Awaitable[Any]]


def task(id: str, tool: str = "t", **fields: Any) -> dict[str, Any]:
    return {"id": id, "module": "m", "tool": tool, **fields}


def jsonl(*tasks: dict[str, Any]) -> str:
    return "\n".join(json.dumps(t, ensure_ascii=False) for t in tasks)


async def run(text: str, runner: Handler, limits: BatchLimits | None = None) -> dict[str, Any]:
    with anyio.fail_after(DEADLINE):
        result = await run_batch(text, runner, limits or BatchLimits())
    answer = result.to_dict()
    json.dumps(answer)  # always JSON-able
    return answer


async def echo(task: Task, params: dict[str, Any]) -> Any:
    return {"task": task.id, **params}


@pytest.mark.anyio
async def test_dependents_see_outputs_and_start_after_their_dependencies() -> None:
    log: list[str] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        log.append(f"start {task.id}")
        await anyio.lowlevel.checkpoint()
        log.append(f"end {task.id}")
        return {"id": f"{task.id}-1", "got": params}

    answer = await run(
        jsonl(
            task("c", after=["a", "b"], output=True, params={"x": "${a.id}+${b.id}"}),
            task("a"),
            task("b", after="a", params={"from_a": "${a.id}"}),
        ),
        runner,
    )
    assert answer["results"] == {"c": {"id": "c-1", "got": {"x": "a-1+b-1"}}}
    assert log.index("end a") < log.index("start b") < log.index("end b") < log.index("start c")
    assert answer["summary"] == {"tasks": 3, "succeeded": 3, "failed": 0, "skipped": 0}


@pytest.mark.anyio
async def test_independent_tasks_overlap() -> None:
    started = {"a": anyio.Event(), "b": anyio.Event()}

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        started[task.id].set()
        # Each waits for the other to have started: passes only if both run at once.
        await started["b" if task.id == "a" else "a"].wait()
        return task.id

    answer = await run(jsonl(task("a", output=True), task("b", output=True)), runner)
    assert answer["results"] == {"a": "a", "b": "b"}


@pytest.mark.anyio
async def test_twenty_independent_tasks_all_run_at_once() -> None:
    running = 0
    all_in = anyio.Event()

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        nonlocal running
        running += 1
        if running == 20:
            all_in.set()
        await all_in.wait()
        return None

    answer = await run(jsonl(*(task(f"t{i}") for i in range(20))), runner)
    assert answer["summary"]["succeeded"] == 20


@pytest.mark.anyio
async def test_a_task_starts_when_its_last_dependency_finishes_not_in_waves() -> None:
    release_slow = anyio.Event()

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        if task.id == "slow":
            await release_slow.wait()
        if task.id == "next":
            # Runs while "slow", of the same depth, is still running; in waves it would wait for it.
            release_slow.set()
        return task.id

    answer = await run(jsonl(task("fast"), task("slow"), task("next", after="fast", output=True)), runner)
    assert answer["results"] == {"next": "next"}


@pytest.mark.anyio
async def test_max_concurrency_is_respected() -> None:
    running = 0
    peak = 0
    release = anyio.Event()
    done: list[str] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await release.wait()
        running -= 1
        done.append(task.id)
        return None

    async def drive() -> None:
        await run_batch(jsonl(*(task(f"t{i}") for i in range(10))), runner, BatchLimits(max_concurrency=3))

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as tg:
            tg.start_soon(drive)
            await anyio.wait_all_tasks_blocked()
            assert running == 3
            release.set()
    assert peak == 3
    assert len(done) == 10


@pytest.mark.anyio
async def test_a_failure_skips_only_its_dependents() -> None:
    calls: list[str] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        calls.append(task.id)
        if task.id == "bad":
            raise NotFound("no such page", {"page_id": "x"})
        return {"v": task.id}

    answer = await run(
        jsonl(
            task("bad"),
            task("good", output=True),
            task("child", after="bad", output=True),
            task("grandchild", after="child"),
            task("mixed", after=["good", "bad"]),
            task("unrelated", after="good", output=True, params={"v": "${good.v}"}),
        ),
        runner,
    )
    assert sorted(calls) == ["bad", "good", "unrelated"]
    assert answer == {
        "results": {"good": {"v": "good"}, "unrelated": {"v": "unrelated"}},
        "failed": {"bad": {"code": "NOT_FOUND", "message": "no such page", "data": {"page_id": "x"}}},
        "skipped": {
            "child": {"blocked_by": "bad", "reason": "dependency failed"},
            "grandchild": {"blocked_by": "child", "reason": "dependency skipped"},
            "mixed": {"blocked_by": "bad", "reason": "dependency failed"},
        },
        "summary": {"tasks": 6, "succeeded": 2, "failed": 1, "skipped": 3},
    }


@pytest.mark.anyio
async def test_blocked_by_is_the_first_failed_dependency_in_after_order() -> None:
    second_failed = anyio.Event()

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        if task.id == "x":
            await second_failed.wait()  # x fails last, yet is named: it comes first in after
        if task.id == "y":
            second_failed.set()
        raise Unavailable(f"{task.id} is down")

    answer = await run(jsonl(task("x"), task("y"), task("z", after=["x", "y"])), runner)
    assert answer["skipped"] == {"z": {"blocked_by": "x", "reason": "dependency failed"}}
    assert list(answer["failed"]) == ["x", "y"]


@pytest.mark.anyio
async def test_results_follow_line_order_and_only_output_tasks_return() -> None:
    first_done = anyio.Event()

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        if task.id == "first":
            first_done.set()
        else:
            await first_done.wait()
        return task.id

    answer = await run(
        jsonl(task("second", output=True), task("hidden"), task("first", output=True), task("off", output=False)),
        runner,
    )
    assert list(answer["results"]) == ["second", "first"]
    assert set(answer) == {"results", "summary"}


@pytest.mark.anyio
async def test_a_task_over_its_timeout_fails_with_deadline_exceeded() -> None:
    async def runner(task: Task, params: dict[str, Any]) -> Any:
        if task.id == "stuck":
            await anyio.sleep_forever()
        return task.id

    answer = await run(
        jsonl(task("stuck"), task("after_stuck", after="stuck"), task("quick", output=True)),
        runner,
        BatchLimits(task_timeout_s=0.05),
    )
    assert answer["failed"]["stuck"] == {
        "code": "DEADLINE_EXCEEDED",
        "message": "timed out after 0.05 s",
        "data": {"timeout_s": 0.05},
    }
    assert answer["skipped"] == {"after_stuck": {"blocked_by": "stuck", "reason": "dependency failed"}}
    assert answer["results"] == {"quick": "quick"}


@pytest.mark.anyio
async def test_a_result_over_the_size_limit_fails_the_task() -> None:
    sizes = {"fits": "x" * 98, "too_big": "x" * 99, "wide_chars": "あ" * 33}  # JSON: 100, 101, 101 bytes

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        return sizes.get(task.id, "ok")

    answer = await run(
        jsonl(*(task(name, output=True) for name in sizes), task("dependent", after="too_big")),
        runner,
        BatchLimits(max_result_bytes=100),
    )
    assert answer["results"] == {"fits": "x" * 98}
    assert answer["failed"]["too_big"]["code"] == "INVALID_ARGUMENT"
    assert "101 bytes, over the 100-byte limit" in answer["failed"]["too_big"]["message"]
    assert answer["failed"]["wide_chars"]["data"] == {"bytes": 101, "limit": 100}
    assert answer["skipped"]["dependent"]["blocked_by"] == "too_big"


@pytest.mark.anyio
async def test_outputs_past_the_total_limit_are_omitted_in_line_order() -> None:
    sizes = {"a": 300, "b": 300, "c": 300, "d": 20}  # strings of n characters: n + 2 bytes of JSON

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        return "x" * sizes[task.id]

    answer = await run(jsonl(*(task(n, output=True) for n in sizes)), runner, BatchLimits(max_output_bytes=2000))
    assert list(answer["results"]) == ["a", "b", "d"]
    assert answer["omitted"] == {"c": {"bytes": 302, "reason": answer["omitted"]["c"]["reason"]}}
    assert "2000-byte limit" in answer["omitted"]["c"]["reason"]
    assert answer["summary"]["succeeded"] == 4
    # the answer goes out twice (text and structured content), and both copies fit the limit
    assert 2 * len(json.dumps(answer, separators=(",", ":"))) <= 2000


@pytest.mark.anyio
async def test_an_unexpected_exception_is_an_internal_failure_without_details(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def runner(task: Task, params: dict[str, Any]) -> Any:
        if task.id == "buggy":
            raise KeyError("secret-token-123")
        if task.id == "odd":
            return {"not json": object()}
        return task.id

    with caplog.at_level(logging.ERROR, logger="mcpist.batch"):
        answer = await run(jsonl(task("buggy"), task("odd"), task("fine", output=True)), runner)
    failure = answer["failed"]["buggy"]
    assert failure["code"] == "INTERNAL"
    assert "secret" not in json.dumps(failure) and "KeyError" not in json.dumps(failure)
    error_id = failure["data"]["error_id"]
    assert error_id in failure["message"]
    assert answer["failed"]["odd"]["code"] == "INTERNAL"
    assert answer["results"] == {"fine": "fine"}
    record = next(r for r in caplog.records if error_id in r.getMessage())
    assert record.exc_info is not None and isinstance(record.exc_info[1], KeyError)


@pytest.mark.anyio
async def test_a_resolution_error_fails_the_task_before_its_runner() -> None:
    calls: list[str] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        calls.append(task.id)
        return {"items": [{"id": 1}], "name": "n"}

    answer = await run(
        jsonl(
            task("a"),
            task("missing", after="a", params={"x": "${a.items[5].id}"}),
            task("wrong_type", after="a", params={"x": "${sort_by(a.name, &id)}"}),
            task("later", after="missing"),
        ),
        runner,
    )
    assert calls == ["a"]
    missing = answer["failed"]["missing"]
    assert missing["code"] == "INVALID_ARGUMENT"
    assert "yielded null" in missing["message"]
    assert missing["data"] == {"field": "params.x", "expression": "a.items[5].id"}
    assert answer["failed"]["wrong_type"]["code"] == "INVALID_ARGUMENT"
    assert "sort_by" in answer["failed"]["wrong_type"]["message"]
    assert answer["skipped"] == {"later": {"blocked_by": "missing", "reason": "dependency failed"}}


@pytest.mark.anyio
async def test_the_runner_gets_the_task_with_account_and_resolved_params() -> None:
    seen: list[Task] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        seen.append(task)
        return ("tuple", "becomes", "list")

    answer = await run(jsonl(task("a", tool="search", account="仕事", output=True, params={"q": "会議"})), runner)
    assert answer["results"] == {"a": ["tuple", "becomes", "list"]}
    assert seen[0].account == "仕事" and seen[0].tool == "search" and seen[0].params == {"q": "会議"}


@pytest.mark.anyio
async def test_results_are_detached_from_the_runners_objects() -> None:
    shared: dict[str, Any] = {"n": 1}

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        if task.id == "b":
            shared["n"] = 2  # mutating after "a" returned must not change a's output
        return shared

    answer = await run(jsonl(task("a", output=True), task("b", after="a", output=True)), runner)
    assert answer["results"] == {"a": {"n": 1}, "b": {"n": 2}}


@pytest.mark.anyio
async def test_cancelling_the_batch_cancels_running_tasks() -> None:
    started = anyio.Event()
    cancelled: list[str] = []

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        try:
            started.set()
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append(task.id)
            raise

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run_batch, jsonl(task("a"), task("b"), task("c", after="a")), runner)
            await started.wait()
            await anyio.wait_all_tasks_blocked()
            tg.cancel_scope.cancel()
    assert sorted(cancelled) == ["a", "b"]
