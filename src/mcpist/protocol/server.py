"""The MCP server: the only place that turns MCPist's calls and errors into protocol messages."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import uuid
import warnings
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from mcpist import batch, script
from mcpist.errors import ConnectRequired, Internal, InvalidArgument, MCPistError, NotFound
from mcpist.modules.api import Caller, ClientChannel, PromptInfo, PromptProvider, Sampler, ToolContext
from mcpist.observe import tracing_active
from mcpist.runtime import Runtime
from mcpist.sieve import Principal

from .channel import LogLevels, RequestChannel, install_forwarding
from .elicitation import connect_required
from .metatools import (
    BATCH,
    CALL,
    GET_MODULE_SCHEMA,
    META_TOOLS,
    RUN_SCRIPT,
    SCRIPT_GUIDE,
    header_checked_schema,
    meta_tools,
)
from .resources import ResourceHandler
from .sampling import session_sampler
from .tasks import install_tasks

logger = logging.getLogger("mcpist.protocol")

Identify = Callable[[ServerRequestContext[Any, Any]], Caller]

RESOURCE_NOT_FOUND = -32002  # MCP's error code for resources/read of an unknown URI
INSTRUCTIONS = (
    "MCPist routes tool calls to modules. Call get_module_schema for a module first, then call, batch or run_script."
)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def ok_result(value: Any) -> types.CallToolResult:
    structured = value if isinstance(value, dict) else {"result": value}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=_json(value))], structured_content=structured
    )


def error_result(error: MCPistError) -> types.CallToolResult:
    body = error.to_dict()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{error.code}: {error.message}")],
        structured_content=body,
        is_error=True,
    )


def _str_arg(args: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = args.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"'{name}' must be a non-empty string", {"field": name})
    return value


def _object_arg(args: dict[str, Any], name: str) -> dict[str, Any]:
    """An object argument (`params`, `args`); absent, null or an empty string is `{}`. A string holding a
    JSON object is read as that object: models and some clients encode a nested object twice."""
    value = args.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    if not isinstance(value, dict):
        raise InvalidArgument(f"'{name}' must be an object (or a string holding a JSON object)", {"field": name})
    return value


def _check_args(args: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(args) - allowed)
    if extra:
        raise InvalidArgument(
            f"unknown argument '{extra[0]}'; expected: {', '.join(sorted(allowed))}", {"field": extra[0]}
        )


INDEX_NOTE = (
    "This module is large: above is an index. Call get_module_schema again with tools: [names] for the "
    "inputSchema and outputSchema of the tools you will use."
)


def _size(value: Any) -> int:
    return len(_json(value).encode())


def _index_entry(definition: dict[str, Any]) -> dict[str, Any]:
    return {k: definition[k] for k in ("name", "description", "annotations") if k in definition}


def _names_arg(args: dict[str, Any], name: str) -> list[str] | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, str):  # '["a", "b"]' encoded twice, or one name, or "a, b"
        text = value.strip()
        if text.startswith("["):
            with contextlib.suppress(ValueError):
                value = json.loads(text)
        else:
            value = [part.strip() for part in text.split(",") if part.strip()]
    if not isinstance(value, list) or not value or len(value) > 100 or not all(isinstance(v, str) for v in value):
        raise InvalidArgument(f"'{name}' must be a list of 1-100 tool names", {"field": name})
    return value


class MetaToolHandler:
    """Runs the meta-tools for one caller, under the permissions resolved once per request.

    Shared by every transport.
    """

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        s = runtime.settings.batch
        self.limits = batch.BatchLimits(
            max_tasks=s.max_tasks,
            max_concurrency=s.max_concurrency,
            task_timeout_s=s.task_timeout_s,
            max_expression_length=s.max_expression_length,
            max_result_bytes=s.max_result_bytes,
            max_output_bytes=s.max_output_bytes,
        )
        # its sandbox processes start with the first script and end when the handler is collected
        self.scripts = script.ScriptHost(runtime.settings.script)

    async def list_tools(self, caller: Caller) -> list[types.Tool]:
        principal = await self.runtime.principal(caller)
        return meta_tools(self.runtime.visible_modules(principal), batch.DESCRIPTION, script.DESCRIPTION)

    async def module_schema(self, principal: Principal, args: dict[str, Any]) -> dict[str, Any]:
        """A module's tool definitions; for a large module without `tools`, an index of its tools instead
        (names, descriptions, annotations), so the LLM then fetches in full only the tools it will use."""
        _check_args(args, {"module", "tools"})
        name = _str_arg(args, "module")
        assert name is not None
        wanted = _names_arg(args, "tools")
        if name == BATCH:
            return {"module": BATCH, "guide": batch.GUIDE}
        if name == SCRIPT_GUIDE:
            return {"module": SCRIPT_GUIDE, "guide": script.guide(self.scripts.settings)}
        visible = self.runtime.visible_modules(principal)
        module = next((m for m in visible if m.name == name), None)
        if module is None:
            names = ", ".join(m.name for m in visible) or "(none)"
            raise NotFound(f"unknown module {name!r}; available: {names}", {"module": name})
        every = self.runtime.registry.tools(name)
        allowed = [t for t in every if principal.grants.allows(name, t.spec.name)]
        out: dict[str, Any] = {"module": name, "description": module.description}
        if wanted is not None:
            by_name = {t.spec.name: t for t in allowed}
            unknown = [n for n in wanted if n not in by_name]
            if unknown:
                # a hidden tool is reported exactly as a missing one
                raise NotFound(f"unknown tool {unknown[0]!r} in module {name!r}", {"module": name, "tool": unknown[0]})
            out["tools"] = [by_name[n].definition() for n in dict.fromkeys(wanted)]
        else:
            full = [t.definition() for t in allowed]
            if _size(full) > self.runtime.settings.schema_index_bytes:
                out["index"] = [_index_entry(d) for d in full]
                out["next"] = INDEX_NOTE
            else:
                out["tools"] = full
        # the docs are written for the whole module and name its tools: only whoever sees all gets them
        if module.docs and len(allowed) == len(every) and wanted is None:
            out["docs"] = module.docs
        if module.needs_account:
            choice = await self.runtime.accounts.usable(principal.caller, module)
            # names only: which accounts exist is the caller's own business, their secrets nobody's
            out["accounts"] = {"names": list(choice.names), "default": choice.default}
        return out

    async def call(
        self, principal: Principal, args: dict[str, Any], sampler: Sampler | None, channel: ClientChannel | None
    ) -> Any:
        _check_args(args, {"module", "tool_name", "params", "account"})
        module = _str_arg(args, "module")
        tool = _str_arg(args, "tool_name")
        account = _str_arg(args, "account", required=False)
        params = _object_arg(args, "params")
        assert module is not None and tool is not None
        return await self.runtime.execute(
            principal, module, tool, params, account, sampler, via="call", channel=channel
        )

    async def batch(
        self, principal: Principal, args: dict[str, Any], sampler: Sampler | None, channel: ClientChannel | None
    ) -> dict[str, Any]:
        _check_args(args, {"tasks"})
        text = args.get("tasks")
        if not isinstance(text, str):
            raise InvalidArgument("'tasks' must be a JSONL string, one task per line", {"field": "tasks"})
        refused: list[batch.Task] = []

        def precheck(task: batch.Task) -> None:
            try:
                self.runtime.find_tool(principal, task.module, task.tool)
            except NotFound:
                refused.append(task)
                raise

        async def run(task: batch.Task, params: dict[str, Any]) -> Any:
            # the batch engine owns the per-task deadline
            return await self.runtime.execute(
                principal,
                task.module,
                task.tool,
                params,
                task.account,
                sampler,
                timeout_s=float("inf"),
                via="batch",
                channel=channel,
            )

        try:
            result = await self.runtime.quotas.run(
                "batch", principal.caller, lambda: batch.run_batch(text, run, self.limits, precheck=precheck)
            )
        except NotFound:
            for task in refused:
                await self.runtime.record_refusal(principal, task.module, task.tool, "batch")
            raise
        return result.to_dict()

    async def run_script(
        self, principal: Principal, args: dict[str, Any], sampler: Sampler | None, channel: ClientChannel | None
    ) -> Any:
        _check_args(args, {"script", "args"})
        source = _str_arg(args, "script")
        assert source is not None
        script_args = _object_arg(args, "args")

        async def run(call: script.ToolCall) -> Any:
            return await self.runtime.execute(
                principal, call.module, call.tool, call.params, call.account, sampler, via="script", channel=channel
            )

        return await self.runtime.quotas.run(
            "script", principal.caller, lambda: self.scripts.run(source, script_args, run)
        )

    async def run(
        self,
        caller: Caller,
        name: str,
        args: dict[str, Any],
        sampler: Sampler | None,
        channel: ClientChannel | None = None,
    ) -> types.CallToolResult:
        if name not in META_TOOLS:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}")
        try:
            principal = await self.runtime.principal(caller)
            if name == GET_MODULE_SCHEMA:
                return ok_result(await self.module_schema(principal, args))
            if name == CALL:
                return ok_result(await self.call(principal, args, sampler, channel))
            if name == RUN_SCRIPT:
                return ok_result(await self.run_script(principal, args, sampler, channel))
            return ok_result(await self.batch(principal, args, sampler, channel))
        except ConnectRequired:
            if name == CALL:
                raise
            return error_result(Internal("unexpected connection request"))
        except MCPistError as exc:
            return error_result(exc)
        except Exception:
            request_id = uuid.uuid4().hex[:12]
            logger.exception("meta-tool %s failed unexpectedly (request id %s)", name, request_id)
            return error_result(
                Internal(
                    f"internal error; the server log has details under request id {request_id}",
                    {"request_id": request_id},
                )
            )

    async def list_prompts(self, caller: Caller) -> list[tuple[PromptProvider, ToolContext[Any], PromptInfo]]:
        """Each prompt the caller's visible modules offer, with the provider and context that expand it."""
        out: list[tuple[PromptProvider, ToolContext[Any], PromptInfo]] = []
        for module in self.runtime.visible_modules(await self.runtime.principal(caller)):
            if module.prompts is not None:
                ctx = self.runtime.context(caller, module, None, None)
                for info in await module.prompts.list_prompts(ctx):
                    out.append((module.prompts, ctx, info))
        return out


class _WhileTracing:
    """The SDK's span per MCP message (its default middleware), entered only while tracing is on.

    The SDK builds the span's attributes and enters OpenTelemetry's no-op span on every message even
    with no tracer installed, ~3% of a trivial call's CPU; `[observe] otel` is off by default.
    """

    def __init__(self, inner: ServerMiddleware[Any]) -> None:
        self.inner = inner

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if tracing_active():
            return await self.inner(ctx, call_next)
        return await call_next(ctx)


class _Server(Server[Any]):
    """The SDK's server, with the identity it stamps on every 2026-07-28 result copied cheaply.

    The SDK deep-copies the stamp per result so a handler mutating it cannot corrupt later ones; MCPist's
    identity (name, version) holds no nested value, so a shallow copy is as safe (~1% of a trivial call).
    """

    @functools.cached_property
    def _flat_stamp(self) -> dict[str, Any] | None:
        stamp = self.server_info.model_dump(by_alias=True, mode="json", exclude_none=True)
        return None if any(isinstance(value, dict | list) for value in stamp.values()) else stamp

    @property
    def server_info_stamp(self) -> dict[str, Any]:
        flat = self._flat_stamp
        return dict(flat) if flat is not None else super().server_info_stamp


def build_server(runtime: Runtime, identify: Identify) -> Server[Any]:
    """An MCP server whose handlers act for the caller `identify` names."""
    handler = MetaToolHandler(runtime)
    resources = ResourceHandler(runtime)
    levels = LogLevels()
    install_forwarding()

    async def on_list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await handler.list_tools(identify(ctx)))

    async def on_call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        try:
            async with RequestChannel(ctx, levels) as channel:
                return await handler.run(
                    identify(ctx), params.name, dict(params.arguments or {}), session_sampler(ctx), channel
                )
        except ConnectRequired as exc:
            return connect_required(ctx, exc, runtime.elicitations)

    async def on_list_resources(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=await resources.resources(identify(ctx)))

    async def on_list_resource_templates(
        ctx: ServerRequestContext[Any, Any], params: Any
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=await resources.templates(identify(ctx)))

    async def on_read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult | types.InputRequiredResult:
        try:
            async with RequestChannel(ctx, levels) as channel:
                return await resources.read(identify(ctx), str(params.uri), session_sampler(ctx), channel)
        except ConnectRequired as exc:
            return connect_required(ctx, exc, runtime.elicitations)
        except NotFound as exc:
            raise MCPError(RESOURCE_NOT_FOUND, exc.message, {"uri": str(params.uri)[:200]}) from None
        except MCPistError as exc:
            raise MCPError(
                types.INVALID_PARAMS if exc.code == "INVALID_ARGUMENT" else types.INTERNAL_ERROR,
                f"{exc.code}: {exc.message}",
                exc.to_dict(),
            ) from None

    async def on_completion(
        ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        try:
            return await resources.complete(identify(ctx), params)
        except MCPistError as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message) from None

    async def on_set_logging_level(
        ctx: ServerRequestContext[Any, Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        levels.set(ctx, params.level)
        return types.EmptyResult()

    async def on_list_prompts(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListPromptsResult:
        prompts = await handler.list_prompts(identify(ctx))
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=info.name,
                    description=info.description,
                    arguments=[
                        types.PromptArgument(name=a.name, description=a.description, required=a.required)
                        for a in info.arguments
                    ],
                )
                for _, _, info in prompts
            ]
        )

    async def on_get_prompt(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        caller = identify(ctx)
        for provider, prompt_ctx, info in await handler.list_prompts(caller):
            if info.name == params.name:
                try:
                    result = await provider.get_prompt(prompt_ctx, params.name, dict(params.arguments or {}))
                except MCPistError as exc:
                    raise MCPError(types.INVALID_PARAMS, exc.message) from None
                return types.GetPromptResult(
                    description=result.description,
                    messages=[
                        types.PromptMessage(role=m.role, content=types.TextContent(type="text", text=m.text))
                        for m in result.messages
                    ],
                )
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")

    has_prompts = any(m.prompts is not None for m in runtime.registry)
    has_resources = any(m.resources for m in runtime.registry)
    with warnings.catch_warnings():
        # logging is deprecated on 2026-07-28 only; 2025-11-25 sessions still use logging/setLevel
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        server = _Server(
            "mcpist",
            version=runtime.version,
            instructions=INSTRUCTIONS,
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
            on_list_prompts=on_list_prompts if has_prompts else None,
            on_get_prompt=on_get_prompt if has_prompts else None,
            on_list_resources=on_list_resources if has_resources else None,
            on_list_resource_templates=on_list_resource_templates if has_resources else None,
            on_read_resource=on_read_resource if has_resources else None,
            on_completion=on_completion if has_prompts or has_resources else None,
            on_set_logging_level=on_set_logging_level,
            get_tool_input_schema=header_checked_schema,
        )
    server.middleware = [_WhileTracing(m) if isinstance(m, OpenTelemetryMiddleware) else m for m in server.middleware]
    install_tasks(server, runtime.tasks, runtime.elicitations, identify)
    return server
