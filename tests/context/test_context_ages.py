"""Round 41: an age is a value of its own ("my son is 9 years old", 「祖父は90歳」), not a stretch of years nor a
count of things; a counter such as 「枠」「コマ」「案」 is the unit of what it counts, whatever the number before it;
and a clause keeps its own values, so the "1" of 「要介護1」 is not also found in 「1時間」 when a newer statement
sets the one and leaves the other."""

from __future__ import annotations

import pytest

from mcpist.modules.context import _features as f
from mcpist.modules.context._clauses import kept_clauses
from mcpist.modules.context._text import Tokenizer


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("祖父は90歳です", "90歳"),
        ("my son is 9 years old", "9 years old"),
        ("for a 10-year-old", "10-year-old"),
        ("娘は5才", "5才"),
    ],
)
def test_an_age_is_read_as_an_age(text: str, age: str) -> None:
    (value,) = f.values_of(text)
    assert (value.kind, value.text, value.unit) == ("age", age, "歳")
    assert f.magnitude(value) == float("".join(c for c in age if c.isdigit()))


def test_years_that_are_no_age_stay_a_duration() -> None:
    assert [v.kind for v in f.values_of("we've lived here for 9 years")] == ["duration"]


@pytest.mark.parametrize(("one", "other"), [("1枠", "2枠"), ("3コマ", "4コマ"), ("案は2つ", "3つ"), ("2か所", "3箇所")])
def test_a_counter_is_the_unit_whatever_the_number(one: str, other: str) -> None:
    (first,), (second,) = f.values_of(one), f.values_of(other)
    assert first.kind == second.kind == "count" and first.unit == second.unit


def test_a_clause_keeps_a_value_that_only_contains_the_replaced_one() -> None:
    tokenizer = Tokenizer.load()
    old = "父は要介護1で、施設までは車で1時間です。"
    new = "区分変更の結果、要介護3になりました。"
    kept = kept_clauses(
        old, f.values_of(new), frozenset(tokenizer.terms(new, "ja")), lambda t: tokenizer.terms(t, "ja"), "ja"
    )
    assert kept is not None and "車で1時間" in kept and "要介護1" not in kept


def test_old_before_what_is_counted_is_no_age() -> None:
    assert [(v.kind, v.unit) for v in f.values_of("we still have 5 old chairs")] == [("number", "chair")]
