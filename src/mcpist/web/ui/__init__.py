"""The admin web UI (seed 001 §2.4): server-rendered pages in Japanese and English for admins and users.

`ui_mount(runtime)` is mounted last at the app's root (its routes are named `ui:NAME`);
`upgrade_ui(engine)` brings the UI's tables up to date when the app starts; `setup_link(runtime)` is the
first run's one-time link that gives the owner an email and a password. `Pages` draws every HTML page of
the server (the sign-in, consent and connect pages too), `headers()` is their security-headers
middleware and `static_mount()` serves the CSS, script and icon they share.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from mcpist.runtime import Runtime

from ._app import MOUNT, Ui
from ._migrate import upgrade_ui
from ._notify import Watch, watch_for
from ._pages import Pages, headers, web_settings
from .pages import _dashboard, _logs, _profile, _roles, _settings, _signin, _tools, _users
from .pages._signin import setup_link

STATIC = Path(__file__).resolve().parents[1] / "static"
MAX_FORM_BYTES = 64 * 1024
"""No form of the UI comes near this; a larger body is refused before it is read."""

__all__ = [
    "Pages",
    "Watch",
    "headers",
    "setup_link",
    "static_mount",
    "ui_mount",
    "upgrade_ui",
    "watch_for",
    "web_settings",
]


def static_mount() -> Mount:
    """`/static` (named `static`): the stylesheet, script and icon of every page."""
    return Mount("/static", StaticFiles(directory=STATIC), name="static", middleware=headers())


def ui_mount(
    runtime: Runtime,
    *,
    command: str = "mcpist",
    clock: Callable[[], float] = time.time,
    pages: Pages | None = None,
) -> Mount:
    """The UI's pages and actions, behind the security-headers middleware (`static_mount()` is separate).

    `command` is how the person running the server invokes mcpist (e.g. `.venv/bin/mcpist`), for hints.

    Raises:
        ConfigError: the master key is unreadable.
    """
    ui = Ui(runtime, command=command, clock=clock, pages=pages)
    routes: list[BaseRoute] = [
        *_signin.routes(ui),
        *_dashboard.routes(ui),
        *_profile.routes(ui),
        *_tools.routes(ui),
        *_users.routes(ui),
        *_roles.routes(ui),
        *_logs.routes(ui),
        *_settings.routes(ui),
        # last: any other path gets the UI's own 404 page, behind the same headers
        Route("/{path:path}", ui.not_found, name="not_found"),
    ]
    return Mount("", routes=routes, name=MOUNT, middleware=headers(), max_body_size=MAX_FORM_BYTES)
