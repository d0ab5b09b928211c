"""Envelope encryption and key sources, without a database."""

from __future__ import annotations

import base64
import os
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import SecretStr

import mcpist.vault as vault
import mcpist.vault.crypto as crypto
from mcpist.config import VaultSettings
from mcpist.errors import ConfigError
from mcpist.vault import KeySource
from mcpist.vault.crypto import Keyring, MissingKey, Sealed, TamperedRecord, aad, key_id, rewrap, seal, unseal
from mcpist.vault.keys import parse_key

KEK = bytes(range(32))
OTHER = bytes(range(1, 33))


def test_public_names_are_pinned() -> None:
    assert sorted(vault.__all__) == [
        "AccountInfo",
        "KeySource",
        "Keyring",
        "MIGRATIONS",
        "MissingKey",
        "NoOAuthApp",
        "OAuthApp",
        "RolesOf",
        "SessionUser",
        "TamperedRecord",
        "TokenBroker",
        "broker_for",
        "connect_routes",
        "no_roles",
    ]
    assert all(hasattr(crypto, name) for name in crypto.__all__)


def test_seal_roundtrip_uses_a_fresh_data_key_and_nonce_per_record() -> None:
    ring = Keyring(KEK)
    a = seal(ring, aad("account", "1"), b"token-one")
    b = seal(ring, aad("account", "1"), b"token-one")
    assert unseal(ring, aad("account", "1"), a) == b"token-one"
    assert a.kek_id == ring.active_id == key_id(KEK)
    assert a.wrapped_key != b.wrapped_key and a.ciphertext != b.ciphertext
    assert b"token-one" not in a.ciphertext + a.wrapped_key
    assert "token" not in repr(a)


@pytest.mark.parametrize("part", ["wrapped_key", "ciphertext"])
def test_flipping_any_single_byte_is_detected(part: str) -> None:
    ring = Keyring(KEK)
    identity = aad("account", "1")
    sealed = seal(ring, identity, b"a secret worth protecting")
    blob = getattr(sealed, part)
    for i in range(len(blob)):
        flipped = bytearray(blob)
        flipped[i] ^= 0x01
        with pytest.raises(TamperedRecord):
            unseal(ring, identity, replace(sealed, **{part: bytes(flipped)}))


def test_truncated_or_foreign_format_is_detected() -> None:
    ring = Keyring(KEK)
    sealed = seal(ring, aad("x"), b"secret")
    for broken in (sealed.ciphertext[:-1], sealed.ciphertext[:10], b"\x02" + sealed.ciphertext[1:]):
        with pytest.raises(TamperedRecord):
            unseal(ring, aad("x"), replace(sealed, ciphertext=broken))


def test_swapping_two_records_ciphertexts_or_keys_is_detected() -> None:
    ring = Keyring(KEK)
    one, two = aad("account", "1", "user-a"), aad("account", "2", "user-b")
    a, b = seal(ring, one, b"token-of-a"), seal(ring, two, b"token-of-b")
    for moved in (
        Sealed(a.kek_id, a.wrapped_key, b.ciphertext),
        Sealed(a.kek_id, b.wrapped_key, a.ciphertext),
        Sealed(b.kek_id, b.wrapped_key, b.ciphertext),
    ):
        with pytest.raises(TamperedRecord):
            unseal(ring, one, moved)


def test_identity_encoding_is_unambiguous() -> None:
    assert aad("a|b", "c") != aad("a", "b|c")
    assert aad("a", None) != aad("a", "")


def test_rewrap_changes_only_the_wrapped_key() -> None:
    old = Keyring(KEK)
    sealed = seal(old, aad("r"), b"payload")
    new = Keyring(OTHER, [KEK])
    moved = rewrap(new, aad("r"), sealed)
    assert moved.kek_id == key_id(OTHER) != sealed.kek_id
    assert moved.ciphertext == sealed.ciphertext and moved.wrapped_key != sealed.wrapped_key
    assert unseal(Keyring(OTHER), aad("r"), moved) == b"payload"
    assert rewrap(new, aad("r"), moved) is moved
    with pytest.raises(MissingKey) as missing:
        unseal(Keyring(OTHER), aad("r"), sealed)
    assert missing.value.data == {"kek_id": key_id(KEK)}
    with pytest.raises(TamperedRecord):
        rewrap(new, aad("other"), sealed)


def test_keys_must_be_32_bytes_and_ids_reveal_nothing() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        Keyring(b"short")
    assert len(key_id(KEK)) == 16 and key_id(KEK) != key_id(OTHER)
    assert KEK.hex()[:16] != key_id(KEK)
    assert "Keyring(active=" in repr(Keyring(KEK)) and KEK.hex() not in repr(Keyring(KEK))


def test_parse_key_accepts_raw_hex_and_base64_and_never_echoes() -> None:
    assert parse_key(KEK, "k") == KEK
    assert parse_key(KEK.hex().encode() + b"\n", "k") == KEK
    assert parse_key(base64.b64encode(KEK), "k") == KEK
    assert parse_key(base64.urlsafe_b64encode(KEK).rstrip(b"="), "k") == KEK
    with pytest.raises(ConfigError) as bad:
        parse_key(b"not-a-key-but-a-secret-looking-value", "vault.key")
    assert "secret-looking" not in str(bad.value) and "vault.key" in str(bad.value)


def _master(tmp_path: Path, key: bytes = KEK) -> Path:
    path = tmp_path / "master.key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key)
    return path


def test_key_sources_master_file_env_and_secret_file(tmp_path: Path) -> None:
    _master(tmp_path)
    assert KeySource(VaultSettings(), tmp_path).keyring().active_id == key_id(KEK)
    env = VaultSettings(key=SecretStr(base64.b64encode(OTHER).decode()), decrypt_keys=[SecretStr(KEK.hex())])
    ring = KeySource(env, tmp_path).keyring()
    assert ring.active_id == key_id(OTHER) and set(ring.ids) == {key_id(OTHER), key_id(KEK)}
    secret_file = tmp_path / "kek.txt"
    secret_file.write_text(OTHER.hex() + "\n")
    secret_file.chmod(0o600)
    assert KeySource(VaultSettings(key_file=secret_file), tmp_path).keyring().active_id == key_id(OTHER)
    secret_file.chmod(0o644)
    with pytest.raises(ConfigError, match="readable by others"):
        KeySource(VaultSettings(key_file=secret_file), tmp_path).keyring()
    with pytest.raises(ConfigError, match="cannot read"):
        KeySource(VaultSettings(key_file=tmp_path / "missing"), tmp_path).keyring()


def test_rotating_the_master_file_keeps_the_old_key_and_is_picked_up(tmp_path: Path) -> None:
    _master(tmp_path)
    source = KeySource(VaultSettings(), tmp_path)
    watcher = KeySource(VaultSettings(), tmp_path)  # another process, already running
    assert watcher.keyring().active_id == key_id(KEK)
    old, new = source.rotate_master_key()
    assert old == key_id(KEK) and new != old
    assert (tmp_path / "master.key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "vault-keyring.json").stat().st_mode & 0o777 == 0o600
    ring = watcher.keyring()
    assert ring.active_id == new and old in ring.ids
    assert KEK.hex() not in (tmp_path / "vault-keyring.json").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    operator = KeySource(VaultSettings(key=SecretStr(KEK.hex())), tmp_path)
    assert not operator.rotatable
    with pytest.raises(ConfigError, match="managed outside"):
        operator.rotate_master_key()


def test_a_malformed_keyring_file_stops_with_a_message(tmp_path: Path) -> None:
    _master(tmp_path)
    ring_file = tmp_path / "vault-keyring.json"
    fd = os.open(ring_file, os.O_WRONLY | os.O_CREAT, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write('{"retired": [{"id": "0000000000000000", "key": "' + base64.b64encode(OTHER).decode() + '"}]}')
    with pytest.raises(ConfigError, match="does not match"):
        KeySource(VaultSettings(), tmp_path).keyring()
    ring_file.write_text("{not json")
    with pytest.raises(ConfigError, match="malformed"):
        KeySource(VaultSettings(), tmp_path).keyring()
