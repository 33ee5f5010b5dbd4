"""Run the tour of README.md and docs/getting-started.md for real and write what it prints into both.

Run ``python docs/gen_tour.py`` after a change that alters what ``ingest``, ``search``, ``ask`` or
``eval`` print on ``sample_corpus``, and commit both pages. ``tests/test_readme.py`` runs the same
commands and fails when a page shows something else (request IDs, today's date, seconds and the
folder's path aside). The commands are the pages' own: edit a ``$ ...`` line to change the tour.
The work is in ``tests/support/tour.py``, shared with the test.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.tour import folder_for_docs, write


def main() -> int:
    folder = folder_for_docs()
    shutil.rmtree(folder, ignore_errors=True)
    written = write(folder)
    for page in written:
        print(f"wrote {page}")
    if not written:
        print("the tour's output is already what the pages show")
    return 0


if __name__ == "__main__":
    sys.exit(main())
