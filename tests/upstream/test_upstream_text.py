"""clip: long bodies in windows an LLM can read, cut on line breaks, never losing or repeating text."""

from __future__ import annotations

from mcpist.upstream import clip


def test_short_text_comes_whole() -> None:
    c = clip("hello", max_chars=200)
    assert (c.text, c.truncated, c.next_offset, c.total_chars) == ("hello", False, None, 5)


def test_windows_cover_the_text_exactly_once() -> None:
    text = "".join(f"line {i:04d}\n" for i in range(3000))
    pieces, offset = [], 0
    while True:
        c = clip(text, offset=offset, max_chars=1000)
        assert len(c.text) <= 1000 and c.offset == offset
        pieces.append(c.text)
        if not c.truncated:
            break
        assert c.text.endswith("\n")  # cut on a line break
        offset = c.next_offset or 0
    assert "".join(pieces) == text


def test_a_long_line_is_cut_where_it_must_be() -> None:
    c = clip("x" * 5000, max_chars=1000)
    assert c.text == "x" * 1000 and c.next_offset == 1000


def test_tail_keeps_the_end_from_a_line_start() -> None:
    text = "".join(f"step {i}\n" for i in range(1000))
    c = clip(text, max_chars=300, tail=True)
    assert text.endswith(c.text) and c.text.startswith("step ") and len(c.text) <= 300
    assert c.offset == len(text) - len(c.text)


def test_an_offset_past_the_end_is_empty() -> None:
    c = clip("abc", offset=10, max_chars=200)
    assert c.text == "" and not c.truncated and c.offset == 3
