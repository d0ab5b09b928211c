"""Where key-encryption keys come from: the master key file (default), a secret file or the
environment, plus the keyring file of retired keys that `vault rotate-key` keeps.

A running server re-reads the files when they change, so a rotation done by another process
(the CLI) is picked up without a restart.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path

from mcpist.config import VaultSettings
from mcpist.errors import ConfigError

from .crypto import KEY_BYTES, Keyring, key_id

MASTER_KEY_FILE = "master.key"  # made by mcpist.runtime.ensure_master_key at first start
KEYRING_FILE = "vault-keyring.json"


def parse_key(raw: bytes, where: str) -> bytes:
    """A 32-byte key from raw bytes, hex or base64 text; the error never quotes the content.

    Raises:
        ConfigError: the value is not 32 bytes in any of those forms.
    """
    if len(raw) == KEY_BYTES:
        return raw
    text = raw.strip()
    if len(text) == 2 * KEY_BYTES:
        try:
            return bytes.fromhex(text.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            pass
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            key = decode(text + b"=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            continue
        if len(key) == KEY_BYTES:
            return key
    raise ConfigError(f"{where} must hold a {KEY_BYTES}-byte key: raw, hex (64 characters) or base64")


def _check_private(path: Path) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(f"key file {path} is readable by others (mode {mode:o}); run: chmod 600 {path}")


def _read_key_file(path: Path, where: str) -> bytes:
    try:
        _check_private(path)
        return parse_key(path.read_bytes(), f"{where} ({path})")
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read {path}: {exc.strerror}") from None


def _write_private(path: Path, data: bytes) -> None:
    """Replace `path` atomically with a 0600 file holding `data`, durable before returning."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class KeySource:
    """The KEKs for one data directory and settings; cheap to ask repeatedly."""

    def __init__(self, settings: VaultSettings, data_dir: Path) -> None:
        self.settings = settings
        self.key_file = settings.key_file or data_dir / MASTER_KEY_FILE
        self.keyring_file = settings.keyring_file or data_dir / KEYRING_FILE
        self._lock = threading.Lock()
        self._stamps: tuple[object, ...] = ()
        self._keyring: Keyring | None = None

    @property
    def rotatable(self) -> bool:
        """True when the key lives in the default master key file, which `rotate-key` may replace."""
        return self.settings.key is None and self.settings.key_file is None

    def _current_stamps(self) -> tuple[object, ...]:
        return (_stamp(self.key_file) if self.settings.key is None else None, _stamp(self.keyring_file))

    def active_key(self) -> bytes:
        """The KEK new records are wrapped with.

        Raises:
            ConfigError: the key is missing or malformed.
        """
        if self.settings.key is not None:
            return parse_key(self.settings.key.get_secret_value().encode(), "vault.key (MCPIST_VAULT__KEY)")
        return _read_key_file(self.key_file, "vault.key_file" if self.settings.key_file else "the master key file")

    def retired(self) -> dict[str, bytes]:
        """Retired KEKs from the keyring file, by id.

        Raises:
            ConfigError: the keyring file is unreadable or malformed.
        """
        if not self.keyring_file.exists():
            return {}
        try:
            _check_private(self.keyring_file)
            data = json.loads(self.keyring_file.read_text(encoding="utf-8"))
            keys = {
                entry["id"]: parse_key(entry["key"].encode(), f"keyring file {self.keyring_file}")
                for entry in data["retired"]
            }
        except OSError as exc:
            raise ConfigError(f"cannot read the vault keyring file {self.keyring_file}: {exc.strerror}") from None
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ConfigError(f"the vault keyring file {self.keyring_file} is malformed") from None
        for kid, key in keys.items():
            if key_id(key) != kid:
                raise ConfigError(f"the vault keyring file {self.keyring_file} has a key whose id does not match")
        return keys

    def load(self) -> Keyring:
        """Read every source now.

        Raises:
            ConfigError: a key is missing or malformed.
        """
        extra = [parse_key(k.get_secret_value().encode(), "vault.decrypt_keys") for k in self.settings.decrypt_keys]
        return Keyring(self.active_key(), [*extra, *self.retired().values()])

    def keyring(self, *, force: bool = False) -> Keyring:
        """The keyring, re-read when a key file changed since the last read (or when forced).

        Raises:
            ConfigError: a key is missing or malformed.
        """
        with self._lock:
            stamps = self._current_stamps()
            if force or self._keyring is None or stamps != self._stamps:
                self._keyring = self.load()
                self._stamps = stamps
            return self._keyring

    def rotate_master_key(self) -> tuple[str, str]:
        """Retire the master key into the keyring file, then replace it with a new random key.

        The old key reaches the keyring file (durably) before the master key file changes,
        so an interruption at any point loses no key. Returns (old id, new id).

        Raises:
            ConfigError: the key is not in the master key file (set by vault.key or vault.key_file).
        """
        if not self.rotatable:
            raise ConfigError(
                "the key-encryption key is managed outside MCPist (vault.key or vault.key_file): "
                "put the new key there and the old one in vault.decrypt_keys, then run `mcpist vault rotate-key`"
            )
        old = self.active_key()
        self.save_retired({**self.retired(), key_id(old): old})
        new = secrets.token_bytes(KEY_BYTES)
        _write_private(self.key_file, new)
        self.keyring(force=True)
        return key_id(old), key_id(new)

    def save_retired(self, keys: dict[str, bytes]) -> None:
        """Write the keyring file with exactly these retired keys."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        body = {
            "retired": [
                {"id": kid, "key": base64.b64encode(key).decode("ascii"), "retired_at": now}
                for kid, key in keys.items()
            ]
        }
        _write_private(self.keyring_file, json.dumps(body, indent=1).encode())
        self.keyring(force=True)
