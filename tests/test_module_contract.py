"""The contract every installed module keeps, checked on each one the `mcpist.modules` group registers.

The worked example (examples/mcpist-weather) is checked too, loaded from its source tree, since
third-party authors copy it. Also: every public name of the module API is documented, and the
public API is pinned.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

import mcpist.modules
from mcpist.modules import Module, NoAuth, ServiceSettings
from mcpist.modules.api import NAME_RE, RESERVED_NAMES, TOOL_NAME_RE
from mcpist.modules.registry import RegisteredTool, Registry
from mcpist.storage.migrate import alembic_config
from mcpist.testing import definition_size as size
from mcpist.testing import schema_problems

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "modules.md"
MAX_DEFINITION_BYTES = 4096
SENTENCE_END = (".", "!", "?", "。")


def _example() -> Module:
    """examples/mcpist-weather's module, imported from its file (the package is not installed)."""
    path = ROOT / "examples" / "mcpist-weather" / "src" / "mcpist_weather" / "__init__.py"
    name = "_contract_mcpist_weather"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        spec.loader.exec_module(loaded)
    module: Module = sys.modules[name].module
    return module


INSTALLED = Registry.from_entry_points()
REGISTRY = Registry([*INSTALLED, _example()])
MODULES = list(REGISTRY)
TOOLS = REGISTRY.tools()


def test_the_built_in_modules_are_registered_as_entry_points() -> None:
    assert "context" in INSTALLED


@pytest.mark.parametrize("module", MODULES, ids=[m.name for m in MODULES])
class TestModule:
    def test_name_and_summary(self, module: Module) -> None:
        assert NAME_RE.fullmatch(module.name) and module.name not in RESERVED_NAMES
        assert 1 <= len(module.summary) <= 100
        assert module.summary == " ".join(module.summary.split()), "the summary is one line"

    def test_description_and_docs_exist(self, module: Module) -> None:
        assert module.description and module.description != module.summary, "give a description of its own"
        assert module.docs.strip(), "docs tell the LLM how the tools fit together"

    def test_has_tools(self, module: Module) -> None:
        assert REGISTRY.tools(module.name)

    def test_starts_without_settings(self, module: Module) -> None:
        # installing a package enables its module, so an empty settings table must be valid
        module.settings_model.model_validate({})

    def test_tools_of_a_module_with_auth_need_an_account(self, module: Module) -> None:
        if isinstance(module.auth, NoAuth):
            assert not any(t.needs_account for t in module.tools.values())
        else:
            assert any(t.needs_account for t in module.tools.values())

    def test_a_service_module_has_a_base_url_setting(self, module: Module) -> None:
        # the API root must be configurable (GitHub Enterprise, Data Center, proxies, tests)
        if isinstance(module.auth, NoAuth):
            return  # not a service module
        assert issubclass(module.settings_model, ServiceSettings)
        assert module.settings_model.model_validate({}).base_url.startswith("https://")

    def test_resources_follow_a_tool_and_use_the_module_scheme(self, module: Module) -> None:
        for spec in module.resources.values():
            assert spec.tool in module.tools
            assert spec.uri_template.split("://")[0] in (module.name, module.name.replace("_", "-"))

    def test_migrations_form_the_module_branch(self, module: Module) -> None:
        if module.migrations is None:
            pytest.skip("no migrations")
        assert module.migrations.is_dir()
        mine = [
            rev
            for rev in ScriptDirectory.from_config(alembic_config([module.migrations])).walk_revisions()
            if rev.path is not None and Path(rev.path).parent == module.migrations
        ]
        assert mine, f"{module.migrations} holds no revisions"
        ids = {rev.revision for rev in mine}
        for rev in mine:
            assert rev.revision.startswith(f"{module.name}_")
            if rev.down_revision is None:
                assert module.name in rev.branch_labels
            else:
                down = {rev.down_revision} if isinstance(rev.down_revision, str) else set(rev.down_revision)
                assert down <= ids, f"{rev.revision} revises another branch: {down - ids}"
        assert sum(rev.down_revision is None for rev in mine) == 1, "one root revision"


@pytest.mark.parametrize("tool", TOOLS, ids=[t.qualified_name for t in TOOLS])
class TestTool:
    def test_name(self, tool: RegisteredTool) -> None:
        assert TOOL_NAME_RE.fullmatch(tool.spec.name) and len(tool.spec.name) <= 64

    def test_description_is_a_sentence(self, tool: RegisteredTool) -> None:
        text = tool.spec.description
        assert text.strip() == text and text, "a description"
        assert not text[0].islower(), f"starts like a sentence: {text!r}"
        assert text.endswith(SENTENCE_END), f"ends like a sentence: {text!r}"

    def test_input_schema(self, tool: RegisteredTool) -> None:
        schema = tool.definition()["inputSchema"]
        assert schema["type"] == "object"
        assert isinstance(schema["properties"], dict)
        assert schema.get("additionalProperties") is False, "unknown params are refused, so say so"
        assert schema_problems(schema) == []

    def test_output_schema(self, tool: RegisteredTool) -> None:
        schema = tool.definition().get("outputSchema")
        if schema is None:
            pytest.skip("no outputSchema (the tool returns no model)")
        assert schema["type"] == "object"
        assert schema_problems(schema) == []

    def test_annotations(self, tool: RegisteredTool) -> None:
        annotations = tool.definition()["annotations"]
        assert set(annotations) <= {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
        assert all(isinstance(v, bool) for v in annotations.values())
        assert "idempotentHint" in annotations and "openWorldHint" in annotations
        if annotations["readOnlyHint"]:
            assert "destructiveHint" not in annotations and not tool.spec.destructive
            assert annotations["idempotentHint"]
        else:
            assert "destructiveHint" in annotations

    def test_definition_size(self, tool: RegisteredTool) -> None:
        assert size(tool) <= MAX_DEFINITION_BYTES, f"{tool.qualified_name} is {size(tool)} bytes"


def test_the_largest_definitions() -> None:
    ranked = sorted(TOOLS, key=size, reverse=True)
    report = ", ".join(f"{t.qualified_name} {size(t)} B" for t in ranked[:3])
    print(f"largest tool definitions: {report}")
    assert size(ranked[0]) <= MAX_DEFINITION_BYTES, report


def test_every_public_name_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    missing = [name for name in mcpist.modules.__all__ if not re.search(rf"\b{re.escape(name)}\b", text)]
    assert missing == [], f"docs/modules.md does not mention {missing}"


def test_the_public_api_is_pinned() -> None:
    assert sorted(mcpist.modules.__all__) == [
        "Account",
        "AccountChoice",
        "AccountField",
        "ApiKeyAuth",
        "AuthSpec",
        "BaseUrlFn",
        "Caller",
        "ClientChannel",
        "CommandContext",
        "CommandSpec",
        "Conflict",
        "ConnectedFn",
        "DeadlineExceeded",
        "Internal",
        "InvalidArgument",
        "LogLevel",
        "MCPistError",
        "Module",
        "ModuleResources",
        "NoAuth",
        "NoChannel",
        "NotFound",
        "OAuth2Auth",
        "PermissionDenied",
        "PromptArgument",
        "PromptCompleter",
        "PromptInfo",
        "PromptMessage",
        "PromptProvider",
        "PromptResult",
        "ResolvedAccount",
        "ResourceExhausted",
        "ResourceSpec",
        "Sampler",
        "ServiceSettings",
        "SettingsT",
        "StateT",
        "ToolContext",
        "ToolSpec",
        "URL_PATTERN",
        "Unauthenticated",
        "Unavailable",
        "embedding_timer",
    ]
    assert all(hasattr(mcpist.modules, name) for name in mcpist.modules.__all__)
