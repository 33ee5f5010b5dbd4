"""``cli.plugins``: pydantic's search for plugins is skipped in an environment found to have none, never where
there is one. Real CLI runs in fresh interpreters, a real (tiny) plugin installed as a distribution on the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.cli import clean_env, install_pydantic_plugin
from support.paths import SAMPLE

PROBE = """
import json, os, sys
from ragcli.cli import main
code = main(sys.argv[1:])
from ragcli.record import Record
class Model(Record):  # as eval, ingest and serve build theirs (a search itself builds no pydantic model)
    x: int
Model(x=1)
import pydantic.plugin._loader as loader
print(json.dumps({"code": code, "disabled": os.environ.get("PYDANTIC_DISABLE_PLUGINS"),
                  "searched": loader._plugins is not None}))
"""

PLUGIN = """
from pathlib import Path
import os

class Plugin:
    def new_schema_validator(self, *args, **kwargs):
        Path(os.environ["PLUGIN_MARKER"]).write_text("used", encoding="utf-8")
        return None, None, None

plugin = Plugin()
"""


def _run(cache: Path, *, path: str | None = None, extra: dict[str, str] | None = None) -> dict[str, object]:
    """A ``search`` in a fresh interpreter (the empty index ends it), then a pydantic model built in it: the
    search's exit code, pydantic's switch as the run left it, and whether pydantic searched."""
    env = clean_env({"RAGCLI_CACHE": str(cache)})
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)  # an in-process CLI run of another test may have set it here
    env.update(extra or {})
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), path) if p)
    user = SAMPLE / "users" / "bob.json"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "search", "q", "--as", str(user), "--index", str(cache)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    found: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return found


def test_an_environment_without_plugins_is_searched_once(tmp_path: Path) -> None:
    first = _run(tmp_path)
    verdict = json.loads((tmp_path / "pydantic-plugins.json").read_text(encoding="utf-8"))
    assert [v["plugins"] for v in verdict["environments"]] == [0]
    assert first["disabled"] == "__all__" and first["searched"] is False
    again = _run(tmp_path)
    assert again["disabled"] == "__all__" and again["searched"] is False


def test_a_plugin_installed_is_found_and_used(tmp_path: Path) -> None:
    cache, site = tmp_path / "cache", tmp_path / "site"
    assert _run(cache)["disabled"] == "__all__"  # the environment without the plugin: none
    site.mkdir()
    install_pydantic_plugin(site, PLUGIN)
    marker = tmp_path / "marker"
    run = _run(cache, path=str(site), extra={"PLUGIN_MARKER": str(marker)})
    assert run["disabled"] is None and run["searched"] is True
    assert marker.read_text(encoding="utf-8") == "used"  # pydantic loaded it and built a validator with it


def test_the_users_own_setting_stands(tmp_path: Path) -> None:
    run = _run(tmp_path, extra={"PYDANTIC_DISABLE_PLUGINS": "some_plugin"})
    assert run["disabled"] == "some_plugin" and not (tmp_path / "pydantic-plugins.json").exists()


def test_a_folder_that_changes_without_a_distribution_keeps_the_verdict(tmp_path: Path) -> None:
    """The working folder of ``python -m ragcli`` changes all day: a new file there is not a new package, so
    pydantic is not searched again; a distribution added to that same folder is (and its plugin found)."""
    cache, site = tmp_path / "cache", tmp_path / "site"
    site.mkdir()
    assert _run(cache, path=str(site))["disabled"] == "__all__"
    (site / "notes.txt").write_text("not a package", encoding="utf-8")
    os.utime(site, ns=(1, 1))  # the folder's time moved (set, so a coarse clock cannot hide the change)
    again = _run(cache, path=str(site))
    assert again["disabled"] == "__all__" and again["searched"] is False
    verdict = json.loads((cache / "pydantic-plugins.json").read_text(encoding="utf-8"))
    assert len(verdict["environments"]) == 1  # the same environment: nothing was counted again
    assert verdict["folders"][str(site)][0] == 1
    install_pydantic_plugin(site, PLUGIN)
    marker = tmp_path / "marker"
    found = _run(cache, path=str(site), extra={"PLUGIN_MARKER": str(marker)})
    assert found["disabled"] is None and found["searched"] is True
    assert marker.read_text(encoding="utf-8") == "used"
