"""Writing test inputs (documents, user files, PDFs, generated corpora) and reading the index back
through ragcli's public paths."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from .paths import USERS

# A small vocabulary: every generated text shares words with many others, so
# any query built from it matches a good share of the corpus in every ranker.
WORDS = (
    "refund invoice billing account policy support ticket escalation server deploy backup restore "
    "password token rotate webhook retry latency quota region cluster storage archive audit report "
    "budget salary contract vendor laptop office travel expense approval manager review release"
).split()


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def markdown(meta: dict[str, Any] | None, body: str) -> str:
    """A Markdown file with YAML front matter (none when meta is None)."""
    if meta is None:
        return body
    return "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n" + body


def write_markdown(path: Path, meta: dict[str, Any] | None, body: str) -> Path:
    return write(path, markdown(meta, body))


def write_user(path: Path, user: str, tenant: str, groups: Sequence[str] = ()) -> Path:
    """A user file, as ``--as`` reads it."""
    return write(path, json.dumps({"user": user, "tenant": tenant, "groups": list(groups)}))


def user(name: str):  # type: ignore[no-untyped-def]
    """A sample principal: alice, bob, carol, hana (acme), gus, gina (globex)."""
    from ragcli import load_principal

    return load_principal(USERS / f"{name}.json")


def scope(name: str, as_of: dt.date):  # type: ignore[no-untyped-def]
    """A sample principal on ``as_of``."""
    from ragcli import Scope

    return Scope.of(user(name), as_of)


def make_pdf(pages: list[str], outline: Sequence[tuple[str, int, int | None]] = ()) -> bytes:
    """A small valid PDF written with pypdf: each page's lines (split at "\\n") in Helvetica, one under the other.

    ``outline`` adds bookmarks in order: (title, page index, index of the parent bookmark in
    ``outline`` or None for a top-level one). The PDF tests' own builder (``pdf_files``, which also draws
    tables) writes it.
    """
    from .pdf_files import make_pdf as build

    return build(pages, outline)


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def write_round(folder: Path, round_no: int, n: int, *, seed: int | None = None, prefix: str = "r") -> set[str]:
    """Replace the Markdown files of ``folder`` with ``n`` one-passage docs of one "round".

    Every doc id carries the round (``r07-doc-012``) and so does the title, so
    a round's passages are told apart from any other round's by ID, and every
    round's text is new (it must be embedded). File names stay the same from
    round to round, as when a team edits its documents. Returns the passage IDs
    a complete ingest of the folder produces.
    """
    rng = random.Random(seed if seed is not None else round_no)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    ids = set()
    for i in range(n):
        doc_id = f"{prefix}{round_no:02d}-doc-{i:03d}"
        meta = {"id": doc_id, "version": "1", "title": f"Round {round_no} note {i}"}
        body = sentence(rng, 12) + "\n"
        write_markdown(folder / f"doc{i:03d}.md", meta, body)
        ids.add(f"{doc_id}@{version_of('1', markdown_body(body))}#top")
    return ids


def markdown_body(body: str) -> str:
    """The text of a file ``markdown(meta, body)`` wrote, as the loader sees it after the front matter."""
    return "\n" + body


def version_of(declared: str | None, text: str) -> str:
    """A passage ID's version part, computed here from its definition: the declared version and the first
    6 hex digits of the sha256 of the document's text (10 digits alone when nothing is declared)."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f"{declared}.{digest[:6]}" if declared else digest[:10]


# --------------------------------------------------------------------------- reading the index back


def status_of(root: Path, tenant: str):  # type: ignore[no-untyped-def]
    """The tenant's audit (every checksum verified), against the bundled model."""
    from ragcli.embedder import Embedder
    from ragcli.index import audit_tenant

    embedder = Embedder()
    return audit_tenant(root, tenant, model_id=embedder.model_id, model_sha256=embedder.sha256)


def passage_ids(root: Path, tenant: str) -> set[str]:
    """IDs of every passage of the published generation, as its documents.json lists them (checksum-verified)."""
    from ragcli.index import TenantIndex
    from ragcli.index.manifest import read_documents

    with TenantIndex.open(root, tenant, verify=True) as index:
        return {pid for doc in read_documents(index.path, index.manifest) for pid in doc.passage_ids}


def audit_counts(root: Path, tenant: str) -> tuple[int, int]:
    a = status_of(root, tenant)
    return a.orphan_vectors, a.stale_entries


def build_dirs(root: Path, tenant: str) -> list[str]:
    tenant_dir = root / tenant
    return sorted(p.name for p in tenant_dir.iterdir() if p.name.startswith(".build-")) if tenant_dir.is_dir() else []


def generation_dirs(root: Path, tenant: str) -> list[str]:
    tenant_dir = root / tenant
    return sorted(p.name for p in tenant_dir.iterdir() if p.name.startswith("gen-")) if tenant_dir.is_dir() else []


def current_name(root: Path, tenant: str) -> str | None:
    try:
        return (root / tenant / "CURRENT").read_text(encoding="utf-8").strip()
    except OSError:
        return None


def all_passages(root: Path, tenant: str) -> list[Any]:
    """Every passage of the published generation, read straight from its passages.jsonl.

    Deliberately not through ragcli's reader: the tests hold the index's
    permission filter against this independent, unfiltered copy.
    """
    from ragcli import Passage

    generation = root / tenant / str(current_name(root, tenant))
    out = []
    for line in (generation / "passages.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("text_hash")
        for key in ("acl", "heading_path", "pages"):
            if key in record:
                record[key] = tuple(record[key])
        for key in ("effective_from", "superseded_on"):
            record[key] = dt.date.fromisoformat(record[key]) if record[key] else None
        out.append(Passage(**record))
    return out


# --------------------------------------------------------------------------- checking text


def visible_to(passage: Any, principal: Any, as_of: dt.date) -> bool:
    """Independent restatement of the permission rule, from the passage's own fields."""
    in_time = (passage.effective_from is None or passage.effective_from <= as_of) and (
        passage.superseded_on is None or as_of < passage.superseded_on
    )
    return passage.tenant == principal.tenant and bool(set(passage.acl) & principal.acl_tokens()) and in_time


def long_sentences(text: str, min_words: int = 6) -> list[str]:
    """Sentences (and lines) of a passage with at least ``min_words`` words, whitespace-collapsed."""
    out = []
    for line in text.split("\n"):
        for piece in re.split(r"(?<=[.!?])\s+", line):
            piece = " ".join(piece.strip(" |-*").split())
            if len(piece.split()) >= min_words:
                out.append(piece)
    return out


def strings_in(value: Any) -> Iterator[str]:
    """Every string (keys and values) inside a JSON-like value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from strings_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings_in(v)


def load_source(src, *, default_acl, salt: str = "", max_bytes: int | None = None):  # type: ignore[no-untyped-def]
    """``load_file`` on a file read as an ingest reads it (through its folder's descriptor, ``read_source``)."""
    from ragcli.ingestion.loaders import load_file
    from ragcli.ingestion.sources import DEFAULT_MAX_FILE_BYTES

    limit = max_bytes if max_bytes is not None else DEFAULT_MAX_FILE_BYTES
    return load_file(src, read_source(src, limit), default_acl=default_acl, salt=salt, max_bytes=limit)


def read_source(src, max_bytes: int | None = None):  # type: ignore[no-untyped-def]
    """One file's bytes (and its sidecar's), read through its folder's descriptor, as an ingest reads it."""
    from ragcli.ingestion.folder import open_folder
    from ragcli.ingestion.sources import DEFAULT_MAX_FILE_BYTES

    base = src.path
    for _ in src.relative.split("/"):
        base = base.parent
    with open_folder(base) as folder:
        return folder.read(src, max_bytes if max_bytes is not None else DEFAULT_MAX_FILE_BYTES)


def corpus_conflicts(passages):  # type: ignore[no-untyped-def]
    """Every conflicting pair of facts among ``passages``, by the rule the loop applies (quadratic: for a test's
    small corpus)."""
    from ragcli.answer.conflicts import disagree, facts

    all_facts = [f for p in passages for f in facts(p)]
    return [(a, b) for i, a in enumerate(all_facts) for b in all_facts[i + 1 :] if disagree(a, b)]
