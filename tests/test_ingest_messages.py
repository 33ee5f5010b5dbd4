"""What ``ingest`` tells a person: grouped rejections and a summary, nothing published from nothing,
skipped file types named once, and progress counted in a unit whose ETA does not climb."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import cli, invoke, json_of, stderr_lines
from support.corpus import all_passages, markdown, write

from ragcli import ingest


def _no_acl_folder(folder: Path, n: int) -> Path:
    for i in range(n):
        write(folder / f"note{i:02d}.md", f"# Note {i}\n\nThe quarterly budget note number {i} for the archive team.\n")
    return folder


def test_identical_reasons_are_one_line_with_a_count_and_nothing_is_published(tmp_path, capsys) -> None:
    docs, index = _no_acl_folder(tmp_path / "docs", 12), tmp_path / "index"
    proc = invoke(capsys, "ingest", docs, "--tenant", "t", "--index", index)
    assert proc.returncode == 2
    lines = stderr_lines(proc)
    assert len(lines) == 2, lines
    grouped, nothing = lines
    assert grouped.startswith("error: rejected 12 of 12 files: no ACL"), grouped
    assert "note00.md, note01.md, note02.md and 9 more" in grouped, grouped
    assert str(docs) not in grouped  # paths relative to the ingested folder
    assert nothing.startswith("error: nothing was indexed for tenant 't'"), nothing
    # No empty tenant was published: a search says so instead of "no results".
    assert not (index / "t" / "CURRENT").exists()
    user = write(tmp_path / "u.json", json.dumps({"user": "u", "tenant": "t", "groups": []}))
    search = invoke(capsys, "search", "budget", "--as", user, "--index", index)
    assert search.returncode == 2 and "'t'" in search.stderr


def test_library_publishes_nothing_from_nothing(tmp_path, embedder) -> None:
    docs, index = _no_acl_folder(tmp_path / "docs", 2), tmp_path / "index"
    report = ingest(docs, "t", index=index, embedder=embedder)
    assert not report.published and report.generation is None and len(report.documents.rejected) == 2
    assert not (index / "t" / "CURRENT").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    report = ingest(empty, "t", index=index, embedder=embedder)
    assert not report.published and report.generation is None


def test_a_tenant_whose_every_file_is_rejected_withdraws_them_or_keeps_them_on_request(tmp_path, capsys) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "a.md", markdown({"acl": ["everyone"]}, "# A\n\nThe walrus budget of the support team.\n"))
    assert invoke(capsys, "ingest", docs, "--tenant", "t", "--index", index).returncode == 0
    write(docs / "a.md", b"\xff\xfe broken now")
    kept = invoke(capsys, "ingest", docs, "--tenant", "t", "--index", index, "--keep-on-error")
    assert kept.returncode == 2
    assert [line for line in stderr_lines(kept) if "nothing was indexed" in line] == []
    assert "walrus" in all_passages(index, "t")[0].text
    # Fail closed: the tenant stays, holding nothing until the file is fixed.
    proc = invoke(capsys, "ingest", docs, "--tenant", "t", "--index", index)
    assert proc.returncode == 2
    assert [line for line in stderr_lines(proc) if line.startswith("error: withdrew 1 document")] != []
    assert all_passages(index, "t") == []


def test_different_reasons_get_a_line_each_then_a_summary(tmp_path, capsys) -> None:
    docs, index = _no_acl_folder(tmp_path / "docs", 3), tmp_path / "index"
    write(docs / "bad1.md", b"\xff not utf-8")
    write(docs / "bad2.md", b"\xff not utf-8 either")
    write(docs / "good.md", markdown({"acl": ["everyone"]}, "# Good\n\nThe pelican archive holds the backup drives.\n"))
    proc = invoke(capsys, "ingest", docs, "--tenant", "t", "--index", index, "--json")
    assert proc.returncode == 2
    lines = stderr_lines(proc)
    assert len(lines) == 3, lines
    assert lines[0].startswith("error: rejected 3 files: no ACL") and "note00.md, note01.md, note02.md)" in lines[0], (
        lines
    )
    assert lines[1].startswith("error: rejected 2 files: not valid UTF-8") and "bad1.md, bad2.md" in lines[1], lines
    assert lines[2] == "error: rejected 5 of 6 files (2 reasons); the rest was indexed", lines
    assert len(json_of(proc)["documents"]["rejected"]) == 5  # --json still lists every one
    assert {p.doc_id for p in all_passages(index, "t")} == {"good"}


@pytest.mark.slow
def test_skipped_file_types_are_mentioned_once(tmp_path) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "good.md", markdown({"acl": ["everyone"]}, "# Good\n\nThe pelican archive holds the backup drives.\n"))
    for i in range(3):
        write(docs / f"table{i}.xlsx", b"PK\x03\x04")
    write(docs / "sub" / "photo.png", b"\x89PNG")
    write(docs / "good.meta.yaml", "title: not a document\n")  # a sidecar is not skipped: it is metadata
    proc = cli("ingest", docs, "--tenant", "t", "--index", index)
    assert proc.returncode == 0, proc.stderr
    lines = stderr_lines(proc)
    assert "note: skipped 3 .xlsx files: unsupported type" in lines, lines
    assert "note: skipped 1 .png file: unsupported type" in lines, lines
    assert len(lines) == 2, lines
    as_json = cli("ingest", docs, "--tenant", "t", "--index", index, "--json")
    assert json_of(as_json)["skipped"] == {".png": 1, ".xlsx": 3}


class Recorder:
    """A Progress that keeps every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[int, ...]]] = []

    def files(self, total: int) -> None:
        self.calls.append(("files", (total,)))

    def file_done(self) -> None:
        self.calls.append(("file_done", ()))

    def embedding(self, passages: int, work: float) -> None:
        self.calls.append(("embedding", (passages, work)))

    def embedded(self, work: float) -> None:
        self.calls.append(("embedded", (work,)))


def test_embedding_progress_is_counted_in_model_work_padding_included(tmp_path, embedder) -> None:
    from ragcli.ingestion import Progress

    docs, index = tmp_path / "docs", tmp_path / "index"
    short = "Short note."
    long = " ".join(["The archive team rotates the backup drives every spring and audits them."] * 12)
    for i in range(20):
        write(
            docs / f"d{i:02d}.md",
            markdown({"acl": ["everyone"]}, f"# Doc {i}\n\n{short if i % 2 else long} Number {i}.\n"),
        )
    recorder = Recorder()
    assert issubclass(Recorder, object) and hasattr(Progress, "embedding")
    report = ingest(docs, "t", index=index, embedder=embedder, progress=recorder)  # type: ignore[arg-type]
    [(passages, work)] = [args for name, args in recorder.calls if name == "embedding"]
    steps = [args[0] for name, args in recorder.calls if name == "embedded"]
    texts = [p.index_text for p in all_passages(index, "t")]
    lengths = sorted(embedder.count_tokens(texts))
    # Shortest first, 16 passages per step, each step padded batch by batch as the model runs it.
    expected = [embedder.batch_work(lengths[i : i + 16]) for i in range(0, len(lengths), 16)]
    assert passages == report.embedded == len(texts)
    assert steps == pytest.approx(expected) and sum(steps) == pytest.approx(work)
    assert len(steps) > 1  # progress moves during the run, not once at the end
    tokens = sum(min(n + 2, embedder.max_tokens) for n in lengths)
    assert work > tokens  # padding and longer sequences cost more than their word pieces
