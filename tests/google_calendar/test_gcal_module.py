"""Module `google_calendar` as the server publishes it: declaration, OAuth (least scopes, checked against the
Discovery document), kinds, schemas and their size, contract coverage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gcal_harness import REGISTRY
from gcal_world import SPEC

from mcpist.modules import Module, OAuth2Auth, ServiceSettings
from mcpist.modules.google_calendar import GoogleCalendarSettings, module
from mcpist.modules.registry import RegisteredTool
from mcpist.testing import covered_in, definition_problems
from mcpist.testing import definition_size as size

TOOLS = REGISTRY.tools("google_calendar")
KINDS = {
    "list_calendars": "R",
    "create_calendar": "W",
    "delete_calendar": "Di",
    "list_colors": "R",
    "list_events": "R",
    "search_events": "R",
    "get_event": "R",
    "list_event_instances": "R",
    "get_event_changes": "R",
    "create_event": "W",
    "quick_add_event": "W",
    "update_event": "W",
    "move_event": "W",
    "delete_event": "Di",
    "respond_to_event": "Wi",
    "find_free_time": "R",
    "get_freebusy": "R",
}
# the Discovery methods each tool calls: the scopes must cover them, the read-only scopes those of readers
METHODS = {
    "list_calendars": ["calendar.calendarList.list"],
    "create_calendar": ["calendar.calendars.insert", "calendar.calendars.get"],
    "delete_calendar": ["calendar.calendars.delete", "calendar.calendars.get"],
    "list_colors": ["calendar.colors.get"],
    "list_events": ["calendar.events.list", "calendar.calendars.get"],
    "search_events": ["calendar.events.list", "calendar.calendars.get"],
    "get_event": ["calendar.events.get", "calendar.calendars.get"],
    "list_event_instances": ["calendar.events.instances", "calendar.calendars.get"],
    "get_event_changes": ["calendar.events.list", "calendar.calendars.get"],
    "create_event": ["calendar.events.insert", "calendar.freebusy.query", "calendar.calendars.get"],
    "quick_add_event": ["calendar.events.quickAdd", "calendar.calendars.get"],
    "update_event": [
        "calendar.events.get",
        "calendar.events.patch",
        "calendar.events.insert",
        "calendar.events.delete",
        "calendar.events.instances",
        "calendar.calendars.get",
    ],
    "move_event": ["calendar.events.move", "calendar.calendars.get"],
    "delete_event": ["calendar.events.get", "calendar.events.delete", "calendar.events.patch"],
    "respond_to_event": ["calendar.events.get", "calendar.events.patch", "calendar.calendars.get"],
    "find_free_time": ["calendar.freebusy.query", "calendar.calendars.get"],
    "get_freebusy": ["calendar.freebusy.query", "calendar.calendars.get"],
}


def discovery_scopes() -> dict[str, set[str]]:
    doc = json.loads(SPEC.read_text(encoding="utf-8"))
    found: dict[str, set[str]] = {}

    def walk(resources: dict[str, Any]) -> None:
        for resource in resources.values():
            for method in resource.get("methods", {}).values():
                found[method["id"]] = set(method.get("scopes", []))
            walk(resource.get("resources", {}))

    walk(doc["resources"])
    return found


def test_the_declaration() -> None:
    assert isinstance(module, Module) and module.name == "google_calendar" and len(module.summary) <= 100
    assert module.description != module.summary and "find_free_time" in module.docs and "inclusive" in module.docs
    settings = GoogleCalendarSettings.model_validate({})
    assert isinstance(settings, ServiceSettings) and settings.base_url == "https://www.googleapis.com/calendar/v3"
    auth = module.auth
    assert isinstance(auth, OAuth2Auth) and auth.pkce
    assert auth.authorize_url == "https://accounts.google.com/o/oauth2/v2/auth"
    assert auth.token_url == "https://oauth2.googleapis.com/token"
    assert auth.authorize_params == {"access_type": "offline", "prompt": "consent", "include_granted_scopes": "true"}
    assert auth.read_only_scopes == ("https://www.googleapis.com/auth/calendar.readonly",)
    assert auth.reauth_hint and "7 days" in auth.reauth_hint and "Testing" in auth.reauth_hint
    assert "In production" in auth.reauth_hint


def test_the_scopes_are_the_least_that_cover_every_tool() -> None:
    auth = module.auth
    assert isinstance(auth, OAuth2Auth) and auth.read_only_scopes is not None
    scopes = discovery_scopes()
    assert set(METHODS) == set(module.tools)
    for tool, methods in METHODS.items():
        for method in methods:
            assert scopes[method] & set(auth.scopes), f"{tool}: no scope granted covers {method}"
            if module.tools[tool].read_only:
                assert scopes[method] & set(auth.read_only_scopes), f"{tool}: read-only accounts cannot call {method}"
    # dropping any one scope leaves some method uncovered: the set is minimal
    used = {m for methods in METHODS.values() for m in methods}
    for scope in auth.scopes:
        rest = set(auth.scopes) - {scope}
        assert any(not scopes[m] & rest for m in used), f"{scope} is not needed"
    assert "https://www.googleapis.com/auth/calendar" not in auth.scopes  # sharing (ACLs) is not asked for


def test_every_tool_is_declared_with_its_kind() -> None:
    assert len(module.tools) >= 14 and set(module.tools) == set(KINDS)
    for name, spec in module.tools.items():
        kind = KINDS[name]
        assert (spec.read_only, spec.destructive) == (kind == "R", kind.startswith("D")), name
        assert spec.idempotent == (kind == "R" or kind.endswith("i")), name
        assert spec.needs_account and spec.open_world, name


@pytest.mark.parametrize("tool", TOOLS, ids=[t.spec.name for t in TOOLS])
def test_each_definition_is_what_an_llm_can_use(tool: RegisteredTool) -> None:
    definition = tool.definition()
    assert definition_problems(tool, max_description=200) == []
    params = definition["inputSchema"]["properties"]
    for name in ("calendar_id", "event_id", "destination"):
        if name in params:
            assert "pattern" in params[name], f"{name} reaches a URL unchecked"
    for name in ("start", "end", "time_min", "time_max"):
        if name in params:
            assert "pattern" in params[name] or "pattern" in params[name].get("anyOf", [{}])[0], name


def test_the_module_schema_size(capsys: pytest.CaptureFixture[str]) -> None:
    total = sum(size(t) for t in TOOLS)
    with capsys.disabled():
        print(
            f"\ngoogle_calendar: {len(TOOLS)} tools, {total} bytes of definitions; "
            f"largest {max(size(t) for t in TOOLS)} B"
        )
    assert total <= 48_000


def test_every_tool_has_a_contract_test() -> None:
    covered = covered_in(Path(__file__).parent.glob("test_gcal_*.py"))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"
