"""ADF <-> Markdown: every node type survives ADF -> Markdown -> ADF; Markdown -> ADF -> Markdown is stable."""

from __future__ import annotations

from typing import Any

import pytest

from mcpist.modules.jira.adf import adf_to_markdown, canonical, markdown_to_adf


def doc(*blocks: Any) -> dict[str, Any]:
    return {"type": "doc", "version": 1, "content": list(blocks)}


def para(*inline: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "paragraph", "content": list(inline), **extra}


def text(value: str, *marks: str, **attrs: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "text", "text": value}
    if marks:
        node["marks"] = [{"type": m, **({"attrs": attrs} if m == "link" else {})} for m in marks]
    return node


def item(*blocks: Any) -> dict[str, Any]:
    return {"type": "listItem", "content": list(blocks)}


def cell(kind: str, value: str) -> dict[str, Any]:
    return {"type": kind, "content": [para(text(value))]}


BLOCKS = {
    "paragraph": para(text("plain "), text("bold", "strong"), text(" and "), text("both", "strong", "em")),
    "marks": para(
        text("x", "em"),
        text("y"),
        text("gone", "strike"),
        text(" "),
        text("under", "underline"),
        text(" "),
        text("a `tick`", "code"),
        text(" "),
        text("site", "link", href="https://example.com/a_(b)"),
        text(" "),
        text("bold link", "link", "strong", href="https://x.y"),
    ),
    "hard_break": para(text("line one"), {"type": "hardBreak"}, text("line two")),
    "escapes": para(text("1. not a list * _x_ [a](b) <u> ~~ \\ | # snake_case")),
    "heading": {"type": "heading", "attrs": {"level": 3}, "content": [text("Title "), text("em", "em")]},
    "bullets": {
        "type": "bulletList",
        "content": [
            item(para(text("one"))),
            item(
                para(text("two")), {"type": "orderedList", "attrs": {"order": 3}, "content": [item(para(text("2a")))]}
            ),
        ],
    },
    "ordered": {
        "type": "orderedList",
        "attrs": {"order": 1},
        "content": [item(para(text("a"))), item(para(text("b")))],
    },
    "code": {"type": "codeBlock", "attrs": {"language": "python"}, "content": [text("print('x')\n```\nmore")]},
    "code_plain": {"type": "codeBlock", "content": [text("a  b")]},
    "quote": {
        "type": "blockquote",
        "content": [para(text("quoted")), {"type": "bulletList", "content": [item(para(text("q")))]}],
    },
    "rule": {"type": "rule"},
    "table": {
        "type": "table",
        "attrs": {"isNumberColumnEnabled": False, "layout": "default"},
        "content": [
            {"type": "tableRow", "content": [cell("tableHeader", "名前"), cell("tableHeader", "a|b")]},
            {"type": "tableRow", "content": [cell("tableCell", "値"), {"type": "tableCell", "content": [para()]}]},
        ],
    },
    "table_merged": {
        "type": "table",
        "content": [
            {
                "type": "tableRow",
                "content": [{"type": "tableCell", "attrs": {"colspan": 2}, "content": [para(text("wide"))]}],
            }
        ],
    },
    "mention_emoji_status_date_card": para(
        {"type": "mention", "attrs": {"id": "5b10", "text": "@Alice <ops>"}},
        text(" "),
        {"type": "emoji", "attrs": {"shortName": ":tada:", "text": "🎉"}},
        {"type": "status", "attrs": {"text": "IN REVIEW", "color": "blue"}},
        {"type": "date", "attrs": {"timestamp": "1767225600000"}},
        {"type": "inlineCard", "attrs": {"url": "https://acme.atlassian.net/browse/PROJ-1"}},
        text("colored", "textColor"),
    ),
    "colored_text": para(
        {"type": "text", "text": "red", "marks": [{"type": "textColor", "attrs": {"color": "#ff0000"}}]}
    ),
    "panel": {"type": "panel", "attrs": {"panelType": "warning"}, "content": [para(text("careful -->"))]},
    "expand": {"type": "expand", "attrs": {"title": "More"}, "content": [para(text("hidden"))]},
    "media": {
        "type": "mediaSingle",
        "attrs": {"layout": "center"},
        "content": [{"type": "media", "attrs": {"id": "abc", "type": "file", "collection": "c"}}],
    },
    "unknown": {"type": "futureThing", "attrs": {"x": 1}},
    "empty_paragraph": {"type": "paragraph"},
    "aligned": para(
        text("centred"), marks=[{"type": "alignment", "attrs": {"align": "center"}}], attrs={"localId": "p1"}
    ),
    "japanese": para(text("日本語の"), text("太字", "strong"), text("と"), text("斜体", "em"), text("です。")),
}


@pytest.mark.parametrize("name", list(BLOCKS))
def test_adf_to_markdown_and_back_is_the_same_document(name: str) -> None:
    original = doc(BLOCKS[name])
    markdown = adf_to_markdown(original)
    assert canonical(markdown_to_adf(markdown)) == canonical(original), markdown


def test_the_whole_document_round_trips_and_reads_as_markdown() -> None:
    original = doc(*BLOCKS.values())
    markdown = adf_to_markdown(original)
    assert canonical(markdown_to_adf(markdown)) == canonical(original)
    assert "**plain** " not in markdown and "**bold**" in markdown and "- one\n- two\n  3. 2a" in markdown
    assert "| 名前 | a\\|b |" in markdown and "<!-- adf:" in markdown and "@Alice" in markdown
    assert "snake_case" in markdown  # an underscore inside a word is not escaped


MARKDOWN = """# Release 手順

Run **all** the _tests_ first, then `make deploy`.
See [the guide](https://example.com/guide) ~~or not~~.

1. build
2. ship
   - with *care*

> note: it is <u>slow</u>

```bash
make deploy
```

| step | owner |
|---|---|
| build | 山田 |

---

Ask <!-- adf:{"attrs":{"id":"5b10","text":"@Alice"},"type":"mention"} -->@Alice<!-- /adf --> today."""


def test_markdown_to_adf_to_markdown_is_stable() -> None:
    once = adf_to_markdown(markdown_to_adf(MARKDOWN))
    assert adf_to_markdown(markdown_to_adf(once)) == once
    built = markdown_to_adf(MARKDOWN)["content"]
    kinds = [b["type"] for b in built]
    assert kinds == ["heading", "paragraph", "orderedList", "blockquote", "codeBlock", "table", "rule", "paragraph"]
    assert built[-1]["content"][1] == {"type": "mention", "attrs": {"id": "5b10", "text": "@Alice"}}
    assert built[2]["content"][1]["content"][1]["type"] == "bulletList"


def test_plain_text_and_odd_input() -> None:
    assert adf_to_markdown(None) == "" and adf_to_markdown("plain") == "plain"
    assert markdown_to_adf("") == {"type": "doc", "version": 1, "content": []}
    loose = markdown_to_adf("a * b and **unclosed")
    assert loose["content"][0]["content"] == [{"type": "text", "text": "a * b and **unclosed"}]
