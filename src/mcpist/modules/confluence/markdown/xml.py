"""Reading and writing Confluence storage format (XHTML with undeclared `ac:`/`ri:` prefixes) with ElementTree.

Storage format is XML fragments that use HTML entities (`&nbsp;`) and the `ac:`, `ri:` (and, in templates,
`at:`) prefixes without declaring them: a fragment is wrapped in a root that declares them, and named HTML
entities become numeric references, before the standard library parses it.
"""

from __future__ import annotations

import html.entities
import re
import xml.etree.ElementTree as ET

NAMESPACES = {
    "ac": "http://atlassian.com/content",
    "ri": "http://atlassian.com/resource/identifier",
    "at": "http://atlassian.com/template",
}
AC = "{" + NAMESPACES["ac"] + "}"
RI = "{" + NAMESPACES["ri"] + "}"
for _prefix, _uri in NAMESPACES.items():
    ET.register_namespace(_prefix, _uri)

_ROOT_OPEN = "<root " + " ".join(f'xmlns:{p}="{u}"' for p, u in NAMESPACES.items()) + ">"
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
_DECLARATION = re.compile(r' xmlns:(?:ac|ri|at)="[^"]*"')


def _numeric(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _XML_ENTITIES or name not in html.entities.name2codepoint:
        return match.group(0)  # XML knows it, or nobody does: the parser decides
    return f"&#{html.entities.name2codepoint[name]};"


def parse(storage: str) -> ET.Element:
    """The fragment's elements under a `<root>`.

    Raises:
        xml.etree.ElementTree.ParseError: the text is not well-formed storage format.
    """
    return ET.fromstring(_ROOT_OPEN + _ENTITY.sub(_numeric, storage) + "</root>")  # noqa: S314


def to_xml(element: ET.Element, *, tail: bool = False) -> str:
    """One element as storage format: the prefixes as Confluence writes them, no namespace declarations."""
    saved = element.tail
    if not tail:
        element.tail = None
    try:
        text = ET.tostring(element, encoding="unicode")
    finally:
        element.tail = saved
    return _DECLARATION.sub("", text)


def children_xml(root: ET.Element) -> str:
    """Everything inside `root` as storage format (the inverse of `parse`)."""
    return escape(root.text or "") + "".join(to_xml(child, tail=True) for child in root)


def escape(text: str, *, quote: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def cdata(text: str) -> str:
    """A CDATA section holding `text`, split where `text` itself contains the end marker."""
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def local(tag: str) -> str:
    """`ac:name` for an `{ac-uri}name` tag, the tag itself for plain XHTML."""
    for prefix, uri in NAMESPACES.items():
        if tag.startswith("{" + uri + "}"):
            return f"{prefix}:{tag[len(uri) + 2 :]}"
    return tag


def text_of(element: ET.Element) -> str:
    return "".join(element.itertext())
