"""The command line, called in process through `mcpist.cli.main`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpist.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_token_create_prints_token_alone_on_last_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "token", "create", "--name", "laptop", "--data-dir", str(tmp_path))
    assert code == 0
    token = out.strip().splitlines()[-1]
    assert token.startswith("mcpist_") and " " not in token and len(token) > 40
    assert token not in (tmp_path / "mcpist.db").read_bytes().decode("latin-1")

    code, out, _ = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 0
    assert "laptop" in out and "active" in out and token not in out

    code, _, err = run(capsys, "token", "create", "--name", "laptop", "--data-dir", str(tmp_path))
    assert code == 1 and "already exists" in err

    code, out, _ = run(capsys, "token", "revoke", "laptop", "--data-dir", str(tmp_path))
    assert code == 0 and "Revoked" in out
    code, out, _ = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert "revoked" in out

    code, _, err = run(capsys, "token", "revoke", "laptop", "--data-dir", str(tmp_path))
    assert code == 1 and "no active token named 'laptop'" in err


def test_token_name_is_validated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "token", "create", "--name", "bad name!", "--data-dir", str(tmp_path))
    assert code == 1 and "invalid token name" in err


def test_bad_setting_stops_with_one_message_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPIST_BATCH__MAX_CONCURRENCY", "0")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "batch.max_concurrency" in err and "MCPIST_BATCH__MAX_CONCURRENCY" in err


def test_unknown_toml_setting_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mcpist.toml").write_text("prot = 1\n[batch]\nmax_tasks = 5\n", encoding="utf-8")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "unknown setting 'prot'" in err


def test_bad_database_url(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPIST_DATABASE_URL", "mysql://x@localhost/db")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "database_url" in err


def test_unknown_module_in_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPIST_MODULES__DISABLED", '["nosuch"]')
    code, _, err = run(capsys, "modules", "--data-dir", str(tmp_path))
    assert code == 2 and "nosuch" in err


def test_modules_lists_tools_with_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "modules", "--json", "--data-dir", str(tmp_path))
    assert code == 0
    rows = json.loads(out)
    assert {"module": "context", "tool": "add_turn"}.items() <= next(r for r in rows if r["tool"] == "add_turn").items()
    assert all(r["bytes"] > 0 and r["tokens"] == (r["bytes"] + 3) // 4 for r in rows)
    code, out, _ = run(capsys, "modules", "--data-dir", str(tmp_path))
    assert "context —" in out and "bytes" in out


def test_master_key_readable_by_others_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "token", "list", "--data-dir", str(tmp_path))[0] == 0
    (tmp_path / "master.key").chmod(0o644)
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "chmod 600" in err


def test_bad_module_setting_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mcpist.toml").write_text("[modules.settings.context]\nbogus = 1\n", encoding="utf-8")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "modules.settings.context.bogus" in err


def test_user_add_list_passwd(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    d = str(tmp_path)
    assert run(capsys, "role", "create", "reader", "--allow-read", "context", "--data-dir", d)[0] == 0
    code, out, _ = run(capsys, "user", "add", "ada@example.com", "--data-dir", d)
    assert code == 0 and "Added admin ada@example.com" in out  # the first user takes over the owner
    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse battery staple\n"))
    code, out, _ = run(
        capsys, "user", "add", "bob@example.com", "--role", "reader", "--password-stdin", "--data-dir", d
    )
    assert code == 0 and "Added user bob@example.com with roles reader." in out
    code, out, _ = run(capsys, "user", "list", "--data-dir", d)
    bob = next(line for line in out.splitlines() if line.startswith("bob@"))
    assert "user" in bob and "yes" in bob and "reader" in bob
    ada = next(line for line in out.splitlines() if line.startswith("ada@"))
    assert "admin" in ada and "no " in ada
    code, _, err = run(capsys, "user", "add", "bob@example.com", "--data-dir", d)
    assert code == 1 and "exists" in err
    monkeypatch.setattr("sys.stdin", io.StringIO("another long passphrase\n"))
    code, out, _ = run(capsys, "user", "passwd", "ada@example.com", "--data-dir", d)
    assert code == 0 and "Password set for ada@example.com." in out
    assert "correct horse" not in (tmp_path / "mcpist.db").read_bytes().decode("latin-1")


def test_memory_export_import_reembed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(
        '{"type": "header", "format": "mcpist-memory", "version": 1, "namespace": "notes"}\n'
        '{"type": "memo", "memo_id": "0b9e2a52-55c8-4d7a-9c37-1c2f2bd1e8a1", "title": "t",'
        ' "content": "提出期限は金曜日", "metadata": {"k": 1}}\n',
        encoding="utf-8",
    )
    d = str(tmp_path / "data")
    code, out, _ = run(capsys, "memory", "import", str(source), "--data-dir", d)
    assert code == 0 and "Imported 1 new" in out
    exported = tmp_path / "out.jsonl"
    code, out, _ = run(capsys, "memory", "export", "--namespace", "notes", "--output", str(exported), "--data-dir", d)
    assert code == 0 and "Exported 1 memos" in out
    lines = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert lines[1]["content"] == "提出期限は金曜日" and lines[1]["metadata"] == {"k": 1}
    code, out, _ = run(capsys, "memory", "reembed", "--all", "--data-dir", d)
    assert code == 0 and "Re-embedded 1 memos" in out
    code, _, err = run(capsys, "memory", "import", str(tmp_path / "missing.jsonl"), "--data-dir", d)
    assert code == 1 and "No such file or directory" in err and "missing.jsonl" in err
