"""Blocks <-> Markdown: every documented block type survives the round trip, and Markdown reads back stably."""

from __future__ import annotations

import pytest
from blocks_catalog import PAGE, block, catalog, rich, text

from mcpist.modules.notion.markdown import blocks_to_markdown, canonical_blocks, markdown_to_blocks, render_blocks
from mcpist.modules.notion.markdown.wire import split_text, wire_block, wire_rich_text

CATALOG = catalog()


@pytest.mark.parametrize("name", list(CATALOG))
def test_every_block_type_survives_blocks_to_markdown_to_blocks(name: str) -> None:
    original = [CATALOG[name]]
    markdown = blocks_to_markdown(original)
    assert markdown_to_blocks(markdown) == canonical_blocks(original)
    assert blocks_to_markdown(markdown_to_blocks(markdown)) == markdown


def test_a_whole_page_of_every_block_type_survives_the_round_trip() -> None:
    page = list(CATALOG.values())
    markdown = blocks_to_markdown(page)
    assert markdown_to_blocks(markdown) == canonical_blocks(page)


def test_ids_timestamps_and_default_values_are_not_part_of_the_content() -> None:
    (canonical,) = canonical_blocks([CATALOG["heading_1"]])
    assert canonical == {
        "type": "heading_1",
        "heading_1": {"rich_text": [{"type": "text", "text": {"content": "大見出し"}}]},
    }


@pytest.mark.parametrize(
    ("name", "markdown"),
    [
        ("heading_2", "## 中見出し <!-- notion:{\"color\":\"red\"} -->"),
        ("heading_3_toggleable", "### 開閉できる見出し <!-- notion:{\"is_toggleable\":true} -->\n  中身"),
        ("bulleted_list_nested", "- 項目\n  - 子項目\n    - 孫項目"),
        ("numbered_list", "1. 手順\n   1. 細目"),
        ("to_do_checked", "- [x] 済んだこと"),
        ("toggle", "<details><summary>詳細</summary>\n  隠れた内容\n</details>"),
        ("quote", "> 引用文\n> 二行目"),
        ("callout", '> 注意してください <!-- notion:{"type":"callout","icon":{"type":"emoji","emoji":"💡"},'
         '"color":"gray_background"} -->\n  補足'),
        ("divider", "---"),
        ("table", "| 名前 | 値 \\| 記号 |\n| --- | --- |\n| りんご | 100円 |\n|  | x |"),
        ("image", "![猫の写真](https://example.com/cat.png)"),
        ("video", '[](https://www.youtube.com/watch?v=abc) <!-- notion:{"type":"video"} -->'),
        ("equation", "$$\n\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n$$"),
        ("child_page", "[子ページ](https://www.notion.so/0f0e0d0c0b0a49098807060504030201)"
         ' <!-- notion:{"type":"child_page"} -->'),
        ("synced_block_original", "<synced_block>\n  共有される内容\n</synced_block>"),
        ("breadcrumb", '<!-- notion:{"type":"breadcrumb","breadcrumb":{}} -->'),
        ("paragraph_empty", "<empty-block/>"),
        ("paragraph_annotations", "**太字**と*斜体*、~~取消~~・`code`・<u>下線</u>・<span color=\"red\">赤</span>・"
         "[リンク](https://example.com/x)・<span color=\"yellow_background\">**背景**</span>"),
    ],
)  # fmt: skip
def test_the_markdown_conventions(name: str, markdown: str) -> None:
    assert blocks_to_markdown([CATALOG[name]]) == markdown


def test_what_markdown_cannot_say_is_kept_as_json_never_dropped() -> None:
    mentions = blocks_to_markdown([CATALOG["paragraph_mentions"]])
    assert '<!-- notion:{"type":"mention","mention":{"type":"user","user":{"id":' in mentions
    assert "-->@山田 花子<!-- /notion -->" in mentions and "$e^{i\\pi}+1=0$" in mentions
    formatted_code = blocks_to_markdown([CATALOG["code_formatted"]])
    assert formatted_code.startswith('<!-- notion:{"type":"code",') and '"bold":true' in formatted_code
    unknown = blocks_to_markdown([CATALOG["ai_block_unknown"]])
    assert unknown.startswith('<!-- notion:{"type":"meeting_notes"')


def test_a_marker_cannot_be_ended_early_by_the_text_it_carries() -> None:
    odd = {"type": "template_mention", "template_mention": {"type": "date", "date": "--> today <!--"}}
    tricky = block("paragraph", text("p", {**rich("x"), "type": "mention", "mention": odd}))
    markdown = blocks_to_markdown([tricky])
    assert "--> today" not in markdown
    assert markdown_to_blocks(markdown) == canonical_blocks([tricky])


@pytest.mark.parametrize(
    "markdown",
    [
        "# Title\nSome *text*.\n\n* star bullet\n+ plus bullet\n1) paren numbered\n2. numbered",
        "#### deep heading\n\n***\n\n___\n\n```js\nconst x = 1;\n```\n\n```unknown-lang\nx\n```",
        "<details>\n<summary>Summary line</summary>\n\nBody paragraph\n\n- list in body\n</details>",
        "| h1 | h2 |\n|:---|---:|\n| a | b |\n| c |",
        "> quote\n>\n> after blank\n\nparagraph with trailing spaces   \nnext line",
        "- [ ] task\n- [X] done\n  continuation paragraph is a child\n\n$$ E = mc^2 $$",
        "Text with a_snake_case name, 2 * 3 * 4, $5 and $10, and a <https://example.com> autolink.",
        "日本語の**強調**と『引用』、そして`コード`。\n\n1. 手順一\n2. 手順二\n   - 補足",
        "<columns>\n<column>\nleft\n</column>\n<column>\nright\n</column>\n</columns>",
        "\tTabbed line\n\n    indented paragraph\n\n<empty-block/>",
    ],
)
def test_markdown_to_blocks_to_markdown_is_stable(markdown: str) -> None:
    once = render_blocks(markdown_to_blocks(markdown))
    assert render_blocks(markdown_to_blocks(once)) == once


def test_ordinary_markdown_reads_as_the_blocks_an_llm_means() -> None:
    blocks = markdown_to_blocks("#### 小見出し\n\n```ts\nlet a = 1\n```\n\n* 項目\n\n1) 一つ目")
    assert [b["type"] for b in blocks] == ["heading_3", "code", "bulleted_list_item", "numbered_list_item"]
    assert blocks[1]["code"]["language"] == "typescript"


def test_japanese_text_and_punctuation_keep_their_formatting() -> None:
    note = "\uff08注\uff09"  # in fullwidth parentheses
    paragraph = block(
        "paragraph", text("p", rich("「重要」", bold=True), rich("です。"), rich(note, italic=True), rich("参照"))
    )
    markdown = blocks_to_markdown([paragraph])
    assert markdown == f"**「重要」**です。*{note}*参照"
    assert markdown_to_blocks(markdown) == canonical_blocks([paragraph])
    assert markdown_to_blocks("これは**強調**です")[0]["paragraph"]["rich_text"][1]["annotations"] == {"bold": True}


def test_emphasis_markdown_cannot_say_falls_back_to_html_tags() -> None:
    paragraph = block("paragraph", text("p", rich("bold ", bold=True), rich("then plain")))
    markdown = blocks_to_markdown([paragraph])
    assert markdown == "<b>bold </b>then plain"
    assert markdown_to_blocks(markdown) == canonical_blocks([paragraph])


def test_text_over_2000_characters_is_split_into_several_text_objects() -> None:
    long = "あ" * 4100
    (wired,) = wire_block(markdown_to_blocks(long)[0])
    assert [len(item["text"]["content"]) for item in wired["paragraph"]["rich_text"]] == [2000, 2000, 100]
    emoji = "😀" * 1001  # two UTF-16 units each, as Notion counts
    assert [len(piece) for piece in split_text(emoji)] == [1000, 1]
    assert "".join(split_text(long + emoji)) == long + emoji


def test_rich_text_over_100_objects_becomes_several_blocks() -> None:
    many = "".join(f"**{i}** " for i in range(120))
    wired = wire_block(markdown_to_blocks(many)[0])
    assert [len(b["paragraph"]["rich_text"]) for b in wired] == [100, 100, 40]


def test_the_wire_form_drops_what_a_request_does_not_take() -> None:
    (canonical,) = canonical_blocks([CATALOG["paragraph_mentions"]])
    items = wire_rich_text(canonical["paragraph"]["rich_text"])
    assert all("plain_text" not in item and "href" not in item for item in items)
    assert items[1] == {
        "type": "mention",
        "mention": {"type": "user", "user": {"id": "5389a034-eb5c-47b5-8a9e-f79c99ef166c"}},
    }
    assert PAGE in str(items)
