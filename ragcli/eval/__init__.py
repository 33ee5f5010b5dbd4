"""The eval layer: a labelled question file in, metrics and CI gates out.

cases    the question file, validated line by line before anything runs
metrics  label matching, recall / precision / MRR / nDCG, percentiles
gates    CI thresholds from the command line, validated before anything runs
run      ``evaluate()``: one search per case, and the answer loop with ``--ask``
report   aggregation, gates, failures, and ``EvalReport.to_wire``
wire     the ``--json`` shapes (``EvalJson``, ``CaseJson``, gates, failures) every format below reads, and
         ``--baseline`` reads back
junit    ``--junit``: JUnit XML for CI pages (a test case per question and per gate)
summary  ``--summary``: Markdown for ``$GITHUB_STEP_SUMMARY``
html     ``--report``: one self-contained HTML page (gates, outcomes, latency histograms, sortable cases)
breakdown  latency, tokens and cost by outcome and reason code; the agent path (re-searches, repairs, query drift)
setups   ``EvalSetup`` (how one run is made), the TOML configurations of ``--compare``, running a setup
compare  two runs of the same cases: per-metric differences with a paired bootstrap interval, flips, drop gates
"""

from .cases import Case, load_cases
from .compare import CompareJson, compare
from .gates import Gates
from .report import EvalReport
from .run import evaluate
from .setups import EvalSetup, run_setup

__all__ = ["Case", "CompareJson", "EvalReport", "EvalSetup", "Gates", "compare", "evaluate", "load_cases", "run_setup"]
