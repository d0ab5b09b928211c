"""Long upstream bodies (files, diffs, logs, page text) cut to a size an LLM can read, with a way on."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

Offset = Annotated[int, Field(ge=0, description="character offset to read from (a previous result's next_offset)")]
MaxChars = Annotated[int, Field(ge=200, le=200_000, description="at most this many characters of text")]


class Clipped(BaseModel):
    """A window of a long text: `text` holds characters `offset`..`offset + len(text)` of `total_chars`."""

    text: str
    offset: int = 0
    total_chars: int
    truncated: bool = Field(description="true when more text follows; read it with offset=next_offset")
    next_offset: int | None = None


def clip(text: str, *, offset: int = 0, max_chars: int = 20_000, tail: bool = False) -> Clipped:
    """At most `max_chars` of `text` from `offset` (or, with `tail`, its last `max_chars`).

    The cut falls on a line break when one is near, so a line is not split in two; `next_offset`
    says where the rest starts.
    """
    total = len(text)
    if tail:
        start = max(0, total - max_chars)
        if start:
            newline = text.find("\n", start, min(total, start + 200))
            start = newline + 1 if newline != -1 else start
        return Clipped(text=text[start:], offset=start, total_chars=total, truncated=False, next_offset=None)
    start = min(max(0, offset), total)
    end = min(total, start + max_chars)
    if end < total:
        newline = text.rfind("\n", start + max_chars // 2, end)
        end = newline + 1 if newline != -1 else end
    more = end < total
    return Clipped(
        text=text[start:end], offset=start, total_chars=total, truncated=more, next_offset=end if more else None
    )
