"""The MCP server over stdio: the official SDK's low-level ``Server`` around a ``Service``.

    tools      search(query, k), ask(question): input schemas from ``tools`` (closed:
               additionalProperties false), results are the CLI's --json objects, as
               structured content and as JSON text
    resources  ragcli://documents: the documents the principal may see (IDs and titles)

A bad argument, an unknown tool or a failing call is a tool result with
``isError`` set and one plain line; the server goes on serving. Calls run on a
worker thread (one at a time: the index and the model are shared), so the
protocol loop stays responsive. stdout carries the protocol only (the SDK
points fd 1 at stderr while serving); logs go to stderr.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from .. import __version__
from ..answer.outcome import AnswerJson
from ..errors import RagcliError, error_line
from ..search.response import SearchJson
from .service import DOCUMENTS_URI, DocumentsJson, Service, ToolReply, log
from .tools import INPUTS, TITLES, ToolName, description, input_schema

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from mcp.server import ServerRequestContext

RESOURCE_NOT_FOUND = -32002
"""The MCP specification's error code for an unknown resource URI."""
OUTPUTS: dict[ToolName, type[Any]] = {"search": SearchJson, "ask": AnswerJson}


def output_schema(model: type[Any]) -> dict[str, Any]:
    """The top level of the ``--json`` object: each field and its
    JSON type, nested objects and list items not spelled out.

    Generated from the same pydantic model that serialises the result. Shallow on purpose: a client
    validates every result against it, and checking the full schema costs the Python SDK's client
    (jsonschema) ~3.5 ms per search of 10 passages, twice a ``ping`` round trip.
    """
    full = model.model_json_schema(mode="serialization")

    def top(node: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in node:
            return {"type": "object"}
        if "anyOf" in node:
            return {"anyOf": [top(n) for n in node["anyOf"]]}
        kept = {k: v for k, v in node.items() if k in ("type", "format", "enum", "const")}
        return kept or {}

    properties = {name: top(node) for name, node in full["properties"].items()}
    return {"type": "object", "properties": properties, "required": list(full.get("required", []))}


def tool_list() -> list[types.Tool]:
    """The tools as ``tools/list`` shows them, generated from their input and output models."""
    return [
        types.Tool(
            name=name,
            title=TITLES[name],
            description=description(name),
            input_schema=input_schema(INPUTS[name]),
            output_schema=output_schema(OUTPUTS[name]),
            annotations=types.ToolAnnotations(
                read_only_hint=True, destructive_hint=False, idempotent_hint=name == "search", open_world_hint=False
            ),
        )
        for name in INPUTS
    ]


def tool_result(reply: ToolReply) -> types.CallToolResult:
    """A tool call's reply as MCP sends it: the one error line, or the ``--json`` object as data and as text."""
    if reply.error is not None:
        return types.CallToolResult(content=[types.TextContent(text=error_line(reply.error))], is_error=True)
    # The --json object as the CLI serialises it (the wire model's own JSON), as data and as text.
    return types.CallToolResult(content=[types.TextContent(text=reply.text or "")], structured_content=reply.data)


def documents_resource(title: str, day: str) -> types.Resource:
    """The one resource as ``resources/list`` shows it: ``title`` says whose documents, ``day`` on which day."""
    return types.Resource(
        uri=DOCUMENTS_URI,
        name="documents",
        title=title,
        description='JSON: {"documents": [{"id", "title"}]}, each document with at least one passage this user may see '
        f"{day}.",
        mime_type="application/json",
    )


def listing_handlers(resource: types.Resource) -> dict[str, Any]:
    """``tools/list`` and ``resources/list``, the same in ``ragcli mcp`` and ``serve``'s ``/mcp``: the ``Server``
    keyword arguments that install them."""
    tools = tool_list()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[resource])

    return {"on_list_tools": list_tools, "on_list_resources": list_resources}


async def read_documents(uri: object, listing: Callable[[], Awaitable[DocumentsJson]]) -> types.ReadResourceResult:
    """``resources/read``: the documents resource, listed by ``listing`` (a thread here, a worker of ``serve``'s pool
    there). Any other URI is the protocol's "not found"; a ragcli error (a damaged index) is this read's error, an
    unforeseen one is logged and told in general words; the server goes on serving either way."""
    if str(uri) != DOCUMENTS_URI:
        raise MCPError(code=RESOURCE_NOT_FOUND, message="Resource not found", data={"uri": str(uri)[:200]})
    try:
        found = await listing()
    except MCPError:
        raise  # the caller's own refusal (serve: overloaded), as it worded it
    except RagcliError as exc:
        raise MCPError(code=types.INTERNAL_ERROR, message=exc.message) from None
    except Exception:
        log.exception(json.dumps({"event": "documents", "ok": False, "error": "internal error"}))
        raise MCPError(
            code=types.INTERNAL_ERROR, message="internal error; the server log (stderr) has the details"
        ) from None
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(uri=DOCUMENTS_URI, mime_type="application/json", text=found.model_dump_json())
        ]
    )


def build_server(service: Service) -> Server[Any]:
    """The low-level SDK server whose handlers call ``service``."""
    principal = service.principal
    resource = documents_resource(f"Documents {principal.user} may see in {principal.tenant}", "on the as-of day")

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        reply = await anyio.to_thread.run_sync(service.call, params.name, params.arguments)
        return tool_result(reply)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await read_documents(params.uri, lambda: anyio.to_thread.run_sync(service.documents))

    server: Server[Any] = Server(
        "ragcli",
        version=__version__,
        title="ragcli",
        instructions=(
            f"Searches and answers from the documents that {principal.user} may see in tenant {principal.tenant}. "
            "Use `search` for ranked passages and `ask` for an answer whose citations code has checked. "
            "The user, tenant and date are fixed by the server; no argument changes them."
        ),
        on_call_tool=call_tool,
        on_read_resource=read_resource,
        **listing_handlers(resource),
    )
    return server


async def _serve(service: Service) -> None:
    server = build_server(service)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(service: Service) -> None:
    """Serve ``service`` over stdin/stdout until the client closes stdin."""
    try:
        anyio.run(_serve, service)
    finally:
        service.close()
        log.info(json.dumps({"event": "stop"}))
