"""Round 53: a change said with the total it comes to ("two more signed up, so we're at 11" after "9 players",
「2名増えて、参加は14名」 after 「参加は12名」) sets the old amount anew, even said as an addition (追加, "joined")
and with no word of change: the old amount and the change come to the new one. Only that amount is set: the
other clauses of its statement stay. Two values written as one ("3泊4日", "3〜4件"), a part of a group
(「うち2名」) and an amount of another kind or counted thing are no change. The phrasings are written for these
tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import assert_set_anew, every_known_text, play, stated

from mcpist.modules.context._clauses import kept_clauses
from mcpist.modules.context._totals import moved_total
from mcpist.modules.context._values import values_of

pytestmark = pytest.mark.anyio

MOVED = [
    # (stored, new, the stored amount it moves)
    ("We have 9 players signed up.", "Two more signed up this morning, so we're at 11.", "9 players"),
    ("Four of us are driving down.", "Two can't make it, so it's only 2 of us now.", "Four of us"),
    ("参加は12名です。", "営業部から2名追加で、参加は14名", "12名"),
    ("ボランティアは8人", "学生が3人抜けるので5人になります", "8人"),
    ("The fund holds £2,000.", "The council chipped in £500, which takes us to £2,500.", "£2,000"),
    ("期間は10日間", "3日延長して13日間になりました", "10日間"),
]
NOT_MOVED = [
    # two values written as one
    ("We booked 1 night.", "Let's do 2 nights 3 days now."),
    ("宿は1泊まで", "3泊4日の予定です"),
    ("Returns come in at 1 a week.", "We see 3-4 returns a week."),
    # a part of the group, not a change to it
    ("1チーム4名です。", "スタッフは6名で、うち2名が受付です。"),
    # a total of another counted thing (chairs, not metres)
    ("The room is 8 metres long.", "We'll put in 6 tables, so 2 chairs each."),
    # two amounts listed side by side
    ("We have 3 chapters written.", "The book needs 5 chapters and 2 appendices."),
    # the old amount stated again, or a change larger than it
    ("The budget is £300.", "£300, plus £200 from the raffle."),
    ("We have 5 volunteers.", "Ten more joined, 15 in all."),
]
EN = (
    "Help me plan the end-of-season party for my five-a-side team.",
    "We have 9 players signed up.",
    "It'll be at the clubhouse bar.",
    "Two lads from the under-16s joined as well, which makes 11.",
    "9 players",
    "which makes 11",
)
JA = (
    "社内研修の会場探しを手伝ってください。",
    "参加は12名です。",
    "場所は新宿駅から徒歩圏内で。",
    "営業部から2名追加で、参加は14名",
    "参加は12名",
    "参加は14名",
)
CLAUSES = (
    "少年野球チームの夏合宿の計画を立てたいです。",
    "選手は11人、コーチは4人です。",
    "1年生が3人入ったので、選手は14人になりました。",
)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {t for pair in MOVED for t in pair[:2]} | {t for pair in NOT_MOVED for t in pair}
    texts |= {*EN[:4], *JA[:4], *CLAUSES}
    assert not texts & every_known_text()


@pytest.mark.parametrize(("old", "new", "amount"), MOVED)
def test_a_change_and_its_total_move_the_old_amount(old: str, new: str, amount: str) -> None:
    moved = moved_total(new, old)
    assert moved is not None and moved.text in amount


@pytest.mark.parametrize(("old", "new"), NOT_MOVED)
def test_values_that_only_add_up_by_chance_move_nothing(old: str, new: str) -> None:
    assert moved_total(new, old) is None


def test_only_the_moved_amount_is_set_in_a_statement_of_several() -> None:
    old, new = CLAUSES[1], CLAUSES[2]
    kept = kept_clauses(old, values_of(new), frozenset(), lambda t: [], "ja", moved_total(new, old))
    assert kept is not None and "コーチは4人" in kept and "11人" not in kept


@pytest.mark.parametrize("session", [EN, JA], ids=["en", "ja"])
async def test_the_total_replaces_the_old_amount(ctx: Any, call: Any, session: tuple[str, ...]) -> None:
    goal, first, other, change, old, new = session
    await assert_set_anew(call, ctx, goal, first, other, change, old, new)


async def test_the_other_clauses_of_the_statement_stay(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, *CLAUSES)
    said = stated(last)
    assert "選手は14人" in said and "11人" not in said, last["prompt"]
    assert "コーチは4人" in said, last["prompt"]
