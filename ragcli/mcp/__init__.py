"""The MCP server: ``search``, ``ask`` and the document list for one principal, over stdio.

    tools      the tool input models (closed schemas) and the one argument parser
    service    ``Service``: the principal, the open index and model; tool calls -> the CLI's --json objects
    server     the official SDK's low-level ``Server`` over stdio around a ``Service``

Security is code, not prompt: the principal comes from the user file when the
server starts and no tool argument can name a tenant, user, group or date.
``ragcli.mcp`` sits beside ``ragcli.cli`` (top layer) and imports nothing of it.
Imports are lazy: the SDK loads only when the server is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import export_names, lazy_exports

if TYPE_CHECKING:  # the exports, once: "X as X" for type checkers, read by ``lazy`` for the runtime
    from .server import build_server as build_server
    from .server import serve as serve
    from .service import Service as Service

__all__ = export_names(__file__)


__getattr__ = lazy_exports(__name__, __file__)
