"""Markdown to storage format: the subset `render` writes, plus what people commonly type.

Blocks: ATX headings, paragraphs (a trailing `\\` is a line break), nested `-`/`*`/`+` and `1.` lists, fenced
code (the `code` macro), pipe tables, `>` quotes, `---` rules and lines that are a `<!-- confluence:... -->`
marker (their XML goes back verbatim). Inline: `**strong**`, `*em*`/`_em_`, `~~strike~~`, `` `code` ``,
`[text](url)`, `![alt](url)` and `![alt](attachment:file)` (`ac:image`), and markers.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .render import MARKER_CLOSE, MARKER_OPEN
from .xml import cdata, escape

_HEADING = re.compile(r"^(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$")
_ITEM = re.compile(r"^( *)([-+*]|\d{1,9}[.)])(?:[ \t]+(.*)|$)")
_TABLE_RULE = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_ESCAPABLE = set("\\`*_{}[]()#+-.!|<>~=\"'")
_IMAGE = re.compile(r"!\[((?:[^\]\\]|\\.)*)\]\(<?([^()\s<>]*)>?\)")
_LINK_TARGET = re.compile(r"\(<?([^()\s<>]*)>?\)")


def to_storage(markdown: str) -> str:
    """Markdown as storage format, ready for a page or comment body."""
    return _blocks(markdown.replace("\r\n", "\n").split("\n"))


def _blocks(lines: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        if stripped.startswith(MARKER_OPEN):
            end = _marker_end(lines, i)
            if end is not None:
                text = "\n".join(lines[i : end + 1]).strip()
                out.append(_unmark(text[len(MARKER_OPEN) : -len(MARKER_CLOSE)]))
                i = end + 1
                continue
        fence = _FENCE.match(line)
        if fence:
            i = _code(lines, i, fence.group(1), fence.group(2), out)
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            out.append(f"<h{level}>{inline(heading.group(2) or '')}</h{level}>")
            i += 1
            continue
        if _RULE.match(line):
            out.append("<hr/>")
            i += 1
            continue
        if stripped.startswith(">"):
            quoted: list[str] = []
            while i < len(lines) and lines[i].strip().startswith(">"):
                rest = lines[i].strip()[1:]
                quoted.append(rest[1:] if rest.startswith(" ") else rest)
                i += 1
            out.append(f"<blockquote>{_blocks(quoted)}</blockquote>")
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]) and "-" in lines[i + 1]:
            i = _table(lines, i, out)
            continue
        if _ITEM.match(line):
            xml, i = _list(lines, i)
            out.append(xml)
            continue
        para: list[str] = []
        while i < len(lines) and lines[i].strip() and not (para and _starts_block(lines, i)):
            para.append(lines[i].strip())
            i += 1
        out.append(f"<p>{inline(chr(10).join(para))}</p>")
    return "".join(out)


def _starts_block(lines: list[str], i: int) -> bool:
    line = lines[i]
    return bool(
        _HEADING.match(line)
        or _FENCE.match(line)
        or _RULE.match(line)
        or line.lstrip().startswith(">")
        or _ITEM.match(line)
        or (line.strip().startswith(MARKER_OPEN) and _marker_end(lines, i) is not None)
    )


def _marker_end(lines: list[str], i: int) -> int | None:
    """The line where a block marker that starts at line `i` closes, if nothing follows it there."""
    for j in range(i, len(lines)):
        line = lines[j][lines[j].find(MARKER_OPEN) + len(MARKER_OPEN) :] if j == i else lines[j]
        close = line.find("-->")
        if close >= 0:
            return j if close + 3 == len(line.rstrip()) else None
    return None


def _unmark(body: str) -> str:
    # the inverse of render.marker: `--&gt;` and `&#10;` are what the XML itself held (equivalently)
    return body.replace("--&gt;", "-->").replace("-->", "--&gt;")


def _code(lines: list[str], i: int, fence: str, language: str, out: list[str]) -> int:
    body: list[str] = []
    j = i + 1
    while j < len(lines) and not (
        lines[j].strip().startswith(fence[0] * len(fence)) and not lines[j].strip().strip(fence[0])
    ):
        body.append(lines[j])
        j += 1
    text = "\n".join(body)
    param = f'<ac:parameter ac:name="language">{escape(language)}</ac:parameter>' if language else ""
    out.append(
        f'<ac:structured-macro ac:name="code" ac:schema-version="1">{param}'
        f"<ac:plain-text-body>{cdata(text)}</ac:plain-text-body></ac:structured-macro>"
    )
    return j + 1


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    cells, current, k = [], "", 0
    while k < len(text):
        if text[k] == "\\" and k + 1 < len(text):
            current += text[k : k + 2]
            k += 2
            continue
        if text[k] == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += text[k]
        k += 1
    cells.append(current.strip())
    return cells


def _table(lines: list[str], i: int, out: list[str]) -> int:
    rows = ["<tr>" + "".join(f"<th>{inline(c)}</th>" for c in _cells(lines[i])) + "</tr>"]
    j = i + 2
    while j < len(lines) and lines[j].strip() and "|" in lines[j]:
        rows.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in _cells(lines[j])) + "</tr>")
        j += 1
    out.append("<table><tbody>" + "".join(rows) + "</tbody></table>")
    return j


def _list(lines: list[str], i: int) -> tuple[str, int]:
    first = _ITEM.match(lines[i])
    assert first is not None  # the caller matched it
    indent, ordered = len(first.group(1)), first.group(2)[0].isdigit()
    tag = "ol" if ordered else "ul"
    items: list[str] = []
    while i < len(lines):
        match = _ITEM.match(lines[i])
        if not match or len(match.group(1)) != indent or match.group(2)[0].isdigit() != ordered:
            break
        width = len(match.group(1)) + len(match.group(2)) + 1
        head = (match.group(3) or "").strip()
        nested: list[str] = []
        i += 1
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                # a blank line ends the item unless indented content follows
                if i + 1 < len(lines) and _indent(lines[i + 1]) > indent and lines[i + 1].strip():
                    nested.append("")
                    i += 1
                    continue
                break
            if _indent(line) > indent:
                nested.append(line[min(width, _indent(line)) :])
            elif not nested and not _starts_block(lines, i):
                head += "\n" + line.strip()  # a lazy continuation of the item's text
            else:
                break
            i += 1
        items.append(f"<li>{inline(head)}{_blocks(nested)}</li>")
        while i < len(lines) and not lines[i].strip() and i + 1 < len(lines) and _ITEM.match(lines[i + 1]):
            following = _ITEM.match(lines[i + 1])
            if following and len(following.group(1)) == indent:
                i += 1
            else:
                break
    return f"<{tag}>{''.join(items)}</{tag}>", i


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def inline(text: str) -> str:
    """Inline Markdown as storage format."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            out.append("<br/>")
            i += 2
        elif c == "\\" and i + 1 < n and text[i + 1] in _ESCAPABLE:
            out.append(escape(text[i + 1]))
            i += 2
        elif c == "\n":
            out.append(" ")
            i += 1
        elif text.startswith(MARKER_OPEN, i) and text.find("-->", i) > 0:
            end = text.find("-->", i)
            out.append(_unmark(text[i + len(MARKER_OPEN) : end].removesuffix(" ")).replace("&#10;", "\n"))
            i = end + 3
        elif c == "`":
            run = len(text[i:]) - len(text[i:].lstrip("`"))
            end = text.find("`" * run, i + run)
            if end < 0:
                out.append(escape("`" * run))
                i += run
                continue
            code = text[i + run : end]
            if code.startswith(" ") and code.endswith(" ") and code.strip():
                code = code[1:-1]
            out.append(f"<code>{escape(code)}</code>")
            i = end + run
        elif text.startswith("![", i) and (image := _IMAGE.match(text, i)):
            out.append(_image(image.group(1), image.group(2)))
            i = image.end()
        elif c == "[" and (link := _link(text, i)):
            label, url, i = link
            out.append(f'<a href="{escape(unquote_safe(url), quote=True)}">{inline(label)}</a>')
        elif (delim := _delimiter(text, i)) is not None:
            mark, tag = delim
            close = _closing(text, i + len(mark), mark)
            if close is None:
                out.append(escape(mark))
                i += len(mark)
                continue
            out.append(f"<{tag}>{inline(text[i + len(mark) : close])}</{tag}>")
            i = close + len(mark)
        else:
            out.append(escape(c))
            i += 1
    return "".join(out)


def unquote_safe(url: str) -> str:
    # Markdown link targets may be percent-encoded where the storage format holds the plain URL
    return unquote(url) if " " not in url else url


def _image(alt: str, url: str) -> str:
    alt_text = re.sub(r"\\(.)", r"\1", alt)
    attr = f' ac:alt="{escape(alt_text, quote=True)}"' if alt_text else ""
    if url.startswith("attachment:"):
        name = unquote(url[len("attachment:") :])
        return f'<ac:image{attr}><ri:attachment ri:filename="{escape(name, quote=True)}"/></ac:image>'
    return f'<ac:image{attr}><ri:url ri:value="{escape(unquote_safe(url), quote=True)}"/></ac:image>'


def _link(text: str, i: int) -> tuple[str, str, int] | None:
    depth, j = 0, i
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == "[":
            depth += 1
        elif text[j] == "]":
            depth -= 1
            if depth == 0:
                break
        j += 1
    else:
        return None
    target = _LINK_TARGET.match(text, j + 1)
    if target is None:
        return None
    return text[i + 1 : j], target.group(1), target.end()


def _delimiter(text: str, i: int) -> tuple[str, str] | None:
    for mark, tag in (("**", "strong"), ("__", "strong"), ("~~", "s"), ("*", "em"), ("_", "em")):
        if text.startswith(mark, i) and i + len(mark) < len(text) and not text[i + len(mark)].isspace():
            if mark == "_" and i > 0 and text[i - 1].isalnum():
                return None  # snake_case is not emphasis
            return mark, tag
    return None


def _closing(text: str, start: int, mark: str) -> int | None:
    j = start
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == "`":
            close = text.find("`", j + 1)
            j = close + 1 if close > 0 else j + 1
            continue
        if text.startswith(mark, j) and not text[j - 1].isspace() and j > start:
            if len(mark) == 1 and text.startswith(mark * 2, j):
                # `*a **b** c*`: skip the inner strong
                inner = _closing(text, j + 2, mark * 2)
                if inner is not None:
                    j = inner + 2
                    continue
                return j
            return j
        j += 1
    return None
