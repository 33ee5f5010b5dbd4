"""One tenant's index on disk: passages, BM25, embeddings and permission columns.

Layout under ``<index>/<tenant>/``::

    CURRENT              name of the published generation (replaced atomically)
    lock                 flock(2) lock held by the one writer
    gen-<stamp>/         one complete, immutable generation
        manifest.json    format, chunker version, model id + sha256, counts, documents, checksums
        passages.jsonl   one passage per row, in row order; offsets.npy indexes it
        embeddings.npy   float32 (rows, dim), opened memory-mapped
        acl.npy          packed bits (rows, groups): which ACL entries each row carries
        valid_from.npy   int32 day numbers; INT32 min where open
        valid_until.npy  int32 day numbers; INT32 max where open
        tantivy/         BM25 index of the same rows (row number stored with each)

A writer builds a generation in a temporary directory, fsyncs it, renames it
into place and only then replaces CURRENT. A reader resolves CURRENT once and
sees one whole generation; a crash at any moment leaves the previous one
published. The permission filter lives here, so that a denied passage's text,
score or ID never leaves this module.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import functools
import json
import os
import secrets
import shutil
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .chunking import Passage
from .errors import IndexCorruptError, IndexLockedError, InputError
from .principal import Principal, validate_tenant

if TYPE_CHECKING:
    import numpy as np
    import tantivy

FORMAT_VERSION = 1
CURRENT = "CURRENT"
LOCK = "lock"
DAY0 = dt.date(1970, 1, 1)
OPEN_FROM = -(2**31)
OPEN_UNTIL = 2**31 - 1
DEFAULT_INDEX_DIR = ".ragcli"
ARRAY_FILES = ("passages.jsonl", "offsets.npy", "embeddings.npy", "acl.npy", "valid_from.npy", "valid_until.npy")

# BM25 analysis. One analyzer object serves indexing and query building, so a
# query term is always spelled the way the index spells it.
BODY_TOKENIZER = "ragcli_en"
IDENT_TOKENIZER = "ragcli_ident"
IDENT_PATTERN = r"[A-Za-z0-9_]+(?:[.\-/:][A-Za-z0-9_]+)*"
STOP_WORDS = frozenset(
    # Lucene's English list plus question words and pronouns: questions are
    # full of them, and matching "what" is not evidence of relevance.
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with "
    "what which who whom whose how when where why do does did done can could should would shall may might must has have had am been being "
    "i me my we us our you your he him his she her its them were from about so than too very just also any some all".split()
)


def index_root(index: str | os.PathLike[str] | None = None) -> Path:
    """``--index``, else RAGCLI_INDEX, else ``./.ragcli``."""
    return Path(index or os.environ.get("RAGCLI_INDEX") or DEFAULT_INDEX_DIR)


def day_number(day: dt.date | None, *, open_value: int) -> int:
    return open_value if day is None else (day - DAY0).days


# --------------------------------------------------------------------------- manifest


class DocumentEntry(BaseModel):
    """What the manifest remembers of one source document."""

    model_config = ConfigDict(extra="forbid")

    key: str
    """Where it came from: a file path, or ``path::id`` for a JSONL line."""
    doc_id: str
    version: str
    source: str
    fingerprint: str
    passage_ids: list[str]


class ModelEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    sha256: str
    dim: int
    pooling: str


class Manifest(BaseModel):
    """The index's own description; validated on every open."""

    model_config = ConfigDict(extra="forbid")

    format: int
    tenant: str
    generation: str
    created: str
    chunker_version: int
    model: ModelEntry
    passages: int
    groups: list[str]
    """ACL entries in column order of acl.npy."""
    documents: list[DocumentEntry]
    checksums: dict[str, list[int]]
    """File name (relative) -> [size, crc32]; a mismatch means corruption."""


# --------------------------------------------------------------------------- tantivy


@functools.lru_cache(maxsize=1)
def _analyzers() -> dict[str, Any]:
    import tantivy

    body = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.custom_stopword(sorted(STOP_WORDS)))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
    ident = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(IDENT_PATTERN))
        .filter(tantivy.Filter.remove_long(80))
        .filter(tantivy.Filter.lowercase())
        .build()
    )
    return {BODY_TOKENIZER: body, IDENT_TOKENIZER: ident}


def _schema() -> tantivy.Schema:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("row", stored=True, indexed=True, fast=True)
    builder.add_text_field("body", stored=False, tokenizer_name=BODY_TOKENIZER)
    builder.add_text_field("ident", stored=False, tokenizer_name=IDENT_TOKENIZER, index_option="freq")
    builder.add_text_field("acl", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field("valid_from", stored=False, indexed=True, fast=True)
    builder.add_integer_field("valid_until", stored=False, indexed=True, fast=True)
    return builder.build()


def _open_tantivy(path: Path) -> tantivy.Index:
    import tantivy

    index = tantivy.Index(_schema(), path=str(path), reuse=True) if not (path / "meta.json").exists() else tantivy.Index.open(str(path))
    for name, analyzer in _analyzers().items():
        index.register_tokenizer(name, analyzer)
    return index


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Hit:
    """A ranked row that passed the permission filter."""

    row: int
    score: float


class TenantIndex:
    """A published generation of one tenant's index, opened read-only."""

    def __init__(self, root: Path, tenant: str, generation: Path, manifest: Manifest) -> None:
        self.root = root
        self.tenant = tenant
        self.path = generation
        self.manifest = manifest
        self._load_arrays()
        self._passages_file = (generation / "passages.jsonl").open("rb")
        # Open BM25 now, not on first use: once opened, a generation stays
        # readable even if a later ingest prunes its directory.
        self._tantivy

    # -- opening ----------------------------------------------------------------

    @classmethod
    def open(cls, root: str | os.PathLike[str] | None, tenant: str, *, verify: bool = True) -> TenantIndex:
        """Open the tenant's published generation, checking it is whole and untampered."""
        validate_tenant(tenant)
        base = index_root(root)
        tenant_dir = base / tenant
        if not (tenant_dir / CURRENT).exists():
            raise InputError(f"unknown tenant '{tenant}': no index under {base}; run: ragcli ingest PATH --tenant {tenant}")
        # A writer may publish (and clean up) between reading CURRENT and opening
        # files; re-resolving once is enough because it keeps the previous generation.
        for attempt in range(3):
            generation = _read_current(tenant_dir)
            try:
                manifest = _read_manifest(generation, tenant)
                if verify:
                    _verify_checksums(generation, manifest)
                return cls(tenant_dir, tenant, generation, manifest)
            except FileNotFoundError:
                if attempt == 2 or _read_current(tenant_dir) == generation:
                    raise IndexCorruptError(_corrupt(tenant, f"generation {generation.name} is incomplete")) from None
        raise AssertionError("unreachable")

    def _load_arrays(self) -> None:
        import numpy as np

        m = self.manifest
        try:
            self.embeddings = np.load(self.path / "embeddings.npy", mmap_mode="r")
            self.offsets = np.load(self.path / "offsets.npy")
            acl_packed = np.load(self.path / "acl.npy")
            self.valid_from = np.load(self.path / "valid_from.npy")
            self.valid_until = np.load(self.path / "valid_until.npy")
        except (ValueError, OSError, EOFError) as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise IndexCorruptError(_corrupt(self.tenant, f"unreadable array ({exc})")) from None
        n = m.passages
        self.acl = np.unpackbits(acl_packed, axis=1, count=len(m.groups)).astype(bool) if n else np.zeros((0, len(m.groups)), bool)
        shapes_ok = (
            self.embeddings.shape == (n, m.model.dim)
            and self.embeddings.dtype == np.float32
            and self.offsets.shape == (n + 1,)
            and self.acl.shape == (n, len(m.groups))
            and self.valid_from.shape == (n,)
            and self.valid_until.shape == (n,)
        )
        if not shapes_ok:
            raise IndexCorruptError(_corrupt(self.tenant, "array shapes do not match the manifest"))

    @property
    def size(self) -> int:
        return self.manifest.passages

    @property
    def generation(self) -> str:
        return self.manifest.generation

    def close(self) -> None:
        self._passages_file.close()

    def __enter__(self) -> TenantIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- permission filter ----------------------------------------------------

    def allowed(self, principal: Principal, as_of: dt.date) -> np.ndarray:
        """Boolean mask of rows this principal may see on ``as_of``."""
        import numpy as np

        self._check_tenant(principal)
        columns = [i for i, g in enumerate(self.manifest.groups) if g in principal.acl_tokens()]
        acl_ok = self.acl[:, columns].any(axis=1) if columns else np.zeros(self.size, dtype=bool)
        day = day_number(as_of, open_value=0)
        return acl_ok & (self.valid_from <= day) & (day < self.valid_until)

    def check_model(self, model_id: str, sha256: str) -> None:
        """Refuse to embed queries with a model other than the one the passages were embedded with."""
        recorded = self.manifest.model
        if sha256 != recorded.sha256:
            raise IndexCorruptError(
                f"tenant '{self.tenant}' was indexed with model {recorded.id} (sha256 {recorded.sha256[:12]}…) "
                f"but the configured model is {model_id} (sha256 {sha256[:12]}…); re-ingest the tenant with "
                f"this model (ragcli ingest PATH --tenant {self.tenant})"
            )

    def is_current(self) -> bool:
        """Whether this is still the generation CURRENT names (a later ingest may have replaced it)."""
        return _current_name(self.root) == self.path.name

    def _check_tenant(self, principal: Principal) -> None:
        if principal.tenant != self.tenant:
            # Defence in depth: the caller picked this index from the principal.
            raise InputError(f"principal of tenant '{principal.tenant}' cannot read tenant '{self.tenant}'")

    # -- rankers --------------------------------------------------------------

    @property
    def _tantivy(self) -> tantivy.Index:
        index = self.__dict__.get("_tantivy_index")
        if index is None:
            try:
                index = _open_tantivy(self.path / "tantivy")
            except ValueError as exc:
                raise IndexCorruptError(_corrupt(self.tenant, f"BM25 index unreadable ({exc})")) from None
            self.__dict__["_tantivy_index"] = index
        return index

    def bm25(self, query: str, principal: Principal, as_of: dt.date, limit: int) -> list[Hit]:
        """BM25 over the rows the principal may see; permission clauses add nothing to the score."""
        import tantivy

        self._check_tenant(principal)
        index = self._tantivy
        scoring = build_text_query(index.schema, query)
        if scoring is None or self.size == 0:
            return []
        permission = _permission_query(index.schema, principal, as_of)
        final = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, scoring), (tantivy.Occur.Must, tantivy.Query.const_score_query(permission, 0.0))]
        )
        try:
            searcher = index.searcher()
            result = searcher.search(final, limit=limit, count=False)
            hits = [Hit(int(searcher.doc(addr)["row"][0]), float(score)) for score, addr in result.hits]
        except ValueError as exc:
            raise IndexCorruptError(_corrupt(self.tenant, f"BM25 search failed ({exc})")) from None
        # Belt and braces: the same rule computed from the permission columns.
        mask = self.allowed(principal, as_of)
        return [h for h in hits if 0 <= h.row < self.size and mask[h.row]]

    def dense(self, vector: np.ndarray, principal: Principal, as_of: dt.date, limit: int) -> list[Hit]:
        """Cosine similarity over allowed rows only: denied vectors are never multiplied."""
        import numpy as np

        rows = np.flatnonzero(self.allowed(principal, as_of))
        if rows.size == 0:
            return []
        scores = np.asarray(self.embeddings[rows], dtype=np.float32) @ vector.astype(np.float32)
        top = min(limit, rows.size)
        best = np.argpartition(-scores, top - 1)[:top]
        best = best[np.lexsort((rows[best], -scores[best]))]
        return [Hit(int(rows[i]), float(scores[i])) for i in best]

    # -- passages -------------------------------------------------------------

    def passage(self, row: int) -> Passage:
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        self._passages_file.seek(start)
        line = self._passages_file.read(end - start)
        try:
            return passage_from_json(json.loads(line))
        except (ValueError, KeyError, TypeError):
            raise IndexCorruptError(_corrupt(self.tenant, f"passage row {row} is unreadable")) from None

    def iter_passages(self) -> Iterator[Passage]:
        for row in range(self.size):
            yield self.passage(row)

    def disk_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())


def open_index(root: str | os.PathLike[str] | None, principal: Principal) -> TenantIndex:
    """The principal's tenant picks the index: the only way a reader chooses one."""
    return TenantIndex.open(root, principal.tenant)


def list_tenants(root: str | os.PathLike[str] | None) -> list[str]:
    base = index_root(root)
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if (p / CURRENT).exists())


def _corrupt(tenant: str, what: str) -> str:
    return f"index of tenant '{tenant}' is damaged: {what}; re-ingest to rebuild it (ragcli ingest PATH --tenant {tenant})"


def _read_current(tenant_dir: Path) -> Path:
    tenant = tenant_dir.name
    try:
        name = (tenant_dir / CURRENT).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        raise IndexCorruptError(_corrupt(tenant, "CURRENT pointer unreadable")) from None
    if not name.startswith("gen-") or "/" in name or not (tenant_dir / name).is_dir():
        raise IndexCorruptError(_corrupt(tenant, f"CURRENT points at a missing generation {name[:40]!r}"))
    return tenant_dir / name


def _read_manifest(generation: Path, tenant: str) -> Manifest:
    raw = (generation / "manifest.json").read_bytes()
    try:
        manifest = Manifest.model_validate_json(raw)
    except ValidationError:
        raise IndexCorruptError(_corrupt(tenant, "manifest.json is not a valid manifest")) from None
    if manifest.format != FORMAT_VERSION:
        raise IndexCorruptError(f"index of tenant '{tenant}' has format {manifest.format}, this ragcli reads {FORMAT_VERSION}; re-ingest")
    if manifest.tenant != tenant:
        raise IndexCorruptError(_corrupt(tenant, f"manifest names tenant '{manifest.tenant}'"))
    return manifest


def _checksum(path: Path) -> list[int]:
    crc = 0
    size = 0
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            crc = zlib.crc32(block, crc)
            size += len(block)
    return [size, crc]


def _verify_checksums(generation: Path, manifest: Manifest) -> None:
    for name, expected in manifest.checksums.items():
        path = generation / name
        if not path.is_file():
            raise IndexCorruptError(_corrupt(manifest.tenant, f"{name} is missing"))
        if path.stat().st_size != expected[0] or _checksum(path) != expected:
            raise IndexCorruptError(_corrupt(manifest.tenant, f"{name} does not match its checksum"))


# --------------------------------------------------------------------------- query building

def build_text_query(schema: tantivy.Schema, text: str) -> tantivy.Query | None:
    """A BM25 query built from tokens, never parsed: query syntax in ``text`` is just text.

    Stemmed terms go to the ``body`` field; identifier-looking tokens
    (``ERR_4021``, ``ORB-7731``, ``v2.3.1``) also go, whole, to ``ident``.
    """
    import tantivy

    analyzers = _analyzers()
    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
    body_terms = [t for t in analyzers[BODY_TOKENIZER].analyze(text)]
    for term in dict.fromkeys(body_terms):
        clauses.append((tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", term, index_option="freq")))
    for token in dict.fromkeys(analyzers[IDENT_TOKENIZER].analyze(text)):
        if _looks_like_identifier(token):
            clauses.append((tantivy.Occur.Should, tantivy.Query.term_query(schema, "ident", token, index_option="freq")))
    if not clauses:
        return None
    return tantivy.Query.boolean_query(clauses)


def _looks_like_identifier(token: str) -> bool:
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    return any(c in "_.-/:" for c in token) or (has_digit and has_alpha)


def _permission_query(schema: tantivy.Schema, principal: Principal, as_of: dt.date) -> tantivy.Query:
    import tantivy

    day = day_number(as_of, open_value=0)
    acl = tantivy.Query.term_set_query(schema, "acl", sorted(principal.acl_tokens()))
    starts = tantivy.Query.range_query(schema, "valid_from", tantivy.FieldType.Integer, None, day)
    ends = tantivy.Query.range_query(schema, "valid_until", tantivy.FieldType.Integer, day, None, include_lower=False)
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, acl), (tantivy.Occur.Must, starts), (tantivy.Occur.Must, ends)])


# --------------------------------------------------------------------------- passages as JSON


def passage_to_json(p: Passage, text_hash: str) -> dict[str, Any]:
    return {
        "id": p.id,
        "doc_id": p.doc_id,
        "version": p.version,
        "section": p.section,
        "tenant": p.tenant,
        "acl": list(p.acl),
        "effective_from": p.effective_from.isoformat() if p.effective_from else None,
        "superseded_on": p.superseded_on.isoformat() if p.superseded_on else None,
        "title": p.title,
        "heading_path": list(p.heading_path),
        "source": p.source,
        "source_url": p.source_url,
        "text": p.text,
        "text_hash": text_hash,
    }


def passage_from_json(d: dict[str, Any]) -> Passage:
    return Passage(
        id=d["id"],
        doc_id=d["doc_id"],
        version=d["version"],
        section=d["section"],
        tenant=d["tenant"],
        acl=tuple(d["acl"]),
        effective_from=dt.date.fromisoformat(d["effective_from"]) if d["effective_from"] else None,
        superseded_on=dt.date.fromisoformat(d["superseded_on"]) if d["superseded_on"] else None,
        title=d["title"],
        heading_path=tuple(d["heading_path"]),
        source=d["source"],
        source_url=d["source_url"],
        text=d["text"],
    )


# --------------------------------------------------------------------------- writing


@contextmanager
def writer_lock(root: str | os.PathLike[str] | None, tenant: str) -> Iterator[Path]:
    """Hold the tenant's write lock; a second writer is refused, not queued.

    flock(2) locks die with their process, so a SIGKILLed ingest never leaves
    a stale lock behind.
    """
    validate_tenant(tenant)
    tenant_dir = index_root(root) / tenant
    try:
        tenant_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(tenant_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise InputError(f"cannot create the index directory {tenant_dir}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
                raise IndexLockedError(
                    f"tenant '{tenant}' is being ingested by {holder}; wait for it to finish and run again"
                ) from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        _remove_stale_builds(tenant_dir)
        yield tenant_dir
    finally:
        os.close(fd)


def _remove_stale_builds(tenant_dir: Path) -> None:
    """Half-built generations of a killed writer: garbage, since we hold the lock."""
    for child in tenant_dir.iterdir():
        if child.name.startswith(".build-"):
            shutil.rmtree(child, ignore_errors=True)
        elif child.name.startswith(f".{CURRENT}."):  # a CURRENT replacement that was never renamed
            child.unlink(missing_ok=True)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass
class NewGeneration:
    """Everything a generation holds, in row order, before it is written."""

    tenant: str
    passages: list[Passage]
    text_hashes: list[str]
    embeddings: np.ndarray
    documents: list[DocumentEntry]
    chunker_version: int
    model: ModelEntry


def write_generation(tenant_dir: Path, gen: NewGeneration) -> str:
    """Write ``gen`` beside the published one and publish it atomically; return its name."""
    import numpy as np

    name = f"gen-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{secrets.token_hex(4)}"
    build = tenant_dir / f".build-{name}"
    build.mkdir()
    try:
        n = len(gen.passages)
        groups = sorted({entry for p in gen.passages for entry in p.acl})
        column = {g: i for i, g in enumerate(groups)}
        offsets = np.zeros(n + 1, dtype=np.int64)
        with (build / "passages.jsonl").open("wb") as fh:
            for row, (p, h) in enumerate(zip(gen.passages, gen.text_hashes)):
                data = (json.dumps(passage_to_json(p, h), ensure_ascii=False) + "\n").encode("utf-8")
                fh.write(data)
                offsets[row + 1] = offsets[row] + len(data)
        acl = np.zeros((n, len(groups)), dtype=bool)
        for row, p in enumerate(gen.passages):
            acl[row, [column[g] for g in p.acl]] = True
        np.save(build / "offsets.npy", offsets)
        np.save(build / "embeddings.npy", np.ascontiguousarray(gen.embeddings, dtype=np.float32).reshape(n, gen.model.dim))
        np.save(build / "acl.npy", np.packbits(acl, axis=1))
        np.save(build / "valid_from.npy", np.array([day_number(p.effective_from, open_value=OPEN_FROM) for p in gen.passages], dtype=np.int32))
        np.save(build / "valid_until.npy", np.array([day_number(p.superseded_on, open_value=OPEN_UNTIL) for p in gen.passages], dtype=np.int32))
        try:
            _write_tantivy(build / "tantivy", gen.passages)
        except ValueError as exc:  # tantivy reports its I/O failures (disk full, too many open files) as ValueError
            raise OSError(f"the BM25 index could not be written ({exc})") from None
        checksums = {}
        for path in sorted(build.rglob("*")):
            if path.is_file():
                _fsync_file(path)
                checksums[path.relative_to(build).as_posix()] = _checksum(path)
        manifest = Manifest(
            format=FORMAT_VERSION,
            tenant=gen.tenant,
            generation=name,
            created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            chunker_version=gen.chunker_version,
            model=gen.model,
            passages=n,
            groups=groups,
            documents=gen.documents,
            checksums=checksums,
        )
        (build / "manifest.json").write_text(manifest.model_dump_json(indent=1), encoding="utf-8")
        _fsync_file(build / "manifest.json")
        _fsync_dir(build)
        final = tenant_dir / name
        previous = _current_name(tenant_dir)
        os.rename(build, final)
        _publish(tenant_dir, name)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    _prune(tenant_dir, keep={name, previous} - {None})  # type: ignore[arg-type]
    return name


def _current_name(tenant_dir: Path) -> str | None:
    try:
        return (tenant_dir / CURRENT).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _write_tantivy(path: Path, passages: Sequence[Passage]) -> None:
    import tantivy

    path.mkdir()
    index = _open_tantivy(path)
    writer = index.writer(heap_size=128_000_000, num_threads=1)
    for row, p in enumerate(passages):
        doc = tantivy.Document()
        doc.add_integer("row", row)
        doc.add_text("body", p.index_text)
        doc.add_text("ident", p.index_text)
        for entry in p.acl:
            doc.add_text("acl", entry)
        doc.add_integer("valid_from", day_number(p.effective_from, open_value=OPEN_FROM))
        doc.add_integer("valid_until", day_number(p.superseded_on, open_value=OPEN_UNTIL))
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()


def _publish(tenant_dir: Path, name: str) -> None:
    tmp = tenant_dir / f".{CURRENT}.{secrets.token_hex(4)}"
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, tenant_dir / CURRENT)
    _fsync_dir(tenant_dir)


def _prune(tenant_dir: Path, keep: set[str]) -> None:
    """Keep the new and the previously published generation (readers that resolved CURRENT
    a moment ago may still be opening it); drop the rest, including ones a crash left unpublished."""
    for old in tenant_dir.iterdir():
        if old.name.startswith("gen-") and old.name not in keep:
            shutil.rmtree(old, ignore_errors=True)


def previous_generation(root: str | os.PathLike[str] | None, tenant: str) -> TenantIndex | None:
    """The published generation, if any and readable (an ingest rebuilds a damaged one from files)."""
    try:
        return TenantIndex.open(root, tenant)
    except (InputError, IndexCorruptError):
        return None


def row_maps(index: TenantIndex) -> tuple[dict[str, int], dict[str, int]]:
    """In one pass over the passages: passage ID -> row, and text hash -> row (to reuse vectors)."""
    by_id: dict[str, int] = {}
    by_hash: dict[str, int] = {}
    for row in range(index.size):
        start, end = int(index.offsets[row]), int(index.offsets[row + 1])
        index._passages_file.seek(start)
        data = json.loads(index._passages_file.read(end - start))
        by_id[data["id"]] = row
        by_hash.setdefault(data["text_hash"], row)
    return by_id, by_hash


# --------------------------------------------------------------------------- status


@dataclass(frozen=True)
class Audit:
    """What ``ragcli status`` reports for one tenant."""

    tenant: str
    generation: str
    created: str
    documents: int
    passages: int
    model_id: str
    model_sha256: str
    dim: int
    chunker_version: int
    disk_bytes: int
    orphan_vectors: int
    """Embedding or BM25 rows that no manifest document owns."""
    stale_entries: int
    """Passage IDs the manifest lists that no row holds."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "generation": self.generation,
            "last_ingest": self.created,
            "documents": self.documents,
            "passages": self.passages,
            "model": {"id": self.model_id, "sha256": self.model_sha256, "dim": self.dim},
            "chunker_version": self.chunker_version,
            "disk_bytes": self.disk_bytes,
            "orphan_vectors": self.orphan_vectors,
            "stale_entries": self.stale_entries,
        }


def audit(index: TenantIndex) -> Audit:
    """Cross-check rows, the manifest and the BM25 index of one generation."""
    listed = {pid for d in index.manifest.documents for pid in d.passage_ids}
    row_ids = [p.id for p in index.iter_passages()]
    present = set(row_ids)
    orphan = sum(1 for pid in row_ids if pid not in listed)
    stale = len(listed - present)
    try:
        bm25_docs = index._tantivy.searcher().num_docs
    except ValueError as exc:
        raise IndexCorruptError(_corrupt(index.tenant, f"BM25 index unreadable ({exc})")) from None
    orphan += max(0, bm25_docs - index.size) + max(0, int(index.embeddings.shape[0]) - index.size)
    stale += max(0, index.size - bm25_docs)
    m = index.manifest
    return Audit(
        tenant=index.tenant,
        generation=m.generation,
        created=m.created,
        documents=len(m.documents),
        passages=m.passages,
        model_id=m.model.id,
        model_sha256=m.model.sha256,
        dim=m.model.dim,
        chunker_version=m.chunker_version,
        disk_bytes=index.disk_bytes(),
        orphan_vectors=orphan,
        stale_entries=stale,
    )


def query_terms(text: str) -> list[str]:
    """The stemmed, stop-word-free terms BM25 would search for ``text``."""
    return list(_analyzers()[BODY_TOKENIZER].analyze(text))


def identifier_terms(text: str) -> list[str]:
    """Tokens of ``text`` that look like identifiers (``ERR_4021``, ``v2.3.1``), as the ident field spells them."""
    return [t for t in _analyzers()[IDENT_TOKENIZER].analyze(text) if _looks_like_identifier(t)]
