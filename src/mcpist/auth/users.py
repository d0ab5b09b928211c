"""Users who sign in: adding them, passwords, and the email allowlist.

The owner exists from first start as `owner@localhost` (system role admin, no password). While it
is that placeholder, the first user added with role admin (or no role), or the first allowlisted
person to sign in through an upstream provider or an external IdP, takes it over: "the first user
is the admin" (seed 001 §2.4.1), and the owner's API tokens stay theirs. Giving the placeholder a
password (`set_password(engine, "owner@localhost", ...)`) keeps it as an account of its own.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.storage.tables import users
from mcpist.storage.users import OWNER_EMAIL, User, get_owner, user_columns, user_from_row

from .passwords import hash_password, verify_password
from .tables import user_passwords

SYSTEM_ROLES = ("admin", "user")
_EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,255}$")


@dataclass(frozen=True)
class UserRecord:
    id: str
    email: str
    system_role: str
    created_at: datetime
    has_password: bool
    disabled_at: datetime | None = None


def normalize_email(email: str) -> str:
    """Raises:
    InvalidArgument: not of the form local@domain.
    """
    email = email.strip().lower()
    if not _EMAIL_RE.fullmatch(email):
        raise InvalidArgument(f"{email!r} is not an email address", {"field": "email"})
    return email


def email_allowed(email: str, allowed: Iterable[str]) -> bool:
    """`allowed` holds addresses and `@domain` entries, lowercase."""
    email = email.lower()
    domain = "@" + email.rpartition("@")[2]
    return any(entry in (email, domain) for entry in allowed)


async def _find(conn: AsyncConnection, email: str) -> User | None:
    query = sa.select(*user_columns()).where(users.c.email == email)
    row = (await conn.execute(query)).first()
    return user_from_row(row) if row else None


async def _unclaimed_owner(conn: AsyncConnection) -> User | None:
    """The owner while it is still the placeholder: `owner@localhost`, admin, no password."""
    owner = await _find(conn, OWNER_EMAIL)
    if owner is None or owner.system_role != "admin":
        return None
    has_password = await conn.scalar(sa.select(sa.func.count()).where(user_passwords.c.user_id == owner.id))
    return None if has_password else owner


async def find_user(engine: AsyncEngine, email: str) -> User | None:
    async with engine.connect() as conn:
        return await _find(conn, email.strip().lower())


async def _store_password(conn: AsyncConnection, user_id: str, password_hash: str | None) -> None:
    await conn.execute(user_passwords.delete().where(user_passwords.c.user_id == user_id))
    if password_hash is not None:
        await conn.execute(
            user_passwords.insert().values(user_id=user_id, password_hash=password_hash, updated_at=datetime.now(UTC))
        )


async def add_user(engine: AsyncEngine, email: str, role: str | None = None, password: str | None = None) -> User:
    """Register a user; while the owner is still `owner@localhost`, an admin (or role None) takes it over.

    Raises:
        InvalidArgument: bad email, a role other than admin or user, or a password outside the policy.
        Conflict: a user with this email exists.
    """
    email = normalize_email(email)
    if role is not None and role not in SYSTEM_ROLES:
        raise InvalidArgument(f"unknown system role {role!r}; use admin or user", {"field": "role"})
    password_hash = await hash_password(password) if password is not None else None
    try:
        async with engine.begin() as conn:
            if await _find(conn, email) is not None:
                raise Conflict(f"a user with email {email!r} exists", {"field": "email"})
            placeholder = await _unclaimed_owner(conn) if role in (None, "admin") else None
            if placeholder is not None:
                await conn.execute(users.update().where(users.c.id == placeholder.id).values(email=email))
                user = User(id=placeholder.id, email=email, system_role="admin")
            else:
                user = User(id=str(uuid.uuid4()), email=email, system_role=role or "user")
                await conn.execute(
                    users.insert().values(
                        id=user.id, email=email, system_role=user.system_role, created_at=datetime.now(UTC)
                    )
                )
            if password_hash is not None:
                await _store_password(conn, user.id, password_hash)
    except sa.exc.IntegrityError:
        raise Conflict(f"a user with email {email!r} exists", {"field": "email"}) from None
    return user


async def list_users(engine: AsyncEngine) -> list[UserRecord]:
    query = (
        sa.select(
            users.c.id,
            users.c.email,
            users.c.system_role,
            users.c.created_at,
            user_passwords.c.user_id.is_not(None),
            users.c.disabled_at,
        )
        .select_from(users.outerjoin(user_passwords, user_passwords.c.user_id == users.c.id))
        .order_by(users.c.created_at, users.c.email)
    )
    async with engine.connect() as conn:
        return [UserRecord(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in await conn.execute(query)]


async def set_password(engine: AsyncEngine, email: str, password: str | None) -> User:
    """Set (or, with None, remove) the password of the user with this email, e.g. `owner@localhost`.

    Raises:
        NotFound: no user has this email.
        InvalidArgument: the password is outside the policy.
    """
    password_hash = await hash_password(password) if password is not None else None
    async with engine.begin() as conn:
        user = await _find(conn, email.strip().lower())
        if user is None:
            raise NotFound(f"no user with email {email!r}", {"field": "email"})
        await _store_password(conn, user.id, password_hash)
    return user


async def check_password(engine: AsyncEngine, email: str, password: str) -> User | None:
    """The user if `password` is theirs (a disabled one too: `User.disabled` says so); None otherwise,
    taking as long whether or not the email exists."""
    query = (
        sa.select(*user_columns(), user_passwords.c.password_hash)
        .select_from(users.join(user_passwords, user_passwords.c.user_id == users.c.id))
        .where(users.c.email == email.strip().lower())
    )
    async with engine.connect() as conn:
        row = (await conn.execute(query)).first()
    if not await verify_password(row[4] if row else None, password) or row is None:
        return None
    return user_from_row(row)


async def allowlisted_user(engine: AsyncEngine, email: str, allowed: Iterable[str]) -> User | None:
    """The registered user with this email (a disabled one too: the caller refuses it), or a new one if
    the email is in `allowed`; else None."""
    email = email.strip().lower()
    user = await find_user(engine, email)
    if user is not None or not email_allowed(email, allowed):
        return user
    try:
        return await add_user(engine, email)
    except Conflict:
        # signed in twice at once: the other attempt created the user
        return await find_user(engine, email)


async def unclaimed_owner(engine: AsyncEngine) -> User | None:
    """The owner while it is still the placeholder nobody can sign in as: `owner@localhost`, no password."""
    async with engine.connect() as conn:
        return await _unclaimed_owner(conn)


async def claim_owner(engine: AsyncEngine, owner_id: str, email: str, password: str) -> User | None:
    """Give the placeholder owner an email and a password; None if it was claimed meanwhile (so a set-up
    link works once: only while the owner has no password).

    Raises:
        InvalidArgument: a bad email, or a password outside the policy.
        Conflict: another user has this email.
    """
    email = normalize_email(email)
    password_hash = await hash_password(password)
    unclaimed = ~sa.exists().where(user_passwords.c.user_id == owner_id)
    try:
        async with engine.begin() as conn:
            changed = await conn.execute(
                users.update()
                .where(users.c.id == owner_id, users.c.email == OWNER_EMAIL, unclaimed)
                .values(email=email)
            )
            if changed.rowcount != 1:
                return None
            await _store_password(conn, owner_id, password_hash)
    except sa.exc.IntegrityError:
        raise Conflict(f"a user with email {email!r} exists", {"field": "email"}) from None
    return User(owner_id, email, "admin")


async def _not_owner(engine: AsyncEngine, user_id: str, what: str) -> None:
    owner = await get_owner(engine)
    if owner is not None and owner.id == user_id:
        raise Conflict(f"the owner {what}", {"field": "user"})


async def set_system_role(engine: AsyncEngine, user_id: str, system_role: str) -> None:
    """Make a user an admin or a plain user.

    Raises:
        InvalidArgument: a system role other than admin or user.
        NotFound: no such user.
        Conflict: demoting the owner (who is always an admin).
    """
    if system_role not in SYSTEM_ROLES:
        raise InvalidArgument(f"unknown system role {system_role!r}; use admin or user", {"field": "system_role"})
    if system_role != "admin":
        await _not_owner(engine, user_id, "is always an admin")
    async with engine.begin() as conn:
        result = await conn.execute(users.update().where(users.c.id == user_id).values(system_role=system_role))
    if result.rowcount == 0:
        raise NotFound("no such user", {"field": "user"})


async def set_disabled(engine: AsyncEngine, user_id: str, disabled: bool) -> bool:
    """Disable a user (no sign-in; their API tokens and OAuth access tokens are refused when next
    verified) or enable them again; returns whether anything changed.

    Raises:
        NotFound: no such user.
        Conflict: disabling the owner (nobody could administer the server).
    """
    if disabled:
        await _not_owner(engine, user_id, "cannot be disabled")
    now = datetime.now(UTC)
    async with engine.begin() as conn:
        exists = await conn.scalar(sa.select(sa.func.count()).where(users.c.id == user_id))
        if not exists:
            raise NotFound("no such user", {"field": "user"})
        unchanged = users.c.disabled_at.is_(None) if disabled else users.c.disabled_at.is_not(None)
        result = await conn.execute(
            users.update().where(users.c.id == user_id, unchanged).values(disabled_at=now if disabled else None)
        )
    return result.rowcount == 1
