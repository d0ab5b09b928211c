"""Matching request paths to the path templates of an API description."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable
from difflib import get_close_matches
from urllib.parse import unquote

__all__ = ["PathIndex", "argument_name"]

_VARIABLE = re.compile(r"\{([^{}]+)\}")
_ENCODED_SLASH = re.compile("%2f", re.IGNORECASE)

Operation = tuple[str, str]  # (HTTP method, path template)


class PathIndex:
    """The documented operations of one API, matched against raw (percent-encoded) request paths.

    A template variable matches one path segment, except ``{+name}`` (Google's reserved expansion), ``{*}`` and
    the names in ``slash_params``, which may span several. Among templates that match, literal segments win over
    variables, left to right, so ``/issues/comments`` is preferred to ``/issues/{number}``.
    """

    def __init__(self, operations: Iterable[Operation], slash_params: Collection[str]) -> None:
        self.operations = list(operations)
        self._slash = frozenset(slash_params)

    def names(self, template: str) -> tuple[str, ...]:
        return _compile(template, self._slash)[1]

    def match(self, method: str, raw_path: str) -> tuple[Operation, dict[str, str]] | None:
        """The most specific operation for the method and path, with its decoded path parameters."""
        path = _decode_except_slash(raw_path)
        candidates = []
        for operation in self.operations:
            if operation[0] != method:
                continue
            pattern, names = _compile(operation[1], self._slash)
            found = pattern.fullmatch(path)
            if found is not None:
                values = {name: _ENCODED_SLASH.sub("/", found.group(f"v{i}")) for i, name in enumerate(names)}
                candidates.append((_specificity(operation[1], self._slash), operation, values))
        if not candidates:
            return None
        _, operation, values = min(candidates)
        return operation, values

    def explain_miss(self, method: str, raw_path: str) -> str:
        """Why no operation matched: the methods this path does document, or the closest documented paths."""
        path = _decode_except_slash(raw_path)
        methods = sorted(
            {
                m
                for m, template in self.operations
                # a catch-all such as Google's {+name} matches every path, so it says nothing about this one
                if _specificity(template, self._slash)[0] == 0 and _compile(template, self._slash)[0].fullmatch(path)
            }
        )
        if methods:
            return f"{method} is not documented for this path (documented: {', '.join(methods)})"
        return f"no documented path matches; {self.closest(method, unquote(raw_path))}{self._slash_hint(path)}"

    def closest(self, method: str, path: str) -> str:
        same_path = sorted(m for m, template in self.operations if template == path)
        if same_path:
            return f"{path} documents {', '.join(same_path)}"
        documented = [f"{m} {template}" for m, template in self.operations]
        close = get_close_matches(f"{method} {path}", documented, n=3, cutoff=0.5)
        return "closest documented: " + (", ".join(close) if close else "none near it")

    def _slash_hint(self, path: str) -> str:
        """Name the parameter that would match if it could hold '/', as GitHub's {path} in /contents/{path} can."""
        spanning = []
        for template in {template for _, template in self.operations}:
            pattern, names = _compile(template, frozenset(), all_greedy=True)
            found = pattern.fullmatch(path)
            if found is not None:
                holding = [name for i, name in enumerate(names) if "/" in found.group(f"v{i}")]
                literal = sum(1 for segment in template.split("/") if "{" not in segment)
                spanning.append((-literal, template, holding))
        if not spanning:
            return ""
        _, template, holding = min(spanning)
        return f"; if {', '.join(holding)} in {template} may hold '/', pass slash_params={set(holding)!r}"


def argument_name(name: str) -> str:
    """The keyword argument a handler receives a path parameter as."""
    if name == "*":
        return "wildcard"
    argument = re.sub(r"\W", "_", name)
    return "_" + argument if argument[:1].isdigit() else argument


@functools.lru_cache(maxsize=4096)
def _compile(
    template: str, slash_params: frozenset[str], *, all_greedy: bool = False
) -> tuple[re.Pattern[str], tuple[str, ...]]:
    parts: list[str] = []
    names: list[str] = []
    position = 0
    for variable in _VARIABLE.finditer(template):
        parts.append(re.escape(template[position : variable.start()]))
        name = variable.group(1).lstrip("+")
        greedy = all_greedy or _spans(variable.group(1), slash_params)
        parts.append(f"(?P<v{len(names)}>{'.+' if greedy else '[^/]+'})")
        names.append(name)
        position = variable.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts)), tuple(names)


def _spans(variable: str, slash_params: frozenset[str]) -> bool:
    return variable.startswith("+") or variable == "*" or variable in slash_params


def _specificity(template: str, slash_params: frozenset[str]) -> tuple[int, tuple[bool, ...]]:
    spanning = sum(1 for variable in _VARIABLE.findall(template) if _spans(variable, slash_params))
    return spanning, tuple("{" in segment for segment in template.split("/"))


def _decode_except_slash(raw_path: str) -> str:
    # an encoded slash stays "%2F" so that it cannot split a path parameter's value into two segments
    return "%2F".join(unquote(piece) for piece in _ENCODED_SLASH.split(raw_path))
