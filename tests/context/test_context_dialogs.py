"""The bilingual dialog sets: constraints arrive one turn at a time and some are replaced later.

dialogs.json holds 32 dialogs (16 Japanese, 16 English); every user turn carries its gold intent
labels, and a turn that states a condition names it (`sets`: key -> a phrase that must show).
Setting a key again replaces the earlier phrase. Both files are the tuning sets of the default
classifier (the model in `_intent.py` with the dialog's structure); the floors below sit a little
under its figures, so a change that costs accuracy fails. Run with `-s` to see the figures.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from context_evaluation import play

from mcpist.modules.context._rules import classify
from mcpist.modules.context._synth import sections
from mcpist.modules.context._text import detect_language

DIALOGS: list[dict[str, Any]] = json.loads((Path(__file__).parent / "dialogs.json").read_text(encoding="utf-8"))
HELD_OUT: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "dialogs_held_out.json").read_text(encoding="utf-8")
)


def test_the_set_is_bilingual_and_replaces_constraints() -> None:
    assert len(DIALOGS) >= 30
    languages = Counter(detect_language(d["turns"][0]["user"]) for d in DIALOGS)
    assert languages["ja"] >= len(DIALOGS) // 2
    assert languages["en"] >= 1
    replacing = 0
    for dialog in DIALOGS:
        seen: set[str] = set()
        for turn in dialog["turns"]:
            assert 1 <= len(turn["intent"]) <= 2
            keys = set(turn.get("sets", {}))
            replacing += len(keys & seen)
            seen |= keys
    assert replacing >= 25


def _accuracy(dialogs: list[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Per language: (turns, first label among the gold labels, label set equal to the gold set)."""
    out: dict[str, list[int]] = {}
    for dialog in dialogs:
        for turn in dialog["turns"]:
            language = detect_language(turn["user"])
            got = classify(turn["user"], language).intent
            counts = out.setdefault(language, [0, 0, 0])
            counts[0] += 1
            counts[1] += got[0] in turn["intent"]
            counts[2] += set(got) == set(turn["intent"])
    return {lang: (c[0], c[1], c[2]) for lang, c in out.items()}


def _report(name: str, accuracy: dict[str, tuple[int, int, int]]) -> float:
    total = [sum(v[i] for v in accuracy.values()) for i in range(3)]
    print(f"\n{name}: rule classifier on {total[0]} labelled user turns")
    for lang, (n, top, exact) in sorted(accuracy.items()):
        print(f"  {lang}: first label correct {top}/{n} = {top / n:.1%}; label set exact {exact}/{n} = {exact / n:.1%}")
    print(
        f"  all: first label correct {total[1] / total[0]:.1%}; label set exact {total[2] / total[0]:.1%}",
    )
    return total[1] / total[0]


def test_the_legacy_rule_classifier_accuracy() -> None:
    # the cue rules (`classifier = "rules"`) read one message alone; kept for comparison
    assert _report("dialogs.json (rules tuned on it)", _accuracy(DIALOGS)) >= 0.93
    assert _report("dialogs_held_out.json (written after tuning)", _accuracy(HELD_OUT)) >= 0.75


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "first", "exact", "goal", "prompt"),
    [("dialogs.json", 0.95, 0.94, 0.96, 0.87), ("dialogs_held_out.json", 0.93, 0.93, 1.0, 0.87)],
)
async def test_model_figures_on_the_tuning_sets(
    ctx: Any, call: Any, name: str, first: float, exact: float, goal: float, prompt: float
) -> None:
    dialogs = DIALOGS if name == "dialogs.json" else HELD_OUT
    score = await play(ctx, call, dialogs)
    print(f"\n{name}, model classifier through add_turn:\n{score.line()}")
    print("\n".join(f"  {m}" for m in score.misses))
    assert score.first / score.turns >= first and score.exact / score.turns >= exact
    assert score.goal_kept / score.dialogs >= goal and score.prompt_right / score.dialogs >= prompt


def _phrases(dialog: dict[str, Any], upto: int) -> tuple[dict[str, str], set[str], list[str]]:
    """After user turn `upto`: the active phrase per key, the replaced phrases and the goal phrases."""
    active: dict[str, str] = {}
    replaced: set[str] = set()
    goals: list[str] = []
    for turn in dialog["turns"][: upto + 1]:
        for key, phrase in turn.get("sets", {}).items():
            if key in active:
                replaced.add(active[key])
            active[key] = phrase
        if "goal" in turn:
            goals.append(turn["goal"])
    return active, replaced - set(active.values()), goals


async def _run(ctx: Any, call: Any, dialogs: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """Play the dialogs; return the number of checks made and the ones that failed."""
    checks = 0
    problems: list[str] = []
    for dialog in dialogs:
        sid = (await call(ctx, "start_session"))["session_id"]
        reply = "(回答)" if dialog["id"].startswith("ja") else "(answer)"
        for i, turn in enumerate(dialog["turns"]):
            result = await call(ctx, "add_turn", session_id=sid, message=turn["user"])
            await call(ctx, "record_response", session_id=sid, text=reply)
            parts = sections(result["prompt"])
            # Recent Conversation repeats recent messages verbatim by design; what must hold is stated above it
            stated = parts["Mission"] + parts["Constraints"]
            active, replaced, goals = _phrases(dialog, i)
            where = f"{dialog['id']} turn {i + 1} ({turn['user']})"
            checks += len(active) + len(replaced) + len(goals)
            problems += [f"{where}: active {p!r} missing" for p in active.values() if p not in stated]
            problems += [f"{where}: replaced {p!r} still stated" for p in replaced if p in stated]
            problems += [f"{where}: goal {g!r} missing from Mission" for g in goals if g not in parts["Mission"]]
        final = await call(ctx, "get_prompt", session_id=sid)
        assert final["prompt"] == result["prompt"]
    return checks, problems


@pytest.mark.anyio
async def test_almost_every_active_constraint_and_no_superseded_one_is_in_the_prompt(ctx: Any, call: Any) -> None:
    # checked after every turn; the misses are replacements the model does not see (a tone
    # changed from 「明るい」 to 「フォーマル寄り」 shares neither a value type nor a subject)
    checks, problems = await _run(ctx, call, DIALOGS)
    print(f"\ndialogs.json: {checks - len(problems)}/{checks} prompt checks hold")
    print("\n".join(f"  {p}" for p in problems))
    assert checks > 500
    assert (checks - len(problems)) / checks >= 0.98


@pytest.mark.anyio
async def test_held_out_dialogs_keep_most_constraints(ctx: Any, call: Any) -> None:
    # held out from the old rules; the model was tuned on it too (the independent set is heldout/)
    checks, problems = await _run(ctx, call, HELD_OUT)
    print(f"\nheld-out dialogs: {checks - len(problems)}/{checks} prompt checks hold")
    print("\n".join(f"  {p}" for p in problems))
    assert (checks - len(problems)) / checks >= 0.95
