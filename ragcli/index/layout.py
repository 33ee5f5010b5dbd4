"""Where a tenant's index lives on disk. The only module that knows the names.

    <root>/<tenant>/
        CURRENT          name of the published generation, replaced atomically
        lock             flock(2) lock of the one writer
        gen-<stamp>/     one complete, immutable generation:
            manifest.json    format, chunker version, model id + sha256, counts, checksums (small: read on every open)
            documents.json   what each source document contributed (read by ingest and status only)
            passages.jsonl   one passage record per row; offsets.npy indexes it
            embeddings.npy   float32 (rows, dim), opened memory-mapped
            acl.npy          packed bits (rows, ACL entries)
            valid_from.npy   int32 day numbers (inclusive), int32 min where open
            valid_until.npy  int32 day numbers (exclusive), int32 max where open
            tantivy/         BM25 index of the same rows
        .build-<name>/   a generation being written (garbage if its writer died)
        .CURRENT.<rand>  a CURRENT replacement not yet renamed into place
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from ..errors import IndexCorruptError, InputError
from ..principal import validate_tenant

CURRENT = "CURRENT"
MANIFEST = "manifest.json"
DOCUMENTS = "documents.json"
PASSAGES = "passages.jsonl"
OFFSETS = "offsets.npy"
EMBEDDINGS = "embeddings.npy"
ACL = "acl.npy"
VALID_FROM = "valid_from.npy"
VALID_UNTIL = "valid_until.npy"
BM25_DIRECTORY = "tantivy"
LOCK = "lock"
GEN_PREFIX = "gen-"
BUILD_PREFIX = ".build-"
CURRENT_TMP_PREFIX = f".{CURRENT}."


def tenant_dir(root: Path, tenant: str) -> Path:
    """The tenant's directory; the tenant name is checked here, where it becomes a path."""
    return root / validate_tenant(tenant)


def published_dir(root: Path, tenant: str) -> Path:
    """The tenant's directory if it has a published generation; else a clear InputError."""
    directory = tenant_dir(root, tenant)
    if not (directory / CURRENT).exists():
        raise InputError(f"unknown tenant '{tenant}': no index under {root}; run: ragcli ingest PATH --tenant {tenant}")
    return directory


def current_name(directory: Path) -> str | None:
    """The name CURRENT holds, or None when it is missing or unreadable."""
    try:
        return (directory / CURRENT).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def current_generation(directory: Path) -> Path:
    """The published generation's directory; IndexCorruptError if CURRENT is damaged."""
    tenant = directory.name
    try:
        name = (directory / CURRENT).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        raise IndexCorruptError.damaged(tenant, "CURRENT pointer unreadable") from None
    if not name.startswith(GEN_PREFIX) or "/" in name or not (directory / name).is_dir():
        raise IndexCorruptError.damaged(tenant, f"CURRENT points at a missing generation {name[:40]!r}")
    return directory / name


def list_tenants(root: Path) -> list[str]:
    """Tenants under ``root`` that have a published generation."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / CURRENT).exists())


def new_generation_name() -> str:
    return f"{GEN_PREFIX}{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{secrets.token_hex(4)}"


def generations(directory: Path) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.startswith(GEN_PREFIX)]


def is_leftover(path: Path) -> bool:
    """A half-built generation or an unrenamed CURRENT replacement of a writer that died."""
    return path.name.startswith(BUILD_PREFIX) or path.name.startswith(CURRENT_TMP_PREFIX)


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
