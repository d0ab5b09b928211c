"""Property values flattened to plain values, plain values typed back, and schemas in short form."""

from __future__ import annotations

from typing import Any

import pytest
from notion_world import ME, rich

from mcpist.modules import InvalidArgument
from mcpist.modules.notion.properties import build_values, definitions, flatten, schema_of

USER = {"object": "user", "id": ME, "name": "山田 花子"}


def prop(kind: str, value: Any) -> dict[str, Any]:
    return {"id": "x", "type": kind, kind: value}


def test_every_property_type_flattens_to_a_plain_value() -> None:
    values = flatten(
        {
            "Name": prop("title", [rich("題名")]),
            "Text": prop("rich_text", [rich("a"), rich("b", bold=True)]),
            "URL": prop("url", "https://example.com"),
            "Mail": prop("email", None),
            "Phone": prop("phone_number", "+81-3-0000-0000"),
            "Files": prop("files", [{"name": "a.pdf", "type": "external", "external": {"url": "https://f/a.pdf"}},
                                    {"name": "b.png", "type": "file", "file": {"url": "https://s3/b.png"}}]),
            "Relation": prop("relation", [{"id": "r1"}, {"id": "r2"}]),
            "Formula": prop("formula", {"type": "date", "date": {"start": "2025-01-01", "end": "2025-01-02"}}),
            "Rollup": prop("rollup", {"type": "array", "function": "show_original",
                                      "array": [prop("title", [rich("x")]), prop("multi_select", [{"name": "m"}])]}),
            "Sum": prop("rollup", {"type": "number", "number": 42, "function": "sum"}),
            "Created": prop("created_time", "2025-09-10T08:00:00.000Z"),
            "By": prop("created_by", USER),
            "ID": prop("unique_id", {"prefix": "TASK", "number": 7}),
            "Verified": prop("verification", {"state": "verified"}),
            "Button": prop("button", {}),
        }
    )  # fmt: skip
    assert values == {
        "Text": "ab",
        "URL": "https://example.com",
        "Mail": None,
        "Phone": "+81-3-0000-0000",
        "Files": ["https://f/a.pdf", "https://s3/b.png"],
        "Relation": ["r1", "r2"],
        "Formula": "2025-01-01/2025-01-02",
        "Rollup": ["x", "m"],
        "Sum": 42,
        "Created": "2025-09-10T08:00:00.000Z",
        "By": f"山田 花子 <{ME}>",
        "ID": "TASK-7",
        "Verified": "verified",
        "Button": None,
    }


def test_plain_values_become_property_values_by_type() -> None:
    schema = {n: {"type": k} for n, k in [("T", "title"), ("R", "relation"), ("F", "files"), ("N", "number"),
              ("C", "checkbox"), ("M", "multi_select"), ("U", "url"), ("S", "select")]}  # fmt: skip
    built = build_values(
        {"title": "x", "R": "a 0123456789abcdef0123456789abcdef", "F": ["https://f/a.pdf"], "N": "1,234.5",
         "C": "yes", "M": "a, b", "U": "", "S": None},
        schema,
    )  # fmt: skip
    assert built == {
        "T": {"title": [{"type": "text", "text": {"content": "x"}}]},
        "R": {"relation": [{"id": "01234567-89ab-cdef-0123-456789abcdef"}]},
        "F": {"files": [{"name": "a.pdf", "type": "external", "external": {"url": "https://f/a.pdf"}}]},
        "N": {"number": 1234.5},
        "C": {"checkbox": True},
        "M": {"multi_select": [{"name": "a"}, {"name": "b"}]},
        "U": {"url": None},
        "S": {"select": None},
    }
    raw = {"rich_text": [{"type": "text", "text": {"content": "as given"}}]}
    assert build_values({"T": raw}, schema) == {"T": raw}


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"N": "many"}, "'N' is a number property; 'many' is not a number"),
        ({"C": "perhaps"}, "'C' is a checkbox property; give true or false"),
        ({"D": "31/01/2025"}, "'D' is a date property; give 2025-01-31"),
        ({"P": ["Alice"]}, "'P' takes ids"),
    ],
)
def test_values_that_do_not_fit_their_type_are_refused(values: dict[str, Any], problem: str) -> None:
    schema = {"N": {"type": "number"}, "C": {"type": "checkbox"}, "D": {"type": "date"}, "P": {"type": "people"}}
    with pytest.raises(InvalidArgument, match=problem):
        build_values(values, schema)


def test_schemas_in_short_form_both_ways() -> None:
    assert definitions(
        {"Stage": "select: 企画, 実施", "Due": "date", "Rate": "number: percent"}, allow_removal=False
    ) == {
        "Stage": {"select": {"options": [{"name": "企画"}, {"name": "実施"}]}},
        "Due": {"date": {}},
        "Rate": {"number": {"format": "percent"}},
    }
    with pytest.raises(InvalidArgument, match="unknown property type 'color'"):
        definitions({"X": "color"}, allow_removal=False)
    with pytest.raises(InvalidArgument, match="has no type"):
        definitions({"X": None}, allow_removal=False)
    shown = schema_of({"R": {"id": "r", "type": "relation", "relation": {"data_source_id": "ds", "database_id": "db"}}})
    assert shown["R"].data_source_id == "ds"
