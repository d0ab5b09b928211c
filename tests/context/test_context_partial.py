"""Round 28: a statement that said several things at once ("the slot is 45 minutes and the audience is mostly
students", 「予算は8万円で、参加者は15人です」) is replaced only in what the newer one sets: the clauses it leaves
standing are kept as a statement of their own, which `get_context` explains. The phrasings are written for these
tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _features as f
from mcpist.modules.context._clauses import kept_clauses
from mcpist.modules.context._synth import sections
from mcpist.modules.context._text import Tokenizer

pytestmark = pytest.mark.anyio

KEPT = [
    (
        "The talk slot is 45 minutes and the audience is mostly second-year students.",
        "They've cut the slot to 30 minutes.",
        "en",
        "the audience is mostly second-year students.",
    ),
    (
        "We can spend up to $900, delivery has to be before the 12th.",
        "Budget went up to $1,200.",
        "en",
        "delivery has to be before the 12th.",
    ),
    ("Cap it at 20 users, two admins.", "Let's allow 50 users after all.", "en", "two admins."),
    # no value: the word it shares says which clause it sets (round 33)
    (
        "Theme is pirates, in the back garden.",
        "She's gone off pirates, it's dinosaurs now.",
        "en",
        "in the back garden.",
    ),
    ("家族4人で2泊3日、行き先は松本を考えています。", "やっぱり松本ではなく金沢にします。", "ja", "家族4人で2泊3日"),
    ("予算は8万円で、参加者は15人です。", "予算が10万円に増えました。", "ja", "参加者は15人です"),
    # a thousands separator is no clause boundary
    ("会場は市民ホール、定員は1,500人です。", "定員は1,200人に減りました。", "ja", "会場は市民ホール"),
]
WHOLE = [
    # one clause: nothing else to keep
    ("The party is for 30 guests.", "Make it 40 guests."),
    # the newer statement names the other clause too: it sets both
    ("I can practise two mornings a week, plus Saturday afternoons.", "scrap the mornings, just Saturday now"),
    # no value and no word in common: which clause it sets is not known, so the whole statement goes as before
    ("Theme is pirates, in the back garden.", "Actually let's go with dinosaurs."),
]
SESSIONS = [
    (
        "I'm preparing a guest lecture on soil microbiology.",
        "The talk slot is 45 minutes and the audience is mostly second-year students.",
        "Update: they've cut the slot to 30 minutes.",
        "second-year students",
        "45 minutes",
    ),
    (
        "町内の防災訓練の案内チラシを作りたいです。",
        "開催は10月5日で、集合場所は第二公園です。",
        "訂正です、開催日は10月12日に変わりました。",
        "第二公園",
        "10月5日",
    ),
]


def _terms(language: str) -> Any:
    tokenizer = Tokenizer.load()
    return lambda text: tokenizer.terms(text, language)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {row[i] for row in KEPT for i in (0, 1)} | {m for row in WHOLE for m in row}
    texts |= {m for row in SESSIONS for m in row[:3]}
    assert not texts & every_known_text()


@pytest.mark.parametrize(("old", "new", "language", "kept"), KEPT)
def test_the_clauses_a_newer_statement_does_not_set_are_kept(old: str, new: str, language: str, kept: str) -> None:
    terms = _terms(language)
    values = f.values_of(f.normalize(new))
    assert kept_clauses(old, values, frozenset(terms(new)), terms, language) == kept


@pytest.mark.parametrize(("old", "new"), WHOLE)
def test_a_statement_set_as_a_whole_keeps_nothing(old: str, new: str) -> None:
    terms = _terms("en")
    assert kept_clauses(old, f.values_of(f.normalize(new)), frozenset(terms(new)), terms, "en") is None


@pytest.mark.parametrize(("goal", "compound", "change", "kept", "old"), SESSIONS)
async def test_a_change_to_one_clause_keeps_the_others(
    ctx: Any, call: Any, goal: str, compound: str, change: str, kept: str, old: str
) -> None:
    *_, last = await play(call, ctx, goal, compound, change)
    parts = sections(last["prompt"])
    stated = parts["Mission"] + parts["Constraints"]  # the kept clause sits where the statement sat
    assert kept in stated and old not in stated, last["prompt"]
    assert len(last["stored_as"]) == 1, last["stored_as"]  # the kept part is no statement of this message
    state = await call(ctx, "get_context", session_id=last["session_id"])
    standing = [i for i in state["core"] + state["evolving"] if kept in i["text"]]
    assert [i["status"] for i in standing] == ["active"] and old not in standing[0]["text"], state
    assert compound[:10] in standing[0]["reason"] and change[:10] in standing[0]["reason"], standing
    replaced = [i for i in state["superseded"] if i["text"] == compound]
    assert [i["status"] for i in replaced] == ["replaced"] and replaced[0]["replaced_by"] == change, state


async def test_a_goal_sentence_changed_in_one_clause_keeps_the_rest_in_the_mission_alone(ctx: Any, call: Any) -> None:
    goal = "I want to plan a garden party for 25 guests, and the budget is £400."
    change = "Budget's now £550."
    assert not {goal, change} & every_known_text()
    *_, last = await play(call, ctx, goal, change)
    mission = sections(last["prompt"])["Mission"]
    assert "25 guests" in mission and "£400" not in mission, last["prompt"]
    state = await call(ctx, "get_context", session_id=last["session_id"])
    # the goal's own sentence keeps its other clause: a kept copy could outlive a later change the mission masks
    assert not [i for i in state["core"] + state["evolving"] if "did not set anew" in i["reason"]], state


LIFTED = [
    (
        "I'm putting together a quarterly report deck for the board.",
        "It has to be 12 slides or fewer.",
        "The audience is the three trustees.",
        "Good news, the chair says there's no slide limit this time.",
        "12 slides",
    ),
    (
        "町内会の回覧板に載せるお知らせ文を作りたいです。",
        "文章は300字以内でお願いします。",
        "配布は来週の月曜です。",
        "会長に聞いたら、字数の制限はなしでいいそうです。",
        "300字",
    ),
]


@pytest.mark.parametrize(("goal", "limit", "other", "lift", "old"), LIFTED)
async def test_a_lifted_limit_that_names_what_it_counted_lifts_the_statement_counting_it(
    ctx: Any, call: Any, goal: str, limit: str, other: str, lift: str, old: str
) -> None:
    assert not {goal, limit, other, lift} & every_known_text()
    *_, last = await play(call, ctx, goal, limit, other, lift)
    parts = sections(last["prompt"])
    stated = parts["Mission"] + parts["Constraints"]
    assert old not in stated and other in stated, last["prompt"]


DATED_GOALS = [
    (
        "I need to plan the stall for our school's winter craft fair on 6 December.",
        "The fair has been moved to 13 December.",
        "6 December",
        "13 December",
    ),
    (
        "11月8日の地域清掃イベントの案内文を作りたいです。",
        "雨天のため、清掃イベントは11月15日に延期になりました。",
        "11月8日",
        "11月15日",
    ),
]


@pytest.mark.parametrize(("goal", "moved", "old", "new"), DATED_GOALS)
async def test_a_date_in_the_goal_sentence_is_masked_once_it_moves(
    ctx: Any, call: Any, goal: str, moved: str, old: str, new: str
) -> None:
    assert not {goal, moved} & every_known_text()
    *_, last = await play(call, ctx, goal, moved)
    parts = sections(last["prompt"])
    assert old not in parts["Mission"] + parts["Constraints"] and new in parts["Constraints"], last["prompt"]
