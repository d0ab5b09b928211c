"""The `batch` meta-tool's engine: JSONL tasks, run concurrently along their dependencies.

Pure and independent of MCP: the protocol layer supplies a `TaskRunner` (and a
`Precheck`) and turns the `BatchResult` or the raised `MCPistError` into a response.
"""

from ._guide import DESCRIPTION, GUIDE
from ._model import BatchLimits, Precheck, Task, TaskRunner
from ._parse import parse_batch
from ._result import BatchResult
from ._run import run_batch

__all__ = [
    "DESCRIPTION",
    "GUIDE",
    "BatchLimits",
    "BatchResult",
    "Precheck",
    "Task",
    "TaskRunner",
    "parse_batch",
    "run_batch",
]
