"""Roles, grants, token narrowing and security events on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import anyio
import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from demo_module import demo, remote
from mcpist.auth.tokens import TokenStore
from mcpist.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from mcpist.modules.registry import Registry
from mcpist.sieve import (
    ADMIN_ROLE,
    MIGRATIONS,
    NewToken,
    Sieve,
    create_role,
    delete_role,
    ensure_owner_access,
    get_role,
    grant_role,
    list_roles,
    list_security_events,
    load_access,
    record_security_event,
    revoke_role,
    roles_of,
    token_roles_by_token,
)
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade
from mcpist.storage.tables import users
from mcpist.storage.users import User, ensure_owner
from sieve_support import create_token

pytestmark = pytest.mark.anyio

REGISTRY = Registry([demo, remote])


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url)
    try:
        await upgrade(engine, [MIGRATIONS])
        yield engine
    finally:
        await engine.dispose()


async def add_user(engine: AsyncEngine, email: str) -> str:
    user_id = str(uuid.uuid4())
    async with engine.begin() as conn:
        await conn.execute(users.insert().values(id=user_id, email=email, created_at=datetime.now(UTC)))
    return user_id


async def visible(engine: AsyncEngine, user_id: str, token_id: str | None = None) -> set[str]:
    _, rules = await load_access(engine, user_id, token_id)
    return {f"{m}.{t}" for m, t in Sieve(REGISTRY).grants(rules).tools}


async def owner_with_access(engine: AsyncEngine) -> User:
    owner, _ = await ensure_owner(engine)
    await ensure_owner_access(engine, owner.id)
    return owner


async def test_owner_holds_builtin_admin_role_idempotently(engine: AsyncEngine) -> None:
    owner, _ = await ensure_owner(engine)
    assert await visible(engine, owner.id) == set()
    async with anyio.create_task_group() as tg:
        for _ in range(4):
            tg.start_soon(ensure_owner_access, engine, owner.id)
    await ensure_owner_access(engine, owner.id)
    [admin] = await list_roles(engine)
    assert (admin.name, admin.allow, admin.deny, admin.builtin, admin.users) == (
        ADMIN_ROLE,
        ("*",),
        (),
        True,
        (owner.email,),
    )
    assert await visible(engine, owner.id) == {f"demo.{t}" for t in demo.tools} | {"remote.whoami"}
    assert await roles_of(engine, owner.email) == [ADMIN_ROLE]
    with pytest.raises(Conflict, match="the owner always holds role 'admin'"):
        await revoke_role(engine, owner.email, ADMIN_ROLE)
    with pytest.raises(Conflict, match="built in"):
        await delete_role(engine, ADMIN_ROLE)
    with pytest.raises(Conflict, match="already exists"):
        await create_role(engine, ADMIN_ROLE, ["demo.echo"])


async def test_roles_are_created_granted_and_revoked(engine: AsyncEngine) -> None:
    await owner_with_access(engine)
    alice = await add_user(engine, "alice@example.com")
    role = await create_role(
        engine,
        "reader",
        ["demo.@read", " demo.@read", "remote.*"],
        ["demo.wait"],
        "  reads   things ",
        registry=REGISTRY,
    )
    assert (role.allow, role.deny, role.description) == (("demo.@read", "remote.*"), ("demo.wait",), "reads things")
    assert await visible(engine, alice) == set()

    assert await grant_role(engine, "alice@example.com", "reader") is True
    assert await grant_role(engine, "alice@example.com", "reader") is False
    assert await visible(engine, alice) == {"demo.echo", "demo.add", "demo.items", "remote.whoami"}
    stored = await get_role(engine, "reader")
    assert stored is not None and stored.users == ("alice@example.com",) and stored.allow == ("demo.@read", "remote.*")

    await revoke_role(engine, "alice@example.com", "reader")
    assert await visible(engine, alice) == set()
    with pytest.raises(NotFound, match="does not hold role 'reader'"):
        await revoke_role(engine, "alice@example.com", "reader")
    with pytest.raises(NotFound, match=r"no user with email 'bob@example\.com'"):
        await grant_role(engine, "bob@example.com", "reader")
    with pytest.raises(NotFound, match="no role named 'writer'"):
        await grant_role(engine, "alice@example.com", "writer")


@pytest.mark.parametrize(
    ("name", "allow", "deny", "message"),
    [
        ("Bad Name", ["demo.*"], [], "invalid role name 'Bad Name'"),
        ("empty", [], ["demo.boom"], "needs at least one allow pattern"),
        ("typo", ["demo.*"], ["demo.bom"], "unknown tool 'bom' of module 'demo'"),
        ("typo", ["githb.*"], [], "unknown module 'githb'"),
        ("syntax", ["demo"], [], "invalid permission 'demo'"),
    ],
)
async def test_bad_roles_are_refused_naming_the_problem(
    engine: AsyncEngine, name: str, allow: list[str], deny: list[str], message: str
) -> None:
    with pytest.raises(InvalidArgument, match=message):
        await create_role(engine, name, allow, deny, registry=REGISTRY)
    assert await get_role(engine, name) is None


async def test_unvalidated_roles_may_name_modules_not_installed(engine: AsyncEngine) -> None:
    role = await create_role(engine, "later", ["github.*"])
    assert role.allow == ("github.*",)


async def test_tokens_narrow_to_roles_their_user_still_holds(engine: AsyncEngine) -> None:
    await owner_with_access(engine)
    alice = await add_user(engine, "alice@example.com")
    await create_role(engine, "echoer", ["demo.echo"])
    await create_role(engine, "adder", ["demo.add"])
    await create_role(engine, "other", ["demo.wait"])
    await grant_role(engine, "alice@example.com", "echoer")
    await grant_role(engine, "alice@example.com", "adder")

    wide, _ = await create_token(engine, "wide", email="alice@example.com")
    narrow, _ = await create_token(engine, "narrow", email="alice@example.com", roles=["echoer", "echoer"])
    assert await visible(engine, alice, wide.id) == {"demo.echo", "demo.add"}
    assert await visible(engine, alice, narrow.id) == {"demo.echo"}
    assert await load_access(engine, alice, narrow.id) == (
        ["echoer"],
        [(await _rid(engine, "echoer"), "allow", "demo.echo")],
    )
    assert await token_roles_by_token(engine) == {narrow.id: ("echoer",)}

    with pytest.raises(PermissionDenied, match="does not hold role 'other'"):
        await create_token(engine, "bad", email="alice@example.com", roles=["other"])
    with pytest.raises(NotFound, match="no role named 'nope'"):
        await create_token(engine, "bad", email="alice@example.com", roles=["nope"])
    with pytest.raises(NotFound, match="no user"):
        await create_token(engine, "bad", email="nobody@example.com")
    with pytest.raises(Conflict):
        await create_token(engine, "narrow", email="alice@example.com", roles=["adder"])
    assert [t.name for t in await TokenStore(engine).list()] == ["narrow", "wide"]

    # taking the role from the user takes it from the token, which never widens to the rest
    await revoke_role(engine, "alice@example.com", "echoer")
    assert await visible(engine, alice, narrow.id) == set()
    assert await visible(engine, alice, wide.id) == {"demo.add"}
    await grant_role(engine, "alice@example.com", "echoer")
    assert await visible(engine, alice, narrow.id) == {"demo.echo"}
    await delete_role(engine, "echoer")
    assert await visible(engine, alice, narrow.id) == set()
    assert await token_roles_by_token(engine) == {narrow.id: ()}
    assert await visible(engine, alice, wide.id) == {"demo.add"}


async def _rid(engine: AsyncEngine, name: str) -> str:
    role = await get_role(engine, name)
    assert role is not None
    return role.id


async def test_the_owner_is_the_default_token_user(engine: AsyncEngine) -> None:
    owner = await owner_with_access(engine)
    info, token = await create_token(engine, "mine", roles=[ADMIN_ROLE])
    assert info.user_id == owner.id and token.startswith("mcpist_")
    assert await token_roles_by_token(engine) == {info.id: (ADMIN_ROLE,)}


async def test_a_token_whose_narrowing_fails_is_never_created(engine: AsyncEngine) -> None:
    owner = await owner_with_access(engine)
    gone = NewToken(owner.id, owner.email, (str(uuid.uuid4()),))  # a role deleted after the check
    with pytest.raises(sa.exc.IntegrityError):
        await TokenStore(engine).create("half", owner.id, then=gone.narrow)
    assert await TokenStore(engine).get("half") is None
    assert await token_roles_by_token(engine) == {}


async def test_security_events_are_listed_newest_first(engine: AsyncEngine) -> None:
    owner = await owner_with_access(engine)
    info, _ = await create_token(engine, "laptop")
    await record_security_event(
        engine, user_id=owner.id, token_id=info.id, module="demo", tool="boom", kind="hidden_tool_call", via="call"
    )
    await record_security_event(
        engine, user_id="gone", token_id=None, module="m" * 500, tool="t" * 500, kind="unknown_tool_call", via="batch"
    )
    newest, oldest = await list_security_events(engine)
    assert (oldest.email, oldest.token_name, oldest.module, oldest.tool, oldest.kind, oldest.via) == (
        owner.email,
        "laptop",
        "demo",
        "boom",
        "hidden_tool_call",
        "call",
    )
    assert oldest.at.tzinfo is not None and oldest.at <= newest.at
    assert (newest.user_id, newest.email, newest.token_name) == ("gone", None, None)
    assert (len(newest.module), len(newest.tool)) == (64, 128)
    assert [e.id for e in await list_security_events(engine, limit=1)] == [newest.id]
    with pytest.raises(InvalidArgument):
        await list_security_events(engine, limit=0)
