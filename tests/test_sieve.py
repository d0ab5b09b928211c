"""Permission patterns and their evaluation against a registry (no database)."""

from __future__ import annotations

import pytest

from demo_module import demo, remote
from mcpist.errors import InvalidArgument
from mcpist.modules.registry import Registry
from mcpist.sieve import Grants, Rule, Sieve, check_installed, parse_pattern

REGISTRY = Registry([demo, remote])
DEMO_ALL = {"echo", "add", "items", "wait", "fail", "boom"}
DEMO_READ = {"echo", "add", "items", "wait"}


def tools(grants: Grants, module: str = "demo") -> set[str]:
    return {t for m, t in grants.tools if m == module}


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("*", "*"),
        ("*.*", "*"),
        (" demo.* ", "demo.*"),
        ("demo.echo", "demo.echo"),
        ("memory.relation.graph", "memory.relation.graph"),
        ("demo.@read", "demo.@read"),
        ("*.@read", "*.@read"),
        ("*.@destructive", "*.@destructive"),
    ],
)
def test_valid_patterns_round_trip(text: str, normal: str) -> None:
    assert str(parse_pattern(text)) == normal


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("demo", "separated by a dot"),
        ("demo.", "separated by a dot"),
        ("", "separated by a dot"),
        ("Demo.echo", "'Demo' is not a module name"),
        ("demo.Echo", "'Echo' is not a tool name"),
        ("demo.@write", "unknown preset '@write'"),
        ("*.echo", "a tool name needs its module"),
        ("demo.echo;drop", "is not a tool name"),
        ("d" * 300, "longer than 200"),
    ],
)
def test_malformed_patterns_are_refused_naming_them(text: str, why: str) -> None:
    with pytest.raises(InvalidArgument, match="invalid permission") as info:
        parse_pattern(text)
    assert why in info.value.message
    assert "MODULE.TOOL" in info.value.message


def test_patterns_are_checked_against_installed_modules_and_tools() -> None:
    check_installed(parse_pattern("demo.echo"), REGISTRY)
    check_installed(parse_pattern("*.@read"), REGISTRY)
    with pytest.raises(InvalidArgument, match="unknown module 'githb'; installed: demo, remote"):
        check_installed(parse_pattern("githb.*"), REGISTRY)
    with pytest.raises(InvalidArgument, match="unknown tool 'ecko' of module 'demo'; its tools: add, boom"):
        check_installed(parse_pattern("demo.ecko"), REGISTRY)


def test_star_allows_every_tool() -> None:
    grants = Sieve(REGISTRY).grants([Rule("r", "allow", "*")])
    assert tools(grants) == DEMO_ALL and tools(grants, "remote") == {"whoami"}
    assert grants.modules == {"demo", "remote"}


def test_presets_follow_the_annotations() -> None:
    sieve = Sieve(REGISTRY)
    assert tools(sieve.grants([Rule("r", "allow", "demo.@read")])) == DEMO_READ
    assert tools(sieve.grants([Rule("r", "allow", "demo.@destructive")])) == {"fail"}
    everything_read = sieve.grants([Rule("r", "allow", "*.@read")])
    assert tools(everything_read) == DEMO_READ and tools(everything_read, "remote") == {"whoami"}


def test_deny_beats_allow_within_a_role() -> None:
    grants = Sieve(REGISTRY).grants(
        [Rule("r", "allow", "demo.*"), Rule("r", "deny", "demo.boom"), Rule("r", "deny", "demo.@destructive")]
    )
    assert tools(grants) == DEMO_ALL - {"boom", "fail"}
    assert grants.modules == {"demo"}
    assert not grants.allows("demo", "boom") and grants.allows("demo", "echo")


def test_roles_add_up_and_a_deny_never_reaches_another_role() -> None:
    grants = Sieve(REGISTRY).grants(
        [
            Rule("narrow", "allow", "demo.*"),
            Rule("narrow", "deny", "demo.boom"),
            Rule("wide", "allow", "demo.boom"),
        ]
    )
    assert tools(grants) == DEMO_ALL


def test_a_deny_only_role_and_no_rules_give_nothing() -> None:
    sieve = Sieve(REGISTRY)
    assert sieve.grants([Rule("r", "deny", "*")]) == Grants()
    assert sieve.grants([]).modules == frozenset()


def test_patterns_for_missing_modules_and_broken_rows_match_nothing(caplog: pytest.LogCaptureFixture) -> None:
    sieve = Sieve(REGISTRY)
    assert sieve.grants([Rule("r", "allow", "github.*"), Rule("r", "allow", "demo.nosuch")]) == Grants()
    assert sieve.grants([Rule("r", "allow", "not a pattern"), Rule("r", "maybe", "*")]) == Grants()
    assert "unparsable stored permission" in caplog.text and "unknown effect" in caplog.text
