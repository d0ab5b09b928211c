"""MCP Tasks, below the protocol: long work that outlives the request that started it.

A task is a row in the database (`_store`: owner, status, the request's result or error as JSON,
timestamps, ttl) and, while it works, a job in one process's `TaskRunner` (`_runner`), which stops it
on cancellation, keeps its lease, and fails the tasks of processes that died. Nothing here knows the
MCP wire format: the protocol layer hands in jobs that return the request's result in wire form.
"""

from pathlib import Path

from ._runner import Job, Listener, TaskControl, TaskRunner
from ._store import LIVE, TERMINAL, Outcome, Owner, Status, TaskRecord, TaskStore

MIGRATIONS = Path(__file__).parent / "migrations"
"""The tasks branch of Alembic revisions, for `mcpist.storage.migrate.upgrade`."""

__all__ = [
    "LIVE",
    "MIGRATIONS",
    "TERMINAL",
    "Job",
    "Listener",
    "Outcome",
    "Owner",
    "Status",
    "TaskControl",
    "TaskRecord",
    "TaskRunner",
    "TaskStore",
]
