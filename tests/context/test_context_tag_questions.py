"""Round 29: a statement with a short question about it after a comma ("Priya has to sign off each stage, does
that slow us down?", 「プランターは3つなんですけど、…多すぎますか?」) states a condition and asks; the condition
is kept. A question with only a condition or options before it, a plea for help, or a sentence whose meaning needs
the whole stays one sentence. The phrasings are written for these tests and are in neither the training data nor
the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _structure as st
from mcpist.modules.context._reading import sentences_of, split_tag_question
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

SPLIT = [
    ("The hall only has 40 chairs, is that going to be enough?", "The hall only has 40 chairs,"),
    ("Our printer can't do A3, does that rule out posters?", "Our printer can't do A3,"),
    ("my manager wants it under two pages, will that fit everything?", "my manager wants it under two pages,"),
    ("車は軽自動車しかないんですけど、荷物は積めますか\uff1f", "車は軽自動車しかないんですけど、"),
    ("会場は土足禁止にしたい、スリッパ足りるかな\uff1f", "会場は土足禁止にしたい、"),
]
SPLIT += [
    # round 32 (set v): a dash, a tag opened by "this is", 「…のですが、…でしょうか。」 and 「…って言われてて、…」
    ("Our hall closes at 10pm sharp - can we fit a ceilidh in?", "Our hall closes at 10pm sharp,"),
    ("the grant only covers travel, this is going to be tight?", "the grant only covers travel,"),
    ("駐車場は5台分しかないのですが、送迎バスは手配すべきでしょうか。", "駐車場は5台分しかないのですが、"),
    ("参加費は1人3000円までって言われてて、これで料理は足りますかね\uff1f", "参加費は1人3000円までって言われてて、"),
]
WHOLE = [
    "恐れ入りますが、6月3日までにご回答いただけますでしょうか。",  # the lead only softens the request
    "a welcome drink on arrival - worth it?",  # an option weighed, not a condition said
    "If the budget is $300, what would you pick?",  # a condition of the question, not a statement
    "kayak or canoe, which is easier for beginners?",  # the options weighed
    "I'm writing a grant report for our food bank, can you help me?",  # a plea for help with the statement
    "Is a two-hour slot long enough for twelve speakers?",  # a question through and through
    "ok, what next?",  # nothing stated before it
    "予算が3万円なら、どれがおすすめですか\uff1f",  # a condition
    "ちなみに別件なんですけど、送別会の案内文も作ってもらえますか\uff1f",  # a separate request: the whole says it
]
SESSIONS = [
    (
        "I'm planning a volunteer thank-you lunch for the library.",
        "The hall only has 40 chairs, is that going to be enough?",
        "40 chairs",
    ),
    (
        "子ども会のデイキャンプの持ち物リストを作りたいです。",
        "車は軽自動車しかないんですけど、荷物は積めますか\uff1f",
        "軽自動車",
    ),
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {t for t, _ in SPLIT} | set(WHOLE) | {m for row in SESSIONS for m in row[:2]}
    assert not texts & every_known_text()


@pytest.mark.parametrize(("text", "lead"), SPLIT)
def test_a_statement_before_a_short_question_is_a_sentence_of_its_own(text: str, lead: str) -> None:
    parts = split_tag_question(text)
    assert parts[0] == lead and len(parts) == 2 and parts[1].rstrip("。").endswith(("?", "\uff1f", "か"))
    assert sentences_of(text) == parts


@pytest.mark.parametrize("text", WHOLE)
def test_a_question_that_needs_its_whole_stays_one_sentence(text: str) -> None:
    assert split_tag_question(text) == [text]


@pytest.mark.parametrize(("goal", "asked", "kept"), SESSIONS)
async def test_the_condition_said_before_a_question_is_kept(
    ctx: Any, call: Any, goal: str, asked: str, kept: str
) -> None:
    *_, last = await play(call, ctx, goal, asked)
    assert "QUESTION" in last["classification"]["intent"] and last["stored_as"], last
    parts = sections(last["prompt"])
    assert kept in parts["Mission"] + parts["Constraints"], last["prompt"]


@pytest.mark.parametrize(
    ("text", "introduces"),
    [
        ("I'm planning a volunteer thank-you lunch for the library.", False),  # what the user is doing: the goal
        ("I'm organising a member survey for the allotment society.", False),
        ("I'm a volunteer coordinator at the library.", True),
        ("I am quality engineer at a bottling plant.", True),
    ],
)
def test_a_role_word_after_a_verb_is_no_introduction(text: str, introduces: bool) -> None:
    assert not {text} & every_known_text()
    assert st.introduces_self(text) is introduces


async def test_a_name_alone_on_the_last_line_of_a_greeted_message_signs_it(ctx: Any, call: Any) -> None:
    goal = (
        "Hello,\n\nI need help writing a welcome pack for new volunteers at the animal shelter.\n\nBest wishes,\nMarta"
    )
    detail = "Hi again,\n\nThe pack should fit on four pages.\n\nMarta"
    assert not {goal, detail} & every_known_text()
    *_, last = await play(call, ctx, goal, detail)
    constraints = sections(last["prompt"])["Constraints"]
    assert "four pages" in constraints and "- Marta" not in constraints, last["prompt"]
    state = await call(ctx, "get_context", session_id=last["session_id"])
    assert not [i for i in state["core"] + state["evolving"] if i["text"].strip() == "Marta"], state


@pytest.mark.parametrize(
    "statement",
    ["still on shift work so like 15 hrs a week tops", "大人は12人で、日程は5月の第3日曜、予算は1人4000円で考えてる"],
)
async def test_a_statement_with_no_word_of_change_that_replaces_nothing_is_a_condition(
    ctx: Any, call: Any, statement: str
) -> None:
    goal = "I need help planning a small garden party for my mum's 70th."
    assert not {goal, statement} & every_known_text()
    _, last = await play(call, ctx, goal, statement)
    assert last["classification"]["intent"] == ["CONSTRAINT_ADDITION"], last["classification"]
    assert statement in sections(last["prompt"])["Constraints"], last["prompt"]
