"""Storage format to Markdown.

Headings, paragraphs, nested lists, code macros, simple tables, links, emphasis, blockquotes, rules and images
become Markdown. Everything else (panels and other macros, mentions, emoticons, layouts, task lists, tables
with merged cells) is kept as its XML in a `<!-- confluence:... -->` marker, which `parse` turns back into the
same XML: a page read as Markdown and written back loses nothing Markdown cannot show.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from urllib.parse import quote

from .xml import AC, RI, local, parse, text_of, to_xml

MARKER_OPEN = "<!-- confluence:"
MARKER_CLOSE = " -->"
_SPACE = re.compile(r"[ \t\r\n]+")  # not \s: a no-break space is text
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_INLINE = {"strong": "**", "b": "**", "em": "*", "i": "*", "s": "~~", "del": "~~"}
_ESCAPE = re.compile(r"([\\`*_\[\]<>~|])")
_LINE_START = re.compile(r"^(#{1,6}(?=\s|$)|[-+>](?=\s|$)|\d+(?=[.)](?:\s|$))|-{3,}$|={3,}$)")
_INLINE_AC = ("ac:link", "ac:image", "ac:emoticon", "ac:inline-comment-marker", "ac:placeholder")
_CODE_ATTRS = {f"{AC}name", f"{AC}schema-version", f"{AC}macro-id"}


def marker(xml: str, *, inline: bool = False) -> str:
    """`xml` in a comment: `-->` cannot end it early, and an inline marker stays on one line."""
    body = xml.replace("-->", "--&gt;")
    if inline:
        body = body.replace("\n", "&#10;")
    return f"{MARKER_OPEN}{body}{MARKER_CLOSE}"


def escape_text(text: str) -> str:
    return _ESCAPE.sub(r"\\\1", text)


def to_markdown(storage: str) -> str:
    """The page body as Markdown; a body that is not well-formed XML comes back whole in one marker."""
    try:
        root = parse(storage)
    except ET.ParseError:
        return marker(storage) + "\n" if storage.strip() else ""
    return _Renderer().blocks(root).strip("\n") + "\n" if len(root) or (root.text or "").strip() else ""


def _is_block(element: ET.Element) -> bool:
    tag = element.tag
    if tag in ("p", "ul", "ol", "table", "blockquote", "hr", "pre", "div", "h1", "h2", "h3", "h4", "h5", "h6"):
        return True
    return (
        tag.startswith(AC)
        and local(tag) not in ("ac:link", "ac:image", "ac:emoticon", "ac:inline-comment-marker")
        and not (local(tag) == "ac:structured-macro" and element.get(f"{AC}name") in ("status", "jira", "anchor"))
    )


class _Renderer:
    def blocks(self, parent: ET.Element) -> str:
        out: list[str] = []
        loose: list[str] = []  # inline content between blocks, rendered as a paragraph of its own

        def flush() -> None:
            text = "".join(loose).strip()
            if text:
                out.append(_guard(text))
            loose.clear()

        if (parent.text or "").strip():
            loose.append(self.text(parent.text or ""))
        for child in parent:
            if _is_block(child):
                flush()
                out.append(self.block(child))
            else:
                loose.append(self.inline(child))
            if (child.tail or "").strip():
                loose.append(self.text(child.tail or ""))
        flush()
        return "\n\n".join(part for part in out if part)

    def block(self, el: ET.Element) -> str:
        tag = el.tag
        if tag in _HEADINGS:
            return "#" * _HEADINGS[tag] + " " + self.inlines(el).strip() if not el.attrib else marker(to_xml(el))
        if tag == "p" and not el.attrib:
            text = _guard(self.inlines(el).strip())
            # a paragraph of one marker would read back as a block of its own: keep the paragraph in the marker
            return marker(to_xml(el)) if _one_marker(text) else text
        if tag == "hr":
            return "---"
        if tag in ("ul", "ol") and not el.attrib and all(li.tag == "li" and not li.attrib for li in el):
            return self.listing(el, 0)
        if tag == "blockquote" and not el.attrib:
            inner = self.blocks(el)
            return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))
        if tag == "table":
            table = self.table(el)
            if table is not None:
                return table
        if local(tag) == "ac:structured-macro" and el.get(f"{AC}name") == "code":
            code = self.code(el)
            if code is not None:
                return code
        return marker(to_xml(el))

    def code(self, el: ET.Element) -> str | None:
        if set(el.attrib) - _CODE_ATTRS:
            return None
        language, body = "", None
        for child in el:
            if local(child.tag) == "ac:parameter" and child.get(f"{AC}name") == "language" and not len(child):
                language = (child.text or "").strip()
            elif local(child.tag) == "ac:plain-text-body" and body is None:
                body = child.text or ""
            else:
                return None
        text = body or ""
        fence = "```"
        while fence in text:
            fence += "`"
        return f"{fence}{language}\n{text}\n{fence}" if text else f"{fence}{language}\n{fence}"

    def listing(self, el: ET.Element, depth: int) -> str:
        lines: list[str] = []
        for number, li in enumerate(el, start=1):
            bullet = f"{number}. " if el.tag == "ol" else "- "
            pad = " " * len(bullet)
            head, rest = self.item(li)
            lines.append(bullet + _guard(head))
            for line in rest.split("\n") if rest else []:
                lines.append(pad + line if line else "")
        return "\n".join(lines)

    def item(self, li: ET.Element) -> tuple[str, str]:
        """A list item's first line (its inline content) and its nested blocks, not yet indented."""
        head: list[str] = [self.text(li.text or "")]
        blocks: list[str] = []
        for child in li:
            if _is_block(child) or blocks:
                blocks.append(self.block(child))
            else:
                head.append(self.inline(child))
            if (child.tail or "").strip():
                (blocks if blocks else head).append(_guard(self.text(child.tail or "").strip()))
        return "".join(head).strip(), "\n".join(blocks)

    def table(self, el: ET.Element) -> str | None:
        rows: list[ET.Element] = []
        for part in el:
            if part.tag in ("tbody", "thead") and not part.attrib:
                rows += list(part)
            elif part.tag == "tr":
                rows.append(part)
            else:
                return None
        if el.attrib or not rows or any(row.tag != "tr" or row.attrib for row in rows):
            return None
        cells = [list(row) for row in rows]
        width = len(cells[0])
        if width == 0 or any(len(row) != width for row in cells):
            return None
        if any(c.tag != "th" for c in cells[0]) or any(c.tag != "td" for row in cells[1:] for c in row):
            return None
        if any(c.attrib or any(_is_block(x) for x in c) for row in cells for c in row):
            return None
        lines = ["| " + " | ".join(self.inlines(c).strip() for c in row) + " |" for row in cells]
        lines.insert(1, "|" + " --- |" * width)
        return "\n".join(lines)

    def inlines(self, el: ET.Element) -> str:
        parts = [self.text(el.text or "")]
        for child in el:
            parts.append(self.inline(child))
            parts.append(self.text(child.tail or ""))
        return "".join(parts)

    def inline(self, el: ET.Element) -> str:
        tag = el.tag
        if tag in _INLINE and not el.attrib:
            inner = self.inlines(el)
            if inner.strip() == inner and inner:
                return _INLINE[tag] + inner + _INLINE[tag]
        elif tag == "code" and not el.attrib and not len(el):
            text = el.text or ""
            ticks = "``" if "`" in text else "`"
            if text and "``" not in text:
                pad = " " if text.startswith("`") or text.endswith("`") else ""
                return f"{ticks}{pad}{text}{pad}{ticks}"
        elif tag == "a" and set(el.attrib) == {"href"} and not len(el) and el.text:
            return f"[{self.text(el.text)}]({_url(el.get('href', ''))})"
        elif tag == "br" and not el.attrib:
            return "\\\n"
        elif local(tag) == "ac:image":
            image = _image(el)
            if image is not None:
                return image
        return marker(to_xml(el), inline=True)

    def text(self, text: str) -> str:
        return escape_text(_SPACE.sub(" ", text))


def _url(url: str) -> str:
    return quote(url, safe="/:?#[]@!$&'*+,;=%~-._")


def _image(el: ET.Element) -> str | None:
    if set(el.attrib) - {f"{AC}alt"} or len(el) != 1:
        return None
    (source,) = el
    alt = escape_text(el.get(f"{AC}alt", ""))
    if local(source.tag) == "ri:url" and set(source.attrib) == {f"{RI}value"} and not len(source):
        return f"![{alt}]({_url(source.get(f'{RI}value', ''))})"
    if local(source.tag) == "ri:attachment" and set(source.attrib) == {f"{RI}filename"} and not len(source):
        return f"![{alt}](attachment:{quote(source.get(f'{RI}filename', ''), safe='')})"
    return None


def _one_marker(text: str) -> bool:
    return text.startswith(MARKER_OPEN) and text.endswith(MARKER_CLOSE) and text.find("-->") == len(text) - 3


def _guard(line: str) -> str:
    """A paragraph's first characters escaped where Markdown would read a heading, list, quote or rule."""
    if line.startswith(MARKER_OPEN):
        return line
    # `1.` is guarded after the digits (`1\.`), since `\1` is no escape in Markdown
    return _LINE_START.sub(lambda m: m.group(0) + "\\" if m.group(0).isdigit() else "\\" + m.group(0), line, count=1)


__all__ = ["MARKER_CLOSE", "MARKER_OPEN", "escape_text", "marker", "text_of", "to_markdown"]
