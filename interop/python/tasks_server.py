"""An MCP server on the Python SDK (mcp 2.3.0) that runs a tool as a task of the 2026-07-28 tasks extension
(io.modelcontextprotocol/tasks), written on the SDK's extension API (SEP-2133: Extension, MethodBinding,
intercept_tool_call, require_client_extension), for mcp-host's interoperability test of long calls.

stdio only. Tools: crunch(steps, ms) runs as a task when the request declares the extension: its status
message says each step, tasks/get reports it, tasks/cancel stops it; cancelled() lists the ids of the tasks
tasks/cancel stopped, so that a test can see the cancel on the server's side.
"""
import asyncio
import uuid
from datetime import datetime, timezone
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.server import require_client_extension
from mcp_types import RequestParams

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 50


def now() -> str:
    return datetime.now(timezone.utc).isoformat()


class TaskParams(RequestParams):
    taskId: str


class Tasks(Extension):
    identifier = TASKS

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self.runners: dict[str, asyncio.Task[None]] = {}
        self.stopped: list[str] = []

    def methods(self):
        return (
            MethodBinding("tasks/get", TaskParams, self.get),
            MethodBinding("tasks/cancel", TaskParams, self.cancel),
        )

    def view(self, task_id: str) -> dict[str, Any]:
        task = self.tasks.get(task_id)
        if task is None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32602, message="Failed to retrieve task: Task not found")
        return {key: value for key, value in task.items() if value is not None}

    async def get(self, ctx, params: TaskParams):
        require_client_extension(ctx, TASKS)
        return self.view(params.taskId)

    async def cancel(self, ctx, params: TaskParams):
        require_client_extension(ctx, TASKS)
        self.view(params.taskId)
        runner = self.runners.get(params.taskId)
        if runner is not None and not runner.done():
            runner.cancel()
        return {}

    async def intercept_tool_call(self, params, ctx, call_next):
        if params.name != "crunch":
            return await call_next(ctx)
        require_client_extension(ctx, TASKS)
        arguments = params.arguments or {}
        steps, ms = int(arguments.get("steps", 3)), int(arguments.get("ms", 100))
        task_id = str(uuid.uuid4())
        created = now()
        self.tasks[task_id] = {"taskId": task_id, "status": "working", "statusMessage": "queued",
                               "createdAt": created, "lastUpdatedAt": created, "ttlMs": 600000,
                               "pollIntervalMs": POLL_MS}
        self.runners[task_id] = asyncio.create_task(self.run(task_id, steps, ms))
        return {"resultType": "task", **self.tasks[task_id]}

    async def run(self, task_id: str, steps: int, ms: int) -> None:
        task = self.tasks[task_id]
        try:
            for step in range(1, steps + 1):
                await asyncio.sleep(ms / 1000)
                task.update(statusMessage=f"step {step} of {steps}", lastUpdatedAt=now())
            task.update(status="completed", statusMessage=None, lastUpdatedAt=now(),
                        result={"content": [{"type": "text", "text": f"crunched {steps}"}], "isError": False})
        except asyncio.CancelledError:
            self.stopped.append(task_id)
            task.update(status="cancelled", statusMessage="cancelled by the client", lastUpdatedAt=now())


tasks = Tasks()
app = MCPServer("tasks-server", version="1.0.0", extensions=[tasks])


@app.tool()
def crunch(steps: int = 3, ms: int = 100) -> str:
    """Crunches in steps; a task when the client declares the tasks extension."""
    return f"crunched {steps}"


@app.tool()
def cancelled() -> str:
    """The ids of the tasks that tasks/cancel stopped, comma-separated."""
    return ",".join(tasks.stopped)


if __name__ == "__main__":
    app.run()
