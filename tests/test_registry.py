"""The module registry refuses what it cannot serve: bad names, bad tools, bad entry points.

Entry points come from fake installed distributions: a `NAME-1.0.dist-info` directory in
tmp_path, put on sys.path, where importlib.metadata finds it as it finds an installed package.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpist.config import load_settings
from mcpist.errors import ConfigError, ConnectRequired
from mcpist.modules import (
    Account,
    AccountChoice,
    ApiKeyAuth,
    Caller,
    InvalidArgument,
    Module,
    NotFound,
    OAuth2Auth,
    ResolvedAccount,
    ToolContext,
    Unauthenticated,
    Unavailable,
)
from mcpist.modules.registry import Registry
from mcpist.runtime import start_runtime
from mcpist.testing import FakeCredentials

EXAMPLE_SRC = Path(__file__).resolve().parents[1] / "examples" / "mcpist-weather" / "src"

FAKE_MODULE = '''
from typing import Any

from mcpist.modules import Module, ToolContext

module = Module({name!r}, summary="A fake module for the registry tests")


@module.tool(read_only=True)
async def ping(ctx: ToolContext[Any]) -> str:
    """Answer pong."""
    return "pong"
'''


class FakeDists:
    """Writes fake installed distributions (dist-info + module file) into one sys.path entry."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.imported: list[str] = []
        monkeypatch.syspath_prepend(str(root))

    def add(self, dist: str, entry_points: dict[str, str], modules: dict[str, str] | None = None) -> None:
        info = self.root / f"{dist.replace('-', '_')}-1.0.dist-info"  # as pip names it
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
        lines = ["[mcpist.modules]", *(f"{name} = {value}" for name, value in entry_points.items())]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        for name, source in (modules or {}).items():
            (self.root / f"{name}.py").write_text(source, encoding="utf-8")
            self.imported.append(name)


@pytest.fixture
def dists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDists]:
    site = tmp_path / "site"
    site.mkdir()
    fake = FakeDists(site, monkeypatch)
    yield fake
    for name in fake.imported:
        sys.modules.pop(name, None)


def add_module(dists: FakeDists, dist: str, name: str, ep_name: str | None = None) -> str:
    """Install a distribution whose module file (a unique name) holds a valid Module called `name`."""
    file = f"fake_{name}_{uuid.uuid4().hex[:8]}"
    dists.add(dist, {ep_name or name: f"{file}:module"}, {file: FAKE_MODULE.format(name=name)})
    return file


# --- modules and tools declared wrongly -----------------------------------------------------------


def test_two_modules_with_one_name_are_refused() -> None:
    with pytest.raises(ConfigError, match="two modules are named 'dup'"):
        Registry([Module("dup", summary="one"), Module("dup", summary="two")])


@pytest.mark.parametrize("name", ["", "A", "1abc", "a-b", "a.b", "a b", "é", "x" * 33, "batch"])
def test_invalid_module_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="invalid module name"):
        Module(name, summary="s")


@pytest.mark.parametrize("name", ["a", "a1", "my_module", "x" * 32])
def test_valid_module_names_are_accepted(name: str) -> None:
    assert Module(name, summary="s").name == name


@pytest.mark.parametrize("summary", ["", "   ", "x" * 101])
def test_a_summary_is_one_line_of_1_to_100_characters(summary: str) -> None:
    with pytest.raises(ValueError, match="summary"):
        Module("m", summary=summary)


def test_a_summary_is_collapsed_to_one_line_and_the_description_defaults_to_it() -> None:
    module = Module("m", summary="  two\n  lines ")
    assert module.summary == "two lines"
    assert module.description == "two lines"


def test_something_that_is_not_a_module_is_refused() -> None:
    with pytest.raises(ConfigError, match="not an mcpist Module"):
        Registry([object()])  # type: ignore[list-item]


@pytest.mark.parametrize("name", ["Bad", "1x", "a..b", "a.", ".a", "with-dash", "a.B", "x" * 65])
def test_invalid_tool_names_are_refused(name: str) -> None:
    module = Module("m", summary="s")

    async def tool(ctx: ToolContext[Any]) -> None:
        """Do it."""

    with pytest.raises(ValueError, match="invalid tool name"):
        module.tool(name)(tool)


def test_dotted_and_long_tool_names_are_accepted() -> None:
    module = Module("m", summary="s")

    @module.tool("relation.save")
    async def save(ctx: ToolContext[Any]) -> None:
        """Save."""

    @module.tool("x" * 64)
    async def long(ctx: ToolContext[Any]) -> None:
        """Long."""

    assert sorted(module.tools) == sorted(["relation.save", "x" * 64])


def test_two_tools_with_one_name_are_refused() -> None:
    module = Module("m", summary="s")

    @module.tool("same")
    async def first(ctx: ToolContext[Any]) -> None:
        """One."""

    async def second(ctx: ToolContext[Any]) -> None:
        """Two."""

    with pytest.raises(ValueError, match="duplicate tool 'same'"):
        module.tool("same")(second)


def test_a_sync_tool_is_refused() -> None:
    module = Module("m", summary="s")

    def sync(ctx: ToolContext[Any]) -> None:
        """Not async."""

    with pytest.raises(ValueError, match="must be an async function"):
        module.tool()(sync)  # type: ignore[arg-type]


async def _no_params() -> None:
    """No ctx."""


async def _ctx_not_first(x: int, ctx: ToolContext[Any]) -> None:
    """Ctx second."""


async def _ctx_keyword_only(*, ctx: ToolContext[Any]) -> None:
    """Ctx by name only."""


@pytest.mark.parametrize("fn", [_no_params, _ctx_not_first, _ctx_keyword_only])
def test_a_tool_without_ctx_first_is_refused(fn: Any) -> None:
    with pytest.raises(ValueError, match="must take `ctx` as its first parameter"):
        Module("m", summary="s").tool("t")(fn)


def test_positional_only_parameters_are_refused() -> None:
    async def tool(ctx: ToolContext[Any], x: int, /) -> None:
        """Positional x."""

    with pytest.raises(ValueError, match="positional-only"):
        Module("m", summary="s").tool()(tool)


def test_a_tool_without_a_description_is_refused() -> None:
    module = Module("m", summary="s")

    async def bare(ctx: ToolContext[Any]) -> None:
        pass

    with pytest.raises(ValueError, match="needs a description"):
        module.tool()(bare)
    with pytest.raises(ValueError, match="needs a description"):
        module.tool("blank", description="")(bare)


def test_the_description_is_the_docstring_first_paragraph_unless_given() -> None:
    module = Module("m", summary="s")

    @module.tool()
    async def documented(ctx: ToolContext[Any]) -> None:
        """First line
        continues here.

        Maintainers only.
        """

    @module.tool("explicit", description="Given here.")
    async def other(ctx: ToolContext[Any]) -> None:
        """Docstring ignored."""

    assert module.tools["documented"].description == "First line continues here."
    assert module.tools["explicit"].description == "Given here."


def test_a_tool_cannot_be_read_only_and_destructive() -> None:
    async def tool(ctx: ToolContext[Any]) -> None:
        """Both."""

    with pytest.raises(ValueError, match="cannot be read-only and destructive"):
        Module("m", summary="s").tool(read_only=True, destructive=True)(tool)


def test_the_decorator_returns_the_function_and_records_defaults() -> None:
    plain = Module("plain", summary="s")
    remote = Module("remote", summary="s", auth=ApiKeyAuth())

    async def tool(ctx: ToolContext[Any]) -> None:
        """Do it."""

    assert plain.tool(read_only=True)(tool) is tool
    assert remote.tool()(tool) is tool
    local, outside = plain.tools["tool"], remote.tools["tool"]
    assert (local.idempotent, local.open_world, local.needs_account) == (True, False, False)
    assert (outside.idempotent, outside.open_world, outside.needs_account) == (False, True, True)


def test_a_second_startup_is_refused() -> None:
    module = Module("m", summary="s")

    @module.startup
    async def first(resources: Any) -> Any:
        yield None

    with pytest.raises(ValueError, match="startup is already registered"):

        @module.startup
        async def second(resources: Any) -> Any:
            yield None


async def _untyped(ctx: ToolContext[Any], x) -> None:  # type: ignore[no-untyped-def]
    """Untyped x."""


async def _star_args(ctx: ToolContext[Any], *xs: int) -> None:
    """Star args."""


async def _star_kwargs(ctx: ToolContext[Any], **kw: int) -> None:
    """Star kwargs."""


@pytest.mark.parametrize(
    ("fn", "problem"),
    [(_untyped, "parameter 'x' needs a type annotation"), (_star_args, r"\*args"), (_star_kwargs, r"\*args")],
)
def test_parameters_the_schema_cannot_describe_are_refused(fn: Any, problem: str) -> None:
    module = Module("m", summary="s")
    module.tool("bad")(fn)
    with pytest.raises(ConfigError, match=rf"module 'm', tool 'bad': .*{problem}"):
        Registry([module])


def test_a_refused_module_leaves_nothing_behind() -> None:
    registry = Registry()
    broken = Module("m", summary="s")

    @broken.tool()
    async def fine(ctx: ToolContext[Any]) -> None:
        """Fine."""

    broken.tool("bad")(_untyped)
    with pytest.raises(ConfigError):
        registry.add(broken)
    assert "m" not in registry
    assert registry.tools() == []
    assert registry.tool("m", "fine") is None


# --- entry points -----------------------------------------------------------------------------------


def test_a_module_loads_from_an_installed_distribution(dists: FakeDists) -> None:
    file = add_module(dists, "fake-one", "fakeone")
    registry = Registry.from_entry_points(enabled=["fakeone"])
    assert registry.names() == ["fakeone"]
    module = registry.module("fakeone")
    assert module is sys.modules[file].module
    assert registry.tool("fakeone", "ping") is not None


def test_an_entry_point_that_fails_to_import_is_refused(dists: FakeDists) -> None:
    dists.add("broken-dist", {"broken": "fake_broken_mod:module"}, {"fake_broken_mod": "raise RuntimeError('no')\n"})
    with pytest.raises(ConfigError) as caught:
        Registry.from_entry_points(enabled=["broken"])
    message = str(caught.value)
    assert "'broken'" in message and "broken-dist 1.0" in message and "failed to load: RuntimeError: no" in message
    assert "modules.disabled = ['broken']" in message


def test_an_entry_point_naming_a_missing_module_is_refused(dists: FakeDists) -> None:
    dists.add("ghost-dist", {"ghost": "fake_module_that_does_not_exist:module"})
    with pytest.raises(ConfigError, match=r"'ghost'.*failed to load: ModuleNotFoundError"):
        Registry.from_entry_points(enabled=["ghost"])


def test_a_bad_tool_declaration_surfaces_as_a_failed_load(dists: FakeDists) -> None:
    source = FAKE_MODULE.format(name="badtool").replace("async def ping", "def ping")
    dists.add("bad-tool", {"badtool": "fake_badtool_mod:module"}, {"fake_badtool_mod": source})
    with pytest.raises(ConfigError, match=r"failed to load: ValueError: .*must be an async function"):
        Registry.from_entry_points(enabled=["badtool"])


def test_an_entry_point_that_is_not_a_module_is_refused(dists: FakeDists) -> None:
    dists.add("not-module", {"notmod": "fake_notmod_mod:module"}, {"fake_notmod_mod": "module = 42\n"})
    with pytest.raises(ConfigError, match=r"'notmod' \(not-module 1.0: fake_notmod_mod:module\) is not an mcpist"):
        Registry.from_entry_points(enabled=["notmod"])


def test_an_entry_point_named_unlike_its_module_is_refused(dists: FakeDists) -> None:
    add_module(dists, "misnamed", "realname", ep_name="othername")
    with pytest.raises(ConfigError, match=r"'othername' .* names a module called 'realname'"):
        Registry.from_entry_points(enabled=["othername"])


def test_two_distributions_registering_one_name_are_refused(dists: FakeDists) -> None:
    add_module(dists, "first-dist", "twin")
    add_module(dists, "second-dist", "twin")
    with pytest.raises(ConfigError, match="two packages register a module named 'twin'") as caught:
        Registry.from_entry_points(enabled=["twin"])
    assert "first-dist 1.0" in str(caught.value) and "second-dist 1.0" in str(caught.value)


@pytest.mark.parametrize(
    ("enabled", "disabled"), [(["fakeone", "nosuch"], []), (None, ["nosuch"]), (["fakeone"], ["nosuch"])]
)
def test_enabled_or_disabled_naming_an_unknown_module_is_refused(
    dists: FakeDists, enabled: list[str] | None, disabled: list[str]
) -> None:
    add_module(dists, "fake-one", "fakeone")
    with pytest.raises(ConfigError, match=r"unknown module\(s\) \['nosuch'\]; installed: .*'fakeone'"):
        Registry.from_entry_points(enabled, disabled)


def test_a_disabled_module_is_left_out_and_never_imported(dists: FakeDists) -> None:
    kept = add_module(dists, "fake-one", "fakeone")
    dists.add("broken-dist", {"broken": "fake_broken2_mod:module"}, {"fake_broken2_mod": "raise RuntimeError\n"})
    registry = Registry.from_entry_points(disabled=["broken", "context"])
    assert "fakeone" in registry
    assert "broken" not in registry and "context" not in registry
    assert "fake_broken2_mod" not in sys.modules
    assert kept in sys.modules


def test_the_settings_choose_the_modules(dists: FakeDists, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_module(dists, "fake-one", "fakeone")
    add_module(dists, "fake-two", "faketwo")
    (tmp_path / "mcpist.toml").write_text('[modules]\nenabled = ["fakeone", "faketwo"]\n', encoding="utf-8")
    settings = load_settings(data_dir=tmp_path)
    both = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    assert both.names() == ["fakeone", "faketwo"]

    monkeypatch.setenv("MCPIST_MODULES__DISABLED", '["faketwo"]')
    settings = load_settings(data_dir=tmp_path)
    assert settings.modules.disabled == ["faketwo"]
    one = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    assert one.names() == ["fakeone"]


# --- the worked example, loaded as an installed package ----------------------------------------------


class OneAccount:
    """An account resolver with one weather API key for everybody."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.asked: list[tuple[str, str, str | None]] = []

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> ResolvedAccount | None:
        self.asked.append((caller.user_id, module.name, account))
        return ResolvedAccount(Account(service="weather", name=account or "personal"), FakeCredentials(self.secret))

    async def usable(self, caller: Caller, module: Module) -> AccountChoice:
        return AccountChoice(("personal",), "personal")


def weather_api(seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers.get("Authorization") != "Bearer wk-1":
            return httpx.Response(401)
        city = request.url.params["city"]
        if request.url.path == "/api/v1/current":
            return httpx.Response(200, json={"city": city, "temperature": 8.5, "conditions": "snow"})
        day = {"date": "2025-01-02", "high": 3, "low": -2, "conditions": "snow", "precipitation_chance": 0.9}
        return httpx.Response(200, json={"city": city, "days": [day] * int(request.url.params["days"])})

    return httpx.MockTransport(handle)


@pytest.fixture
def weather(dists: FakeDists, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example package as pip would install it: its dist-info, and its src on sys.path."""
    monkeypatch.delitem(sys.modules, "mcpist_weather", raising=False)
    monkeypatch.syspath_prepend(str(EXAMPLE_SRC))
    dists.add("mcpist_weather", {"weather": "mcpist_weather:module"})
    dists.imported.append("mcpist_weather")


def test_the_example_package_loads_through_its_entry_point(weather: None) -> None:
    registry = Registry.from_entry_points(enabled=["weather"])
    module = registry.module("weather")
    assert module is not None
    assert Path(sys.modules["mcpist_weather"].__file__ or "").is_relative_to(EXAMPLE_SRC)
    assert isinstance(module.auth, OAuth2Auth)
    assert sorted(module.tools) == ["current", "forecast", "stations"]


@pytest.mark.anyio
async def test_the_example_tools_run_through_the_runtime(weather: None, tmp_path: Path) -> None:
    (tmp_path / "mcpist.toml").write_text(
        '[modules]\nenabled = ["weather"]\n\n[modules.settings.weather]\nbase_url = "https://weather.test/api"\n',
        encoding="utf-8",
    )
    settings = load_settings(data_dir=tmp_path)
    registry = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    seen: list[httpx.Request] = []
    async with start_runtime(settings, registry) as rt:
        rt.transport = weather_api(seen)
        caller = Caller(user_id=rt.owner.id)  # the owner's roles allow every tool
        with pytest.raises(Unauthenticated, match="register weather's OAuth app"):
            await rt.execute(caller, "weather", "current", {"city": "Oslo"})
        await rt.accounts.apps.put("weather", "client-1", "secret-1")  # type: ignore[attr-defined]
        with pytest.raises(ConnectRequired, match="not connected") as asked:
            await rt.execute(caller, "weather", "current", {"city": "Oslo"})
        assert "/connect/weather?" in asked.value.connect_url
        assert seen == []

        rt.accounts = accounts = OneAccount("wk-1")
        now = await rt.execute(caller, "weather", "current", {"city": "Oslo"}, account="work")
        assert now == {"city": "Oslo", "temperature": 8.5, "conditions": "snow"}  # no wind_speed: None is left out
        assert str(seen[-1].url) == "https://weather.test/api/v1/current?city=Oslo&units=metric"
        assert accounts.asked == [(rt.owner.id, "weather", "work")]

        days = await rt.execute(caller, "weather", "forecast", {"city": "Oslo", "days": 2, "units": "imperial"})
        assert [d["date"] for d in days["days"]] == ["2025-01-02", "2025-01-02"]

        with pytest.raises(InvalidArgument, match="'days'") as caught:
            await rt.execute(caller, "weather", "forecast", {"city": "Oslo", "days": 8})
        assert caught.value.data["errors"][0]["field"] == "days"

        rt.accounts = OneAccount("revoked")
        with pytest.raises(Unauthenticated, match="refused the test account"):
            await rt.execute(caller, "weather", "current", {"city": "Oslo"})

        with pytest.raises(NotFound, match="unknown tool 'hourly'"):
            await rt.execute(caller, "weather", "hourly", {})


@pytest.mark.anyio
async def test_the_example_settings_are_checked_at_start(weather: None, tmp_path: Path) -> None:
    registry = Registry.from_entry_points(enabled=["weather"])
    settings = load_settings(data_dir=tmp_path, modules={"settings": {"weather": {"timeout_s": 0}}})
    with pytest.raises(ConfigError, match=r"modules\.settings\.weather\.timeout_s"):
        async with start_runtime(settings, registry):
            pass


@pytest.mark.anyio
async def test_an_unreachable_upstream_is_unavailable(weather: None, tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    settings = load_settings(data_dir=tmp_path, modules={"enabled": ["weather"]})
    registry = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    async with start_runtime(settings, registry) as rt:
        rt.transport, rt.accounts = httpx.MockTransport(refuse), OneAccount("wk-1")
        rt.settings = rt.settings.model_copy(update={"call_timeout_s": 30})
        with pytest.raises(Unavailable, match="weather cannot be reached: ConnectError") as caught:
            await rt.execute(Caller(user_id=rt.owner.id), "weather", "current", {"city": "Oslo"})
    assert caught.value.data["service"] == "weather"


def test_a_bad_upstream_proxy_is_refused_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="upstream_proxy"):
        load_settings(data_dir=tmp_path, upstream_proxy="proxy.internal:3128")
    assert load_settings(data_dir=tmp_path, upstream_proxy="http://proxy.internal:3128").upstream_proxy


@pytest.mark.anyio
async def test_an_account_with_its_own_api_root_sends_its_credential_nowhere_else() -> None:
    from mcpist.modules import AccountField, ServiceSettings
    from mcpist.runtime import service_client

    class Settings(ServiceSettings):
        base_url: str = "https://api.example.com"

    mod = Module(
        "ghlike", summary="s", settings=Settings, auth=ApiKeyAuth(), account_fields=[AccountField("base_url", "d")]
    )
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    account = Account(service="ghlike", name="ent", fields={"base_url": "https://ghe.example.org/api/v3"})
    resolved = ResolvedAccount(account, FakeCredentials("ENT-TOKEN"))
    async with service_client(mod, Settings(), httpx.MockTransport(handler), resolved, user_agent="t") as http:
        await http.get_json("/user")
        with pytest.raises(Unavailable, match="another host"):
            await http.get_json("https://api.example.com/user")
    assert [str(r.url) for r in seen] == ["https://ghe.example.org/api/v3/user"]
