"""Argon2id password hashes (argon2-cffi's RFC 9106 defaults), computed off the event loop."""

from __future__ import annotations

from functools import cache

import anyio.to_thread
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from mcpist.errors import InvalidArgument

MIN_LENGTH = 8
# argon2 hashes any length in the same time, but a megabyte form field is not a password
MAX_LENGTH = 1024

_hasher = PasswordHasher()


@cache
def _dummy() -> str:
    # verified against when the email is unknown, so timing does not tell which emails exist
    return _hasher.hash("mcpist: no such user")


def check_policy(password: str) -> None:
    """Raises:
    InvalidArgument: the password is shorter than 8 or longer than 1024 characters.
    """
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise InvalidArgument(f"a password needs {MIN_LENGTH} to {MAX_LENGTH} characters", {"field": "password"})


async def hash_password(password: str) -> str:
    """Raises:
    InvalidArgument: the password breaks the length policy.
    """
    check_policy(password)
    return await anyio.to_thread.run_sync(_hasher.hash, password)


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` matches `stored`; with no stored hash it still spends the time, then fails."""
    if len(password) > MAX_LENGTH:
        return False

    def run() -> bool:
        try:
            return _hasher.verify(stored or _dummy(), password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    return await anyio.to_thread.run_sync(run)
