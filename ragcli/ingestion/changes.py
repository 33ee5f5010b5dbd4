"""What an ingest changes in a tenant besides the files it reads: withdrawn, kept, deleted, renamed.

- **Fail closed.** A document of the published index whose file is rejected
  now (metadata that does not parse, an ACL that is not a list, unreadable,
  too large, binary, a link that leaves the folder) is *withdrawn*: the new
  generation leaves it out, since the rejected version may narrow who may read
  it. ``keep_on_error`` keeps its previous version instead, with a warning.
- **One folder per tenant.** The manifest records the folder the tenant is
  ingested from. Another folder (a subfolder, a parent, a copy) would rename
  or remove documents, so it is refused with the list, unless ``replace``.
  The same folder by another path (a relative path, another working
  directory, a symlink to it) resolves to the same folder.
- **One ID per document.** Two files that map to one document ID and declared
  version (one passage-ID prefix) are an error naming both; nothing is
  published. Two versions of one document (``refunds-policy`` 2025-01 and
  2026-09) are two declared versions and stay allowed.
- **ACL spelling.** An ACL entry that differs from another entry of the
  tenant, or from ``everyone``, only by case or surrounding spaces matches
  nobody the author meant: a warning names it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import InputError
from ..principal import EVERYONE
from .incremental import Incremental, Loaded
from .report import IngestReport, Withdrawn

LISTED = 10
"""Documents named per kind in a refusal; the rest are counted."""


def settle_previous(
    diff: Incremental, loaded: dict[str, Loaded], failed: set[str], report: IngestReport, *, keep_on_error: bool
) -> list[Loaded]:
    """Earlier documents this run did not load: withdrawn (or kept) when their file was rejected, else deleted."""
    kept = []
    for key, entry in diff.documents.items():
        if key in loaded:
            continue
        file = key.split("::", 1)[0]
        if not _under_any(file, failed):
            report.documents.deleted += 1
            continue
        item = diff.keep(key) if keep_on_error else None
        if item is not None:
            kept.append(item)
            report.warn(file, f"kept the previously indexed version of '{entry.doc_id}' (--keep-on-error)")
        else:
            report.documents.withdrawn.append(Withdrawn(doc_id=entry.doc_id, path=file))
    return kept


def _under_any(file: str, failed: set[str]) -> bool:
    """Whether ``file`` was rejected, or lies under a folder that could not be read."""
    return file in failed or any(file.startswith(f + "/") for f in failed)


def check_root(
    recorded: str | None, root: Path, diff: Incremental, items: list[Loaded], tenant: str, *, replace: bool
) -> None:
    """Refuse a folder other than the recorded one when it would rename or remove documents (unless ``replace``)."""
    if recorded == str(root) or not diff.documents or replace:
        return
    now = {item.key: item.doc_id for item in items}
    renamed = sorted(
        (entry.doc_id, now[key]) for key, entry in diff.documents.items() if key in now and now[key] != entry.doc_id
    )
    # A document whose ID now comes from a file that was not indexed before moved with its folder: not removed.
    moved = {doc_id for key, doc_id in now.items() if key not in diff.documents}
    removed = sorted({e.doc_id for key, e in diff.documents.items() if key not in now and e.doc_id not in moved})
    if not renamed and not removed:
        return
    what = []
    if renamed:
        what.append(f"rename {len(renamed)} ({_listed(f'{old} -> {new}' for old, new in renamed)})")
    if removed:
        what.append(f"remove {len(removed)} ({_listed(removed)})")
    was = f"was ingested from {recorded}" if recorded else "was ingested from other folders"
    raise InputError(
        f"tenant '{tenant}' {was}; ingesting {root} instead would {' and '.join(what)} of its documents; "
        f"ingest the same folder, or add --replace to do exactly that"
    )


def _listed(names: Iterable[str]) -> str:
    names = list(names)
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return ", ".join(names[:LISTED]) + more


def check_unique(items: list[Loaded], root: Path) -> None:
    """Two files mapping to one document ID and declared version is an error naming both (nothing is published)."""
    seen: dict[tuple[str, str | None], Loaded] = {}
    for item in items:
        key = (item.doc_id, item.declared_version)
        first = seen.setdefault(key, item)
        if first is item:
            continue
        version = f" version {key[1]}" if key[1] is not None else ""
        a, b = sorted((_shown(first.file, root), _shown(item.file, root)))
        raise InputError(
            f"two files map to document '{item.doc_id}'{version}: {a} and {b}; give one of them its own id "
            "(or a version) in its metadata; nothing was published"
        )
    ids: set[str] = set()
    for item in items:
        for p in item.passages:
            if p.id in ids:  # cannot happen while the check above holds; never publish two rows with one ID
                raise InputError(f"passage ID {p.id} is used twice ({_shown(item.file, root)}); nothing was published")
            ids.add(p.id)


def _shown(file: str, root: Path) -> str:
    base = root if root.is_dir() else root.parent
    try:
        return Path(file).relative_to(base).as_posix()
    except ValueError:
        return file


def acl_warnings(items: list[Loaded], report: IngestReport) -> None:
    """Warn about ACL entries that differ from another entry (or ``everyone``) only by case or surrounding spaces."""
    where: dict[str, str] = {}
    for item in items:
        for entry in item.passages[0].acl:
            where.setdefault(entry, item.file)
    by_form: dict[str, set[str]] = {}
    for entry in [*where, EVERYONE]:
        by_form.setdefault(entry.strip().casefold(), set()).add(entry)
    for form, spellings in sorted(by_form.items()):
        trimmed = sorted(s for s in spellings if s == s.strip())
        canonical = EVERYONE if form == EVERYONE else form if form in spellings else (trimmed or [form])[0]
        for entry in sorted(spellings - {canonical}):
            if entry not in where:
                continue
            report.warn(
                where[entry],
                f"ACL entry {entry!r} differs from {canonical!r} only by case or spaces; ACL entries match exactly, "
                f"so it does not grant {canonical!r}",
            )
