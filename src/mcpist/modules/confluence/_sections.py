"""Replacing the part of a page under one heading, in the storage format itself."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from mcpist.modules import InvalidArgument, NotFound

from .markdown.xml import children_xml, parse, text_of

_HEADING = re.compile(r"^h([1-6])$")
_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lstrip("#").strip().casefold()


def splice_section(storage: str, heading: str, replacement: str) -> str:
    """`storage` with what follows `heading` (up to the next heading of its level or higher) replaced.

    The heading itself stays; `replacement` is storage format. Only top-level headings count, as in
    Confluence's own outline. The rest of the page is written back as equivalent XML (CDATA becomes escaped
    text, entities become characters).

    Raises:
        NotFound: no heading has that text. InvalidArgument: several do, or the body is not well-formed.
    """
    try:
        root = parse(storage)
    except ET.ParseError as exc:
        raise InvalidArgument(f"confluence: the page's storage format cannot be read: {exc}") from None
    children = list(root)
    wanted = _norm(heading)
    matches = [i for i, el in enumerate(children) if _HEADING.match(el.tag) and _norm(text_of(el)) == wanted]
    if not matches:
        found = [text_of(el).strip() for el in children if _HEADING.match(el.tag)]
        raise NotFound(f"confluence: no heading {heading!r} on the page; its headings: {found[:30]}")
    if len(matches) > 1:
        raise InvalidArgument(f"confluence: {len(matches)} headings read {heading!r}; edit the page with update_page")
    start = matches[0]
    level = int(children[start].tag[1])
    end = start + 1
    while end < len(children):
        match = _HEADING.match(children[end].tag)
        if match and int(match.group(1)) <= level:
            break
        end += 1
    try:
        new = list(parse(replacement))
    except ET.ParseError as exc:
        raise InvalidArgument(f"confluence: the new section is not well-formed storage format: {exc}") from None
    head = children[start]
    for old in children[start + 1 : end]:
        root.remove(old)
    tail_text = head.tail
    head.tail = None
    for offset, element in enumerate(new, start=1):
        root.insert(start + offset, element)
    if new:
        new[-1].tail = (new[-1].tail or "") + (tail_text or "")
    else:
        head.tail = tail_text
    return children_xml(root)
