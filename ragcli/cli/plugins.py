"""pydantic's search for plugins, skipped when this Python environment has none.

pydantic looks for plugins (entry points of group ``pydantic``) in every
installed distribution when it builds its first validator: a read of every
package's metadata at each CLI start. The answer changes only when packages
are installed or removed, which changes the folders on ``sys.path``. So the
CLI records the answer under ``settings.cache_dir()`` with those folders'
modification times, and while they are unchanged and the answer was "none",
it tells pydantic there is nothing to find (``PYDANTIC_DISABLE_PLUGINS``, the
switch pydantic documents). An environment with a plugin, a verdict that
cannot be read, or a user's own ``PYDANTIC_DISABLE_PLUGINS`` leave pydantic
to do as it always does.
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


def skip_an_empty_plugin_search() -> None:
    """Tell pydantic not to search for plugins when this environment was found to have none."""
    if DISABLE_ENV in os.environ:
        return  # the user's own setting stands
    key = _environment()
    file = cache_dir() / VERDICT
    known = [v for v in _read(file).get("environments", []) if isinstance(v, dict)]
    plugins = next((v.get("plugins") for v in known if v.get("environment") == key), None)
    if plugins is None:
        plugins = _plugin_count()
        kept = [v for v in known if v.get("environment") != key][-(MAX_ENVIRONMENTS - 1) :]
        _write(file, {"environments": [*kept, {"environment": key, "plugins": plugins}]})
    if plugins == 0:
        # Children (Ray workers) inherit it: they run in this same environment.
        os.environ[DISABLE_ENV] = "__all__"


def _environment() -> list[list[Any]]:
    """Each folder of ``sys.path`` with its modification time: what installing or removing a package changes."""
    folders = []
    for entry in sys.path:
        try:
            folders.append([entry, os.stat(entry or ".").st_mtime_ns])
        except OSError:
            folders.append([entry, None])
    return folders


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
