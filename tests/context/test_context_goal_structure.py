"""Where the goal goes by the dialog's structure (round 7): a greeting the model doubts is no goal, a
refinement that replaces nothing narrows the goal, a wh-clause subject is no question, and a replaced
goal sentence without a value keeps its words. The phrasings are written for these tests and are in
neither the training data nor the development sets."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from phrasings import known_texts, play

from mcpist.modules.context._features import is_interrogative
from mcpist.modules.context._intent import LABELS, Label
from mcpist.modules.context._model import Item, SessionRow, Store
from mcpist.modules.context._reading import Sentence, _may_state_goal
from mcpist.modules.context._synth import sections, synthesize

pytestmark = pytest.mark.anyio

GREETINGS = [
    ("ちわっす〜", "来月の町内のお祭りで焼きそばの屋台を出すことになりました", "焼きそばの屋台"),
    ("hiya 🙂", "I want to turn the spare room into a sewing corner", "sewing corner"),
]
CHANGED_PLANS = [
    (
        "社内で本の交換コーナーを作りたいです。",
        "棚ひとつに収まる大きさでお願いします。",
        "やっぱり、まずは1週間だけ試しにやってみることにします。",
    ),
    (
        "We want to redo the backyard for the kids.",
        "The lawn is patchy.",
        "Actually we would rather start with a mud kitchen and a sandpit.",
    ),
]
NARROWER = (
    "Thinking about a vegetable patch this spring.",
    "Raised beds, about 4 square metres.",
    "Mostly I want to grow tomatoes for sauce.",
)
CLAUSE_SUBJECT = (
    "I want to plan a weekend away for our anniversary.",
    "Somewhere within two hours by train.",
    "what we really want is a quiet place with a spa",
)


def test_none_of_these_phrasings_is_training_or_development_data() -> None:
    seen = known_texts("def")
    mine = {m for row in GREETINGS for m in row[:2]} | {m for row in CHANGED_PLANS for m in row}
    assert not mine & seen
    assert not (set(NARROWER) | set(CLAUSE_SUBJECT)) & seen


def _parts(result: dict[str, Any]) -> tuple[str, str]:
    parts = sections(result["prompt"])
    return parts["Mission"], parts["Constraints"]


@pytest.mark.parametrize(("greeting", "goal", "phrase"), GREETINGS)
async def test_a_greeting_the_model_doubts_is_not_the_goal(
    ctx: Any, call: Any, greeting: str, goal: str, phrase: str
) -> None:
    first, second = await play(call, ctx, greeting, goal)
    assert first["classification"]["intent"] == ["UNCLEAR"] and first["stored_as"] == []
    assert second["classification"]["intent"][0] == "PROBLEM_DEFINITION"
    mission, _ = _parts(second)
    assert phrase in mission and greeting not in mission


def _sentence(text: str, **probs: float) -> Sentence:
    full: dict[Label, float] = {label: probs.get(label, 0.0) for label in LABELS}
    vector = np.zeros(4, dtype=np.float32)
    return Sentence(text, vector, vector, (), full, interrogative=False, filler=False)


def test_small_talk_states_the_goal_only_when_a_goal_is_its_next_reading_or_it_says_enough() -> None:
    # the model leans to small talk in each: a goal as the next reading, or three content words, still state one
    assert _may_state_goal(
        _sentence("pack up the flat", UNCLEAR=0.4, PROBLEM_DEFINITION=0.3, CONSTRAINT_ADDITION=0.2), "en"
    )
    assert _may_state_goal(_sentence("garden shed roof leaking", UNCLEAR=0.5, CONSTRAINT_ADDITION=0.4), "en")
    assert not _may_state_goal(_sentence("heyo 😄", UNCLEAR=0.5, CONSTRAINT_ADDITION=0.4), "en")
    assert not _may_state_goal(_sentence("おっす〜", UNCLEAR=0.5, CONSTRAINT_ADDITION=0.4), "ja")
    assert _may_state_goal(_sentence("車検の見積もり比較", UNCLEAR=0.5, CONSTRAINT_ADDITION=0.4), "ja")


@pytest.mark.parametrize(("goal", "condition", "change"), CHANGED_PLANS)
async def test_a_change_of_plan_that_replaces_nothing_narrows_the_goal(
    ctx: Any, call: Any, goal: str, condition: str, change: str
) -> None:
    *_, last = await play(call, ctx, goal, condition, change)
    mission, constraints = _parts(last)
    assert last["classification"]["intent"] == ["REFINEMENT"]
    assert f"  - {change}" in mission and change not in constraints
    assert condition in constraints  # nothing was replaced


async def test_a_narrower_wish_after_a_goal_without_one_is_a_refinement(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, *NARROWER)
    mission, _ = _parts(last)
    assert last["classification"]["intent"] == ["REFINEMENT"]
    assert f"- {NARROWER[0]}\n  - {NARROWER[2]}" in mission  # under the goal, not a second goal


def test_a_wh_clause_as_subject_is_no_question() -> None:
    for text in [
        "what we really want is a quiet place with a spa",
        "where I keep getting stuck is the ending",
        "how my team works is the real problem",
    ]:
        assert not is_interrogative(text), text
    for text in ["what do we really want", "how we make it fair for everyone", "where is the best place to start"]:
        assert is_interrogative(text), text


async def test_a_wanted_thing_said_as_a_wh_clause_joins_the_mission(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, *CLAUSE_SUBJECT)
    mission, _ = _parts(last)
    assert last["classification"]["intent"] == ["REFINEMENT"] and CLAUSE_SUBJECT[2] in mission


def _item(id_: str, tier: Any, kind: Any, text: str, turn: int, superseded_by: str | None = None) -> Item:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return Item(id_, tier, kind, text, [], [], [], turn, when, superseded_by=superseded_by)


def test_a_replaced_goal_sentence_keeps_its_words_and_only_values_are_masked() -> None:
    goal = "Our kitchen is a mess. The doors are falling off. No tiles on the walls. The budget is $800."
    store = Store(
        SessionRow("s", "u", None, "en", 3, datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)),
        [
            _item("g", "core", "problem", goal, 1),
            _item("c1", "evolving", "constraint", "Our kitchen is a mess.", 1, superseded_by="n1"),
            _item("c2", "evolving", "constraint", "The budget is $800.", 1, superseded_by="n2"),
            _item("c3", "evolving", "constraint", "No tiles on the walls.", 1, superseded_by="n3"),
            _item("n1", "evolving", "refinement", "update: we would rather repaint than replace", 2),
            _item("n2", "evolving", "refinement", "make that $1,200", 3),
            _item("n3", "evolving", "refinement", "tiles behind the sink are fine after all", 3),
        ],
    )
    mission = sections(synthesize(store, "en"))["Mission"]
    # a sentence that describes the problem has nothing to mask: the goal's words stay, the note says the newer
    # wins; a condition without a value goes whole
    assert "Our kitchen is a mess." in mission and "The doors are falling off." in mission
    assert "No tiles" not in mission
    assert "$800" not in mission and "The budget is (see Constraints)." in mission
    assert "the constraint (the latest decision) wins" in mission
