"""``/mcp``: the MCP server over Streamable HTTP, each request's principal from its own bearer token.

The same tools, schemas and resource as ``ragcli mcp`` (``ragcli.mcp``'s
``listing_handlers``, ``read_documents`` and ``Service``), on the SDK's low-level ``Server`` and its
``StreamableHTTPSessionManager``. Unlike stdio, no user is fixed at start:
each tool call reads the principal of the credential that came with it
(``get_access_token()``, the SDK's request-scoped token), and the SDK binds
each session to the credential that opened it, so one client cannot ride on
another's session. Calls run on the worker pool like ``/v1`` requests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from .. import __version__
from ..errors import error_line
from ..mcp.server import documents_resource, listing_handlers, read_documents, tool_result
from ..mcp.service import DocumentsJson, Service, ToolReply
from .credentials import PrincipalToken
from .limits import Overloaded, Pool

if TYPE_CHECKING:
    from mcp.server import ServerRequestContext

    from ..principal import Principal
    from .metrics import Metrics
    from .workers import Worker

INSTRUCTIONS = (
    "Searches and answers from the documents that the signed-in user may see. Use `search` for ranked passages and "
    "`ask` for an answer whose citations code has checked. The user, tenant and groups come from the bearer token; "
    "no argument changes them."
)
OVERLOADED = "the server is busy; try again in a moment"


def _principal() -> Principal:
    token = get_access_token()
    if not isinstance(token, PrincipalToken):  # RequireAuthMiddleware lets no such request in; refuse regardless
        raise MCPError(code=types.INVALID_REQUEST, message="authentication required")
    return token.principal


SERVICES_PER_WORKER = 256


def _service(principal: Principal, worker: Worker) -> Service:
    """``ragcli mcp``'s ``Service`` for this principal over this worker's open index and model, kept for the
    principal's next call (its scope and document list are cached per generation); the least recent leaves."""
    key = ("mcp", principal)
    service = worker.memo.get(key)
    if service is None:
        service = worker.memo[key] = Service(principal, worker.retriever, answerer=worker.answerer)
        if len(worker.memo) > SERVICES_PER_WORKER:
            worker.memo.popitem(last=False)
    else:
        worker.memo.move_to_end(key)
    assert isinstance(service, Service)
    return service


def build_mcp_server(pool: Pool, metrics: Metrics) -> Server[Any]:
    resource = documents_resource("Documents the signed-in user may see", "today")

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        principal = _principal()
        try:
            reply: ToolReply = await pool.run(lambda w: _service(principal, w).call(params.name, params.arguments))
        except Overloaded:
            return types.CallToolResult(content=[types.TextContent(text=error_line(OVERLOADED))], is_error=True)
        if reply.error is None and reply.data is not None and params.name == "ask":
            metrics.dispositions.labels(
                disposition=str(reply.data.get("disposition")), reason=str(reply.data.get("reason") or "")
            ).inc()
        return tool_result(reply)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        principal = _principal()

        async def listing() -> DocumentsJson:
            try:
                return await pool.run(lambda w: _service(principal, w).documents())
            except Overloaded:
                raise MCPError(code=types.INTERNAL_ERROR, message=OVERLOADED) from None

        return await read_documents(params.uri, listing)

    return Server(
        "ragcli",
        version=__version__,
        title="ragcli",
        instructions=INSTRUCTIONS,
        on_call_tool=call_tool,
        on_read_resource=read_resource,
        **listing_handlers(resource),
    )


__all__ = ["build_mcp_server"]
