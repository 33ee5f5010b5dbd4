"""pydantic's search for plugins, skipped when this Python environment has none.

pydantic looks for plugins (entry points of group ``pydantic``) in every
installed distribution when it builds its first validator: a read of every
package's metadata at each CLI start. The answer changes only when a
distribution is installed or removed: a ``*.dist-info``, ``*.egg-info`` or
``*.egg`` entry of a folder on ``sys.path`` appears, goes or is rewritten. So
the CLI records the answer under ``settings.cache_dir()`` with those entries
(name and modification time) per folder, and while they are unchanged and the
answer was "none", it tells pydantic there is nothing to find
(``PYDANTIC_DISABLE_PLUGINS``, the switch pydantic documents). A folder is
listed again only when its own modification time moved: the working folder
(``python -m ragcli`` puts it on the path) changes all day without a package
being installed in it, and that no longer costs a search of every package. An
environment with a plugin, a verdict that cannot be read, or a user's own
``PYDANTIC_DISABLE_PLUGINS`` leave pydantic to do as it always does.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ..settings import cache_dir

VERDICT = "pydantic-plugins.json"
DISABLE_ENV = "PYDANTIC_DISABLE_PLUGINS"
MAX_ENVIRONMENTS = 8
"""Verdicts kept: ``python -m ragcli`` puts the working folder on ``sys.path``, so each folder is an environment."""
MAX_FOLDERS = 32
"""Folders whose listing is remembered."""
DISTRIBUTIONS = (".dist-info", ".egg-info", ".egg")
"""The entries of a folder on ``sys.path`` that importlib.metadata reads distributions (and entry points) from."""


def skip_an_empty_plugin_search() -> None:
    """Tell pydantic not to search for plugins when this environment was found to have none."""
    if DISABLE_ENV in os.environ:
        return  # the user's own setting stands
    file = cache_dir() / VERDICT
    recorded = _read(file)
    folders = recorded.get("folders")
    folders = folders if isinstance(folders, dict) else {}
    key, listed = _environment(folders)
    known = [v for v in recorded.get("environments", []) if isinstance(v, dict)]
    plugins = next((v.get("plugins") for v in known if v.get("environment") == key), None)
    moved = any(folders.get(entry) != seen for entry, seen in listed.items())
    searched = plugins is None
    if plugins is None:
        plugins = _plugin_count()
        kept = [v for v in known if v.get("environment") != key][-(MAX_ENVIRONMENTS - 1) :]
        known = [*kept, {"environment": key, "plugins": plugins}]
    if searched or moved:  # else the file already says all this: no write
        others = {entry: seen for entry, seen in folders.items() if entry not in listed}
        remembered = dict(list({**others, **listed}.items())[-MAX_FOLDERS:])
        _write(file, {"environments": known, "folders": remembered})
    if plugins == 0:
        # Children (Ray workers) inherit it: they run in this same environment.
        os.environ[DISABLE_ENV] = "__all__"


def _environment(folders: dict[str, Any]) -> tuple[list[list[Any]], dict[str, Any]]:
    """Each folder of ``sys.path`` with the distributions it holds: the key of a verdict; and what was read of
    each folder (its modification time and its distributions), to skip listing it next time if it has not moved."""
    key, listed = [], {}
    for entry in sys.path:
        try:
            mtime = os.stat(entry or ".").st_mtime_ns
        except OSError:
            key.append([entry, None])
            continue
        seen = folders.get(entry)
        if isinstance(seen, list) and len(seen) == 2 and seen[0] == mtime:
            distributions = seen[1]
        else:
            distributions = _distributions(entry or ".")
        key.append([entry, distributions])
        listed[entry] = [mtime, distributions]
    return key, listed


def _distributions(folder: str) -> list[list[Any]] | None:
    """The distributions installed in ``folder`` (their metadata entries' names and modification times), where
    importlib.metadata looks for them; None for a folder that cannot be listed (a zip file)."""
    try:
        with os.scandir(folder) as entries:
            return sorted([e.name, e.stat().st_mtime_ns] for e in entries if e.name.endswith(DISTRIBUTIONS))
    except OSError:
        return None


def _plugin_count() -> int:
    from importlib.metadata import entry_points

    return len(entry_points(group="pydantic"))


def _read(file: os.PathLike[str]) -> dict[str, Any]:
    try:
        with open(file, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(file: os.PathLike[str], data: dict[str, Any]) -> None:
    """Written aside and renamed into place; a cache that cannot be written only costs the search next time."""
    path = os.fspath(file)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
