"""Rich text <-> inline Markdown: what ordinary Markdown means, and a seeded random round trip."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mcpist.modules.notion.markdown import canonical_rich_text, markdown_to_blocks, parse_inline, render_blocks


def t(content: str, link: str | None = None, **marks: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "text", "text": {"content": content}}
    if link:
        item["text"]["link"] = {"url": link}
    if marks:
        item["annotations"] = marks
    return item


@pytest.mark.parametrize(
    ("markdown", "rich"),
    [
        ("**bold** text", [t("bold", bold=True), t(" text")]),
        ("__bold__ and _it_", [t("bold", bold=True), t(" and "), t("it", italic=True)]),
        ("***both***", [t("both", bold=True, italic=True)]),
        ("*a**b***", [t("a", italic=True), t("b", bold=True, italic=True)]),
        ("my_var_name and 2 * 3 * 4", [t("my_var_name and 2 * 3 * 4")]),
        ("costs $5 and $10", [t("costs $5 and $10")]),
        ("$x^2$ squared", [{"type": "equation", "equation": {"expression": "x^2"}}, t(" squared")]),
        ("~~gone~~ ~single~", [t("gone", strikethrough=True), t(" ~single~")]),
        ("`a*b` and ``x`y``", [t("a*b", code=True), t(" and "), t("x`y", code=True)]),
        ("[**see** docs](https://d.example/a_(b))", [t("see", "https://d.example/a_(b)", bold=True), t(" docs", "https://d.example/a_(b)")]),
        ("<https://example.com>", [t("https://example.com", "https://example.com")]),
        ('<u>u</u><span color="red">r</span><br>next', [t("u", underline=True), t("r", color="red"), t("\nnext")]),
        ("<b>b </b><i>i</i><s>s</s><code>\\<c></code>",
         [t("b ", bold=True), t("i", italic=True), t("s", strikethrough=True), t("<c>", code=True)]),
        ("\\*not\\* \\# \\[x\\]", [t("*not* # [x]")]),
        ("**unclosed and <b>unmatched", [t("**unclosed and <b>unmatched")]),
        ("これは**強調**です", [t("これは"), t("強調", bold=True), t("です")]),
        ("**「括弧」**の後", [t("「括弧」", bold=True), t("の後")]),
    ],
)  # fmt: skip
def test_inline_markdown_reads_as_rich_text(markdown: str, rich: list[dict[str, Any]]) -> None:
    assert parse_inline(markdown) == canonical_rich_text(rich)


ALPHABET = [*"ab あ日*_~`$[]()<>\\|#-!.\n1", "  ", "**", "http://x", "「", "」"]
MARKS = ("bold", "italic", "strikethrough", "underline", "code")


def random_rich_text(rnd: random.Random) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for _ in range(rnd.randint(1, 4)):
        marks: dict[str, Any] = {mark: True for mark in MARKS if rnd.random() < 0.25}
        if rnd.random() < 0.1:
            marks["color"] = rnd.choice(["red", "blue_background"])
        link = rnd.choice([None, None, None, "https://e.example/a", "https://e.example/b(c)", "https://e.example/d e"])
        item = t("".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(1, 6))), link, **marks)
        roll = rnd.random()
        if roll < 0.05:
            item = {"type": "equation", "equation": {"expression": rnd.choice(["x^2", "a$b", " y", "\\frac{1}{2}"])}}
        elif roll < 0.1:
            item = {"type": "mention", "mention": {"type": "user", "user": {"id": "u1"}}, "plain_text": "@A*b<c>"}
        items.append(item)
    return canonical_rich_text(items)


def test_random_rich_text_survives_the_round_trip_in_every_block_that_holds_text() -> None:
    rnd = random.Random(20250910)
    for _ in range(600):
        rich = random_rich_text(rnd)
        blocks = [
            {"type": "paragraph", "paragraph": {"rich_text": rich}},
            {"type": "heading_2", "heading_2": {"rich_text": rich}},
            {"type": "bulleted_list_item", "bulleted_list_item": {"rich_text": rich}},
            {"type": "quote", "quote": {"rich_text": rich}},
            {"type": "toggle", "toggle": {"rich_text": rich}},
            {"type": "table", "table": {"table_width": 2, "has_column_header": True, "has_row_header": False},
             "children": [{"type": "table_row", "table_row": {"cells": [rich, rich]}}]},
        ]  # fmt: skip
        markdown = render_blocks(blocks)
        assert markdown_to_blocks(markdown) == blocks, markdown
