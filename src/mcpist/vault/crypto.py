"""Envelope encryption (pure): AES-256-GCM under a fresh data key per record, the data key
wrapped by a key-encryption key (KEK) that has an id. Both layers bind the record's identity
as associated data, so a flipped byte or a ciphertext moved to another record fails to open.

Blob layouts (all AES-256-GCM, 12-byte random nonce, 16-byte tag)::

    wrapped data key  = 0x01 | nonce | GCM(KEK,      data key,  "dek" + identity)
    sealed payload    = 0x01 | nonce | GCM(data key, plaintext, "payload" + identity)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mcpist.errors import Internal

__all__ = [
    "KEY_BYTES",
    "Keyring",
    "MissingKey",
    "Sealed",
    "TamperedRecord",
    "aad",
    "key_id",
    "rewrap",
    "seal",
    "unseal",
]

KEY_BYTES = 32
_NONCE = 12
_FORMAT = b"\x01"
_DOMAIN = "mcpist.vault/1"


class TamperedRecord(Internal):
    """A stored secret failed authentication: changed, truncated or moved from another record."""


class MissingKey(Internal):
    """A record is wrapped by a key-encryption key this server does not hold."""


def key_id(kek: bytes) -> str:
    """A stable public id for a KEK (16 hex characters); reveals nothing about the key."""
    return hmac.new(kek, b"mcpist vault key id", hashlib.sha256).hexdigest()[:16]


def aad(*identity: str | None) -> bytes:
    """Canonical associated data for a record's identity (unambiguous for any field values)."""
    return json.dumps([_DOMAIN, *identity], separators=(",", ":")).encode()


class Keyring:
    """The active KEK (for wrapping) and every KEK still accepted for unwrapping, by id.

    Raises:
        ValueError: a key is not 32 bytes.
    """

    def __init__(self, active: bytes, others: Iterable[bytes] = ()) -> None:
        self._keys: dict[str, bytes] = {}
        for key in (active, *others):
            if len(key) != KEY_BYTES:
                raise ValueError(f"a key-encryption key must be {KEY_BYTES} bytes, not {len(key)}")
            self._keys.setdefault(key_id(key), key)
        self.active_id = key_id(active)

    @property
    def ids(self) -> list[str]:
        return list(self._keys)

    def get(self, kid: str) -> bytes:
        """The KEK with this id.

        Raises:
            MissingKey: no such key here.
        """
        try:
            return self._keys[kid]
        except KeyError:
            raise MissingKey(
                f"a stored secret is wrapped by key {kid!r}, which this server does not hold; "
                "add it to vault.decrypt_keys or the keyring file",
                {"kek_id": kid},
            ) from None

    def __repr__(self) -> str:
        return f"Keyring(active={self.active_id!r}, ids={self.ids!r})"


@dataclass(frozen=True)
class Sealed:
    """One encrypted record as stored: the KEK id, the wrapped data key and the payload."""

    kek_id: str
    wrapped_key: bytes
    ciphertext: bytes

    def __repr__(self) -> str:
        return f"Sealed(kek_id={self.kek_id!r}, {len(self.ciphertext)} bytes)"


def _encrypt(key: bytes, plaintext: bytes, associated: bytes) -> bytes:
    nonce = os.urandom(_NONCE)
    return _FORMAT + nonce + AESGCM(key).encrypt(nonce, plaintext, associated)


def _decrypt(key: bytes, blob: bytes, associated: bytes) -> bytes:
    if len(blob) < 1 + _NONCE + 16 or blob[:1] != _FORMAT:
        raise TamperedRecord("a stored secret is malformed")
    try:
        return AESGCM(key).decrypt(blob[1 : 1 + _NONCE], blob[1 + _NONCE :], associated)
    except InvalidTag:
        raise TamperedRecord("a stored secret failed its integrity check (changed or moved)") from None


def seal(keyring: Keyring, identity: bytes, plaintext: bytes) -> Sealed:
    """Encrypt `plaintext` under a new data key wrapped by the active KEK."""
    data_key = AESGCM.generate_key(bit_length=256)
    kid = keyring.active_id
    return Sealed(
        kek_id=kid,
        wrapped_key=_encrypt(keyring.get(kid), data_key, b"dek" + identity),
        ciphertext=_encrypt(data_key, plaintext, b"payload" + identity),
    )


def _unwrap(keyring: Keyring, identity: bytes, sealed: Sealed) -> bytes:
    data_key = _decrypt(keyring.get(sealed.kek_id), sealed.wrapped_key, b"dek" + identity)
    if len(data_key) != KEY_BYTES:
        raise TamperedRecord("a stored data key has the wrong length")
    return data_key


def unseal(keyring: Keyring, identity: bytes, sealed: Sealed) -> bytes:
    """The plaintext of a sealed record.

    Raises:
        MissingKey: the record's KEK is not in the keyring.
        TamperedRecord: any byte changed, or the record was sealed for another identity.
    """
    return _decrypt(_unwrap(keyring, identity, sealed), sealed.ciphertext, b"payload" + identity)


def rewrap(keyring: Keyring, identity: bytes, sealed: Sealed) -> Sealed:
    """The same record with its data key wrapped by the active KEK; the payload is untouched.

    Raises:
        MissingKey: the record's KEK is not in the keyring.
        TamperedRecord: the wrapped key fails authentication.
    """
    if sealed.kek_id == keyring.active_id:
        return sealed
    data_key = _unwrap(keyring, identity, sealed)
    return Sealed(
        kek_id=keyring.active_id,
        wrapped_key=_encrypt(keyring.get(keyring.active_id), data_key, b"dek" + identity),
        ciphertext=sealed.ciphertext,
    )
