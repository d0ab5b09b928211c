"""Secrets for the authorization server: random tokens, their hashes, keys derived from the master key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from mcpist.errors import ConfigError

MASTER_KEY_FILE = "master.key"  # written by mcpist.runtime.ensure_master_key
# 32 random bytes (256 bits): SHA-256 of such a token is as strong as any slow hash
_TOKEN_BYTES = 32


def new_token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(_TOKEN_BYTES)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def load_master_key(data_dir: Path) -> bytes:
    """The 32-byte master key from the data directory.

    Raises:
        ConfigError: the key file is missing or malformed.
    """
    path = data_dir / MASTER_KEY_FILE
    try:
        key = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the master key {path}: {exc.strerror}") from None
    if len(key) != 32:
        raise ConfigError(f"master key {path} must hold 32 bytes, not {len(key)}")
    return key


class Keys:
    """Independent sub-keys of the master key, one per purpose (HKDF-SHA256)."""

    def __init__(self, master: bytes) -> None:
        self.session = _derive(master, b"mcpist oauth session cookie v1")
        self.csrf = _derive(master, b"mcpist oauth csrf v1")
        self._seal = AESGCM(_derive(master, b"mcpist oauth client secret v1"))

    def sign(self, payload: dict[str, Any]) -> str:
        body = b64e(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
        return body + "." + b64e(hmac.new(self.session, body.encode(), hashlib.sha256).digest())

    def unsign(self, value: str) -> dict[str, Any] | None:
        body, _, mac = value.partition(".")
        expected = b64e(hmac.new(self.session, body.encode(), hashlib.sha256).digest())
        if not mac or not hmac.compare_digest(mac, expected):
            return None
        try:
            payload = json.loads(b64d(body))
        except ValueError:
            return None
        return payload if isinstance(payload, dict) else None

    def csrf_token(self, browser_id: str, purpose: str) -> str:
        return b64e(hmac.new(self.csrf, f"{browser_id}|{purpose}".encode(), hashlib.sha256).digest())

    def seal(self, plaintext: str, context: str) -> str:
        nonce = secrets.token_bytes(12)
        return b64e(nonce + self._seal.encrypt(nonce, plaintext.encode(), context.encode()))

    def open(self, sealed: str, context: str) -> str | None:
        raw = b64d(sealed)
        try:
            return self._seal.decrypt(raw[:12], raw[12:], context.encode()).decode()
        except (InvalidTag, ValueError):
            return None


def _derive(master: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(master)
