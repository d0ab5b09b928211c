"""`mcpist memory reembed | export | import`: the module's maintenance commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mcpist.modules import CommandContext

from . import admin
from .settings import MemorySettings
from .tools import module

Ctx = CommandContext[MemorySettings]


def _progress_bar(ctx: Ctx, description: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress(done, total) callback drawing a bar on stderr, and a function closing it."""
    bar = tqdm(desc=description, unit="memo", file=ctx.stderr, disable=None)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    return progress, bar.close


def _user_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--user", metavar="EMAIL", help="whose memos (default: the owner)")


async def _owner(ctx: Ctx, args: argparse.Namespace) -> str:
    return await ctx.user_id(args.user) if args.user else ctx.owner_id


def _reembed_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true", help="every memo, not only those of another model")


@module.command("reembed", help="embed memos again with the configured model", arguments=_reembed_args)
async def reembed(ctx: Ctx, args: argparse.Namespace) -> None:
    progress, done = _progress_bar(ctx, "memory reembed")
    try:
        count = await admin.reembed(ctx.engine, ctx.settings, all_memos=args.all, progress=progress)
    finally:
        done()
    print(f"Re-embedded {count} memos. Restart a running server to load the new model.", file=ctx.stdout)


def _export_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--namespace", required=True)
    _user_arg(parser)
    parser.add_argument("--output", type=Path, help="file to write (default: stdout)")
    parser.add_argument("--with-embeddings", action="store_true")


@module.command("export", help="write a namespace as JSONL", arguments=_export_args)
async def export(ctx: Ctx, args: argparse.Namespace) -> None:
    owner_id = await _owner(ctx, args)
    progress, done = _progress_bar(ctx, "memory export")
    out: Any = args.output.open("w", encoding="utf-8") if args.output else ctx.stdout
    try:
        count = await admin.export_namespace(
            ctx.engine,
            ctx.settings,
            owner_id=owner_id,
            namespace=args.namespace,
            out=out,
            include_embeddings=args.with_embeddings,
            progress=progress,
        )
    finally:
        done()
        if args.output:
            out.close()
    # the memos may be on stdout: the summary goes to stderr then
    print(f"Exported {count} memos of namespace {args.namespace!r}.", file=ctx.stdout if args.output else ctx.stderr)


def _import_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path)
    parser.add_argument("--namespace", help="import into this namespace instead of the file's")
    _user_arg(parser)


@module.command("import", help="read a namespace from JSONL", arguments=_import_args)
async def import_(ctx: Ctx, args: argparse.Namespace) -> None:
    owner_id = await _owner(ctx, args)
    progress, done = _progress_bar(ctx, "memory import")
    try:
        with args.file.open(encoding="utf-8") as src:
            report = await admin.import_namespace(
                ctx.engine, ctx.settings, owner_id=owner_id, src=src, namespace=args.namespace, progress=progress
            )
    finally:
        done()
    print(
        f"Imported {report.created} new and {report.updated} updated memos, {report.relations} relations.",
        file=ctx.stdout,
    )
