"""`resources/*` and `completion/complete` across modules, filtered by the Tool Sieve.

A resource is visible exactly when the tool that reads the same data is (`ResourceSpec.tool`);
reading one the caller may not use is answered as an unknown resource and recorded.
"""

from __future__ import annotations

import base64
from functools import partial

import mcp_types as types

from mcpist.errors import NotFound
from mcpist.modules.api import Caller, ClientChannel, PromptCompleter, Sampler
from mcpist.runtime import Runtime

MAX_COMPLETIONS = 100  # the spec's cap on values per completion answer


class ResourceHandler:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def templates(self, caller: Caller) -> list[types.ResourceTemplate]:
        principal = await self.runtime.principal(caller)
        return [
            types.ResourceTemplate(
                name=f"{module.name}.{spec.name}",
                uri_template=spec.uri_template,
                description=spec.description,
                mime_type=spec.mime_type,
            )
            for module, spec in self.runtime.visible_resources(principal)
            if spec.is_template
        ]

    async def resources(self, caller: Caller) -> list[types.Resource]:
        principal = await self.runtime.principal(caller)
        return [
            types.Resource(
                name=f"{module.name}.{spec.name}",
                uri=spec.uri_template,
                description=spec.description,
                mime_type=spec.mime_type,
            )
            for module, spec in self.runtime.visible_resources(principal)
            if not spec.is_template
        ]

    async def read(
        self, caller: Caller, uri: str, sampler: Sampler | None, channel: ClientChannel | None
    ) -> types.ReadResourceResult:
        """Raises: MCPistError: as `Runtime.read_resource`."""
        principal = await self.runtime.principal(caller)
        spec, value = await self.runtime.read_resource(principal, uri, sampler, channel)
        contents: types.TextResourceContents | types.BlobResourceContents
        if isinstance(value, bytes):
            contents = types.BlobResourceContents(
                uri=uri, mime_type=spec.mime_type, blob=base64.b64encode(value).decode("ascii")
            )
        else:
            contents = types.TextResourceContents(uri=uri, mime_type=spec.mime_type, text=value)
        return types.ReadResourceResult(contents=[contents])

    async def complete(self, caller: Caller, params: types.CompleteRequestParams) -> types.CompleteResult:
        """Suggestions for a prompt argument or a resource-template variable the caller may use.

        Raises:
            NotFound: no such prompt or template for this caller.
        """
        principal = await self.runtime.principal(caller)
        known: dict[str, str] = dict(params.context.arguments or {}) if params.context else {}
        argument, value = params.argument.name, params.argument.value
        values: list[str] = []
        ref = params.ref
        if isinstance(ref, types.ResourceTemplateReference):
            match = next(
                ((m, r) for m, r in self.runtime.visible_resources(principal) if r.uri_template == ref.uri), None
            )
            if match is None:
                raise NotFound(f"unknown resource template {ref.uri[:200]!r}")
            module, spec = match
            fn = spec.complete.get(argument)
            if fn is not None:
                ctx = self.runtime.context(caller, module, None)
                values = await self.runtime.run_guarded(
                    f"{module.name} completion", 10.0, ctx, lambda: fn(ctx, value, known)
                )
        else:
            found = None
            for module in self.runtime.visible_modules(principal):
                if module.prompts is not None:
                    ctx = self.runtime.context(caller, module, None)
                    if ref.name in [p.name for p in await module.prompts.list_prompts(ctx)]:
                        found = (module, ctx)
                        break
            if found is None:
                raise NotFound(f"unknown prompt {ref.name[:100]!r}")
            module, ctx = found
            completer = module.prompts
            if isinstance(completer, PromptCompleter):
                values = await self.runtime.run_guarded(
                    f"{module.name} completion",
                    10.0,
                    ctx,
                    partial(completer.complete_argument, ctx, ref.name, argument, value, known),
                )
        clean = [v for v in values if isinstance(v, str)]
        return types.CompleteResult(
            completion=types.Completion(
                values=clean[:MAX_COMPLETIONS], total=len(clean), has_more=len(clean) > MAX_COMPLETIONS
            )
        )
