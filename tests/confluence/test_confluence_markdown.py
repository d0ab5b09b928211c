"""Storage format and Markdown: every construct round-trips, markers keep what Markdown cannot say."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from mcpist.modules.confluence._sections import splice_section
from mcpist.modules.confluence.markdown import to_markdown, to_storage
from mcpist.modules.confluence.markdown.xml import parse

CONSTRUCTS = {
    "headings": "<h1>One</h1><h3>Three &amp; more</h3>",
    "paragraph": "<p>Plain text, 日本語のテキスト。</p>",
    "emphasis": "<p><strong>b</strong> <em>i</em> <s>gone</s> <code>x = 1</code></p>",
    "link": '<p>See <a href="https://example.com/a?b=1">the site</a>.</p>',
    "break": "<p>line<br/>next</p>",
    "nested lists": "<ul><li>a<ul><li>a1</li><li>a2<ol><li>deep</li></ol></li></ul></li><li>b</li></ul>",
    "ordered": "<ol><li>first</li><li>second</li></ol>",
    "code": '<ac:structured-macro ac:name="code" ac:schema-version="1"><ac:parameter ac:name="language">python'
    '</ac:parameter><ac:plain-text-body><![CDATA[if a < b:\n    print("]]]]><![CDATA[>")\n]]></ac:plain-text-body>'
    "</ac:structured-macro>",
    "table": "<table><tbody><tr><th>Name</th><th>Note</th></tr><tr><td>a | b</td><td><em>x</em></td></tr>"
    "</tbody></table>",
    "blockquote": "<blockquote><p>quoted</p><p>twice</p></blockquote>",
    "rule": "<p>above</p><hr/><p>below</p>",
    "image url": '<p><ac:image ac:alt="logo"><ri:url ri:value="https://example.com/logo.png"/></ac:image></p>',
    "image attachment": '<p><ac:image><ri:attachment ri:filename="my diagram.png"/></ac:image></p>',
    "info panel": '<ac:structured-macro ac:name="info" ac:schema-version="1"><ac:rich-text-body><p>Careful --> '
    "here</p></ac:rich-text-body></ac:structured-macro>",
    "jira macro": '<p>See <ac:structured-macro ac:name="jira"><ac:parameter ac:name="key">ENG-1</ac:parameter>'
    "</ac:structured-macro> now</p>",
    "status": '<p><ac:structured-macro ac:name="status"><ac:parameter ac:name="colour">Green</ac:parameter>'
    '<ac:parameter ac:name="title">DONE</ac:parameter></ac:structured-macro></p>',
    "expand": '<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">More</ac:parameter>'
    "<ac:rich-text-body><p>hidden</p></ac:rich-text-body></ac:structured-macro>",
    "toc": '<ac:structured-macro ac:name="toc"/>',
    "mention": '<p>Hi <ac:link><ri:user ri:account-id="5b10a2844c20165700ede21g"/></ac:link>!</p>',
    "emoticon": '<p>Nice <ac:emoticon ac:name="smile"/></p>',
    "layout": '<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><p>L</p></ac:layout-cell>'
    "<ac:layout-cell><p>R</p></ac:layout-cell></ac:layout-section></ac:layout>",
    "tasks": "<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>incomplete</ac:task-status>"
    "<ac:task-body>write tests</ac:task-body></ac:task></ac:task-list>",
    "merged cells": '<table><tbody><tr><td colspan="2">wide</td></tr></tbody></table>',
    "markdown-looking text": "<p># not a heading</p><p>1. not a list</p><p>*stars* and [brackets]</p>",
}


def canonical(storage: str) -> str:
    """The XML as a comparable string: CDATA and entities resolved, whitespace runs collapsed."""
    root = parse(storage)
    for element in root.iter():
        for attr in ("text", "tail"):
            value = getattr(element, attr)
            if value is not None and not element.tag.endswith("plain-text-body"):
                setattr(element, attr, re.sub(r"[ \t\r\n]+", " ", value))
    return ET.canonicalize(ET.tostring(root, encoding="unicode"))


@pytest.mark.parametrize("storage", CONSTRUCTS.values(), ids=list(CONSTRUCTS))
def test_storage_to_markdown_and_back_is_equivalent(storage: str) -> None:
    markdown = to_markdown(storage)
    assert canonical(to_storage(markdown)) == canonical(storage), markdown


@pytest.mark.parametrize("storage", CONSTRUCTS.values(), ids=list(CONSTRUCTS))
def test_markdown_is_stable(storage: str) -> None:
    markdown = to_markdown(storage)
    assert to_markdown(to_storage(markdown)) == markdown


def test_the_markdown_is_what_people_write() -> None:
    storage = "".join(CONSTRUCTS[k] for k in ("headings", "emphasis", "nested lists", "code", "table", "mention"))
    assert to_markdown(storage) == (
        "# One\n\n### Three & more\n\n**b** *i* ~~gone~~ `x = 1`\n\n- a\n  - a1\n  - a2\n    1. deep\n- b\n\n"
        '```python\nif a < b:\n    print("]]>")\n\n```\n\n| Name | Note |\n| --- | --- |\n| a \\| b | *x* |\n\n'
        'Hi <!-- confluence:<ac:link><ri:user ri:account-id="5b10a2844c20165700ede21g" /></ac:link> -->!\n'
    )


def test_markdown_people_type_becomes_storage() -> None:
    markdown = (
        "## 見出し\n\nText with _em_, snake_case and **bold**\ncontinued.\n\n* one\n* two\n\n1) x\n\n> q\n\n***\n"
    )
    assert to_storage(markdown) == (
        "<h2>見出し</h2><p>Text with <em>em</em>, snake_case and <strong>bold</strong> continued.</p>"
        "<ul><li>one</li><li>two</li></ul><ol><li>x</li></ol><blockquote><p>q</p></blockquote><hr/>"
    )


def test_a_body_that_is_not_xml_is_kept_whole() -> None:
    broken = "<p>unclosed"
    assert to_storage(to_markdown(broken)) == broken


def test_splice_section_keeps_the_rest_and_stops_at_the_next_heading() -> None:
    storage = "<h1>A</h1><p>a</p><h2>B</h2><p>b</p><h3>B1</h3><p>b1</p><h2>C</h2><p>c</p>"
    assert splice_section(storage, "b", "<p>new</p>") == "<h1>A</h1><p>a</p><h2>B</h2><p>new</p><h2>C</h2><p>c</p>"
    assert splice_section(storage, "C", "") == "<h1>A</h1><p>a</p><h2>B</h2><p>b</p><h3>B1</h3><p>b1</p><h2>C</h2>"
