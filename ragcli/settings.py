"""The environment, read in one place.

Every variable ragcli honours is read here and nowhere else; callers resolve
a setting once at their entry point (the CLI when an option is left out:
``--index`` and ``--model`` default to None and the command asks this module,
so no option reads the environment itself; a library user when a function is
called without the value) and pass the result down as a typed value.

    RAGCLI_INDEX              index directory (else the nearest .ragcli, else the per-user data directory)
    RAGCLI_MODEL              default answering model: local | anthropic[:NAME] | openai:MODEL[@URL]
    ANTHROPIC_API_KEY         enables (and defaults to) the anthropic model
    RAGCLI_EMBED_MODEL        another ONNX embedding model (.onnx path) ...
    RAGCLI_EMBED_TOKENIZER    ... its tokenizer.json or WordPiece vocab.txt ...
    RAGCLI_EMBED_POOLING      ... and its pooling, mean or cls
    RAGCLI_OPENAI_BASE_URL    default server for --model openai:MODEL (any Chat Completions API)
    OPENAI_API_KEY            its key (read by the openai SDK itself; a local server needs none)
    RAGCLI_CACHE              cache directory (default $XDG_CACHE_HOME/ragcli, else ~/.cache/ragcli)
    RAGCLI_PARSE_WORKERS      processes that parse ingested files (default 2; 0 parses in the ingesting process)
    RAGCLI_PARSE_CPU_SECONDS  CPU time one file may take to parse (default 60)
    RAGCLI_PARSE_WALL_SECONDS wall time one file may take to parse (default 120)
    RAGCLI_PARSE_MEMORY_MB    address space of a parsing process, in MiB (default 1024)
    GITHUB_ACTIONS            "true" on a GitHub Actions runner: document text is printed with workflow commands stopped
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INDEX_ENV = "RAGCLI_INDEX"
MODEL_ENV = "RAGCLI_MODEL"
ANTHROPIC_KEY_ENV = "ANTHROPIC_API_KEY"
OPENAI_BASE_URL_ENV = "RAGCLI_OPENAI_BASE_URL"
OPENAI_KEY_ENV = "OPENAI_API_KEY"
CACHE_ENV = "RAGCLI_CACHE"
INDEX_DIR_NAME = ".ragcli"
"""The folder name an index is found by, like ``.git``: in the current folder or a parent."""


@dataclass(frozen=True)
class IndexLocation:
    """Where the index is, and how it was found (said in errors, so a user knows why it was looked for there)."""

    path: Path
    origin: str
    """``--index``, ``RAGCLI_INDEX``, ``the nearest .ragcli from DIR`` or ``the per-user index; …``."""


_ORIGINS: dict[Path, str] = {}
"""How each index path this process located was found, for messages about it (see ``index_origin``)."""


def locate_index(given: str | os.PathLike[str] | None = None, *, cwd: Path | None = None) -> IndexLocation:
    """The index directory, found the way git finds a repository.

    ``given`` (``--index``), else $RAGCLI_INDEX, else the nearest ``.ragcli``
    folder in ``cwd`` (default: the current folder) or one of its parents, else
    the per-user data directory (``~/.local/share/ragcli/index`` on Linux,
    via platformdirs), so a command run from another folder finds the same index.
    """
    if given:
        found = IndexLocation(Path(given), "--index")
    elif os.environ.get(INDEX_ENV):
        found = IndexLocation(Path(os.environ[INDEX_ENV]), INDEX_ENV)
    else:
        here = (cwd or Path.cwd()).absolute()
        nearest = next((d / INDEX_DIR_NAME for d in (here, *here.parents) if (d / INDEX_DIR_NAME).is_dir()), None)
        if nearest is not None:
            found = IndexLocation(nearest, f"the nearest {INDEX_DIR_NAME} from {here}")
        else:
            found = IndexLocation(user_index_dir(), f"the per-user index; no {INDEX_DIR_NAME} in {here} or above")
    _ORIGINS.setdefault(found.path.absolute(), found.origin)
    return found


def user_index_dir() -> Path:
    """The per-user index: ``$XDG_DATA_HOME/ragcli/index`` (``~/.local/share/ragcli/index``) on Linux."""
    import platformdirs

    return platformdirs.user_data_path("ragcli", appauthor=False) / "index"


def index_root(given: str | os.PathLike[str] | None = None) -> Path:
    """The index directory (see ``locate_index``)."""
    return locate_index(given).path


def index_origin(root: Path) -> str | None:
    """How this process found ``root`` (``--index``, ``RAGCLI_INDEX``, …), if it located it."""
    return _ORIGINS.get(Path(root).absolute())


def default_answer_model() -> str:
    """$RAGCLI_MODEL if set; else ``anthropic`` when an Anthropic key is set; else ``local``."""
    chosen = os.environ.get(MODEL_ENV, "").strip()
    if chosen:
        return chosen
    return "anthropic" if os.environ.get(ANTHROPIC_KEY_ENV) else "local"


def openai_base_url() -> str | None:
    """$RAGCLI_OPENAI_BASE_URL: the server ``--model openai:MODEL``
    talks to (None: the SDK's default, api.openai.com)."""
    return os.environ.get(OPENAI_BASE_URL_ENV, "").strip() or None


def openai_api_key() -> str | None:
    """$OPENAI_API_KEY, or None (a local server such as Ollama needs none)."""
    return os.environ.get(OPENAI_KEY_ENV, "").strip() or None


def cache_dir() -> Path:
    """Where ragcli keeps what it can rebuild (model hash verdicts, the optimised ONNX graph).

    $RAGCLI_CACHE, else $XDG_CACHE_HOME/ragcli, else ~/.cache/ragcli. Deleting it is always safe.
    """
    explicit = os.environ.get(CACHE_ENV, "").strip()
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "ragcli"


@dataclass(frozen=True)
class CustomEmbedModel:
    """An embedding model named through RAGCLI_EMBED_* instead of the bundled one."""

    onnx_path: Path
    tokenizer: str | None
    pooling: str


def custom_embed_model() -> CustomEmbedModel | None:
    """The RAGCLI_EMBED_* variables as given (validated by the embedder), or None for the bundled model."""
    model = os.environ.get("RAGCLI_EMBED_MODEL")
    if not model:
        return None
    return CustomEmbedModel(
        onnx_path=Path(model),
        tokenizer=os.environ.get("RAGCLI_EMBED_TOKENIZER") or None,
        pooling=os.environ.get("RAGCLI_EMBED_POOLING", "mean"),
    )


PARSE_WORKERS_ENV = "RAGCLI_PARSE_WORKERS"
PARSE_CPU_ENV = "RAGCLI_PARSE_CPU_SECONDS"
PARSE_WALL_ENV = "RAGCLI_PARSE_WALL_SECONDS"
PARSE_MEMORY_ENV = "RAGCLI_PARSE_MEMORY_MB"


@dataclass(frozen=True)
class ParseLimits:
    """What parsing one untrusted file may cost before it is rejected (``ingestion.workers``)."""

    workers: int = 2
    """Parsing processes; 0 parses in the ingesting process, where no limit below can be enforced."""
    cpu_seconds: int = 60
    wall_seconds: int = 120
    memory_mb: int = 1024
    """The address-space limit (``RLIMIT_AS``) of each parsing process."""


def parse_limits() -> ParseLimits:
    """The RAGCLI_PARSE_* variables over the defaults; a value that is not a whole number is an InputError."""
    default = ParseLimits()
    return ParseLimits(
        workers=_whole(PARSE_WORKERS_ENV, default.workers, minimum=0),
        cpu_seconds=_whole(PARSE_CPU_ENV, default.cpu_seconds, minimum=1),
        wall_seconds=_whole(PARSE_WALL_ENV, default.wall_seconds, minimum=1),
        memory_mb=_whole(PARSE_MEMORY_ENV, default.memory_mb, minimum=64),
    )


def _whole(name: str, default: int, *, minimum: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < minimum:
        from .errors import InputError

        raise InputError(f"{name}={raw!r} is not a whole number of at least {minimum}")
    return int(raw)


def github_actions() -> bool:
    """On a GitHub Actions runner, where a printed line such as ``::add-mask::`` is a workflow command."""
    return os.environ.get("GITHUB_ACTIONS", "").strip().lower() == "true"
