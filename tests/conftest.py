"""Loads the one shared harness (tests/support): fixtures, runners, corpora, checks.

It also picks the Hypothesis profile, before any test module builds its ``settings``:

- ``ci`` when the ``CI`` variable is set (GitHub Actions and GitLab set it; so does ``.ci/run``):
  derandomized, so a property test fails on every run or on none (a random failure in CI would only be
  seen once, and could not be told from flakiness); no example database (nothing to keep between clean
  clones); ``print_blob`` on, so a failure prints the ``@reproduce_failure`` line that replays it.
- ``dev`` otherwise: random examples on every run, so local runs keep finding new cases, and the
  database under ``.hypothesis/`` replays a failure first until it is fixed.

``HYPOTHESIS_PROFILE`` names either one explicitly. A test's own ``@settings`` override a profile field by
field (``max_examples``, ``deadline``, a ``database=None``), and the rest comes from the profile.
"""

import os

from hypothesis import HealthCheck, settings

# Both built on Hypothesis's own "default" profile, not on whatever is loaded now: under CI Hypothesis loads
# its built-in "ci" profile at import, and a profile registered without a parent inherits the loaded one.
_BASE = settings.get_profile("default")
settings.register_profile(
    "ci",
    _BASE,
    derandomize=True,
    database=None,
    print_blob=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", _BASE, print_blob=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

pytest_plugins = ["support.fixtures", "support.scheduling"]
