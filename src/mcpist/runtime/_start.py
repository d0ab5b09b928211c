"""Building a `Runtime` from Settings: data directory, master key, database, migrations, modules."""

from __future__ import annotations

import logging
import os
import secrets
import stat
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

from mcpist import __version__
from mcpist.cluster import MIGRATIONS as CLUSTER_MIGRATIONS
from mcpist.config import Settings
from mcpist.errors import ConfigError
from mcpist.modules.api import ModuleResources, ServiceSettings
from mcpist.modules.registry import Registry
from mcpist.observe import observing
from mcpist.sieve import MIGRATIONS as SIEVE_MIGRATIONS
from mcpist.sieve import ensure_owner_access
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade
from mcpist.storage.users import ensure_owner
from mcpist.tasks import MIGRATIONS as TASKS_MIGRATIONS
from mcpist.tasks import TaskRunner
from mcpist.upstream import Borrowed
from mcpist.vault import MIGRATIONS as VAULT_MIGRATIONS
from mcpist.vault.broker import broker_for

from ._calls import service_client
from ._core import Runtime

MASTER_KEY_FILE = "master.key"


def ensure_master_key(data_dir: Path) -> Path:
    """Create the 32-byte master key file (mode 0600) on first start; refuse a readable one."""
    path = data_dir / MASTER_KEY_FILE
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(f"master key file {path} is readable by others (mode {mode:o}); run: chmod 600 {path}")
    return path


def _module_settings(settings: Settings, registry: Registry) -> dict[str, BaseModel]:
    out: dict[str, BaseModel] = {}
    unknown = set(settings.modules.settings) - set(registry.names())
    if unknown:
        raise ConfigError(f"modules.settings names module(s) that are not loaded: {sorted(unknown)}")
    for module in registry:
        raw = settings.modules.settings.get(module.name, {})
        try:
            out[module.name] = module.settings_model.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            name = ".".join(str(p) for p in err["loc"])
            raise ConfigError(f"invalid setting modules.settings.{module.name}.{name}: {err['msg']}") from None
    return out


@asynccontextmanager
async def start_runtime(
    settings: Settings,
    registry: Registry | None = None,
    *,
    start_modules: bool = True,
    transport: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[Runtime]:
    """Create the data directory, database, master key and owner; enter every module's startup.

    Administrative commands pass `start_modules=False`: they need the database, not the
    modules' running state (loading a model, say). `transport` replaces the connection pool the
    modules' upstream clients share (tests fake the upstreams there).

    Raises:
        ConfigError: the data directory, database or module settings are unusable.
    """
    if registry is None:
        registry = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ConfigError(f"data_dir {settings.data_dir} cannot be created: {exc.strerror}") from None
    ensure_master_key(settings.data_dir)
    module_settings = _module_settings(settings, registry)
    engine = create_engine(settings.resolved_database_url)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(engine.dispose)
        try:
            await upgrade(
                engine,
                [
                    SIEVE_MIGRATIONS,
                    VAULT_MIGRATIONS,
                    TASKS_MIGRATIONS,
                    CLUSTER_MIGRATIONS,
                    *(m.migrations for m in registry if m.migrations),
                ],
            )
        except OSError as exc:
            raise ConfigError(f"database_url: the database cannot be opened: {exc}") from None
        except Exception as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"database_url: the database cannot be opened or migrated: {_short(exc)}") from None
        owner, created = await ensure_owner(engine)
        await ensure_owner_access(engine, owner.id)
        # entered before the modules and tasks, so it outlives them and writes their last tool calls
        tool_of = registry.tool
        observer = await stack.enter_async_context(
            observing(engine, settings.observe, version=__version__, known=lambda m, t: tool_of(m, t) is not None)
        )
        if transport is None:
            transport = await stack.enter_async_context(httpx.AsyncHTTPTransport(proxy=settings.upstream_proxy))
        # token endpoints and identity providers go through the same pool (and proxy) as the modules' calls
        http = await stack.enter_async_context(
            httpx.AsyncClient(
                transport=Borrowed(transport),
                timeout=httpx.Timeout(30.0),
                headers={"User-Agent": f"mcpist/{__version__}"},
            )
        )
        states: dict[str, Any] = {}
        for module in registry:
            if start_modules and module.lifespan is not None:
                module_http = None
                if isinstance(module_settings[module.name], ServiceSettings):
                    module_http = service_client(
                        module, module_settings[module.name], transport, None, user_agent=f"mcpist/{__version__}"
                    )
                    stack.push_async_callback(module_http.aclose)
                resources = ModuleResources(
                    engine=engine,
                    settings=module_settings[module.name],
                    data_dir=settings.data_dir,
                    logger=logging.getLogger(f"mcpist.modules.{module.name}"),
                    http=module_http,
                )
                states[module.name] = await stack.enter_async_context(module.lifespan(resources))
        runtime = Runtime(
            settings=settings,
            engine=engine,
            registry=registry,
            http=http,
            owner=owner,
            owner_created=created,
            module_settings=module_settings,
            module_states=states,
            transport=transport,
            observer=observer,
        )
        runtime.tasks = await stack.enter_async_context(TaskRunner.running(engine, settings.tasks))
        runtime.accounts = broker_for(
            engine=engine,
            data_dir=settings.data_dir,
            services=registry,
            http=http,
            base_url=settings.base_url,
            settings=settings.vault,
            roles_of=runtime.roles_of,
            client_for=runtime.service_client,
            module_settings=module_settings,
        )
        yield runtime


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
