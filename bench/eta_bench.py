"""How truthful ingest's remaining-time estimate is, and what the model's cost per batch looks like.

Part 1 (calibration): the embedding model on batches of 8 synthetic inputs of each width (8 to 256
word pieces, special tokens included), widths interleaved, the least CPU time (``process_time``, all
of the process's threads) of ``--repeat`` runs each: CPU time is the model's work even when other
processes share the cores, where wall time is not. A least-squares fit of ``seconds = a + b*w +
c*w^2`` gives the width at which a position costs twice what it costs in a short sequence, ``b / c``,
and the per-call cost. On synthetic inputs this says ~265 and ~60 positions; on real passages that
weighs long sequences too much (see the rate drift below), so ``ATTENTION_WIDTH`` and
``BATCH_OVERHEAD`` in ``ragcli/embedder.py`` come from a least-squares fit of each step's CPU time
on one ingest of the uv docs, and are checked on others by this script.

Part 2 (the estimate on a real ingest): the uv docs (``--corpus``) are ingested into a temporary
index with a progress hook that records, after each embedding step, the time and the model work
done; the token count of each step is recomputed from the index (the same shortest-first steps of
16 passages) and checked against the work the hook saw. Then, at every step from 10% of the work on,
two estimates of the embedding time left are compared with the time that was really left, once on
the wall clock (what a user sees, load included) and once on the process's CPU clock (the estimators'
own accuracy, without other processes' load):

  * ``tokens, 30 s window``: what the progress bar showed before (Rich's estimate: tokens over a
    30-second moving window);
  * ``work, moving rate``: ``RemainingTime`` over ``Embedder.batch_work`` (what it shows now).

It prints how steady each unit's rate is (CPU seconds per unit, first half / second half of the steps),
the error (estimate / actual - 1) at each 10% of progress and the largest error from 10% on; the
target is within 15%. On the wall clock a busy machine makes the rate itself move: run it on idle
cores, or read the CPU-clock table.

Run:
    python bench/eta_bench.py                       # both parts, uv docs
    python bench/eta_bench.py --skip-calibration --corpus /path/to/docs
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser

WIDTHS = (8, 16, 32, 64, 96, 128, 160, 192, 224, 256)
STEP = 16
DECILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def calibrate(repeat: int) -> dict[str, Any]:
    import numpy as np

    from ragcli.embedder import Embedder

    embedder = Embedder()
    session = embedder._session
    rng = random.Random(0)
    best = {w: float("inf") for w in WIDTHS}
    embedder._run_batch(session, [[101, 2000, 102]] * 8)  # warm up
    for _ in range(repeat):
        for width in rng.sample(WIDTHS, len(WIDTHS)):
            batch = [[101, *(rng.randint(2000, 20000) for _ in range(width - 2)), 102] for _ in range(8)]
            started = time.process_time()
            embedder._run_batch(session, batch)
            best[width] = min(best[width], time.process_time() - started)
    w = np.array(WIDTHS, dtype=float)
    t = np.array([best[x] for x in WIDTHS])
    a, b, c = np.linalg.lstsq(np.stack([np.ones_like(w), w, w * w], axis=1), t, rcond=None)[0]
    return {"seconds": best, "a": float(a), "b": float(b), "c": float(c), "attention_width": float(b / c)}


CLOCKS = {"wall clock": time.monotonic, "process CPU clock": time.process_time}


class Recorder:
    """A Progress hook that keeps, after each embedding step, every clock's time and the cumulative work."""

    def __init__(self) -> None:
        self.total = 0.0
        self.start: dict[str, float] = {}
        self.times: dict[str, list[float]] = {name: [] for name in CLOCKS}
        self.done: list[float] = []
        self.steps: list[float] = []

    def files(self, total: int) -> None: ...
    def file_done(self) -> None: ...

    def embedding(self, passages: int, work: float) -> None:
        self.total = work
        self.start = {name: clock() for name, clock in CLOCKS.items()}

    def embedded(self, work: float) -> None:
        for name, clock in CLOCKS.items():
            self.times[name].append(clock())
        self.steps.append(work)
        self.done.append((self.done[-1] if self.done else 0.0) + work)


def run_ingest(corpus: Path) -> tuple[Recorder, list[float], list[list[int]]]:
    """Ingest ``corpus``: the recorder, the tokens of each step (special tokens included, capped) and its lengths."""
    import numpy as np  # noqa: F401  (loaded before the clock starts)

    from ragcli import ingest
    from ragcli.embedder import SPECIAL_TOKENS, Embedder

    embedder = Embedder()
    embedder.embed(["warm up the model before the clock starts"])
    recorder = Recorder()
    with tempfile.TemporaryDirectory() as index:
        ingest(corpus, "eta", index=index, embedder=embedder, default_acl=["everyone"], progress=recorder)  # type: ignore[arg-type]
        texts = _index_texts(Path(index), "eta")
    lengths = sorted(embedder.count_tokens(texts))
    steps = [lengths[i : i + STEP] for i in range(0, len(lengths), STEP)]
    work = [embedder.batch_work(step) for step in steps]
    if len(work) != len(recorder.steps) or any(
        abs(x - y) > 1e-6 * max(1.0, x) for x, y in zip(work, recorder.steps, strict=True)
    ):
        raise SystemExit("the recomputed steps do not match what the ingest reported")
    cap = embedder.max_tokens
    tokens = [float(sum(min(n + SPECIAL_TOKENS, cap) for n in step)) for step in steps]
    return recorder, tokens, steps


def _index_texts(index: Path, tenant: str) -> list[str]:
    import json

    generation = next(p for p in (index / tenant).iterdir() if p.name.startswith("gen-"))
    records = [json.loads(line) for line in (generation / "passages.jsonl").read_text(encoding="utf-8").splitlines()]
    return [f"{' › '.join([r['title'], *r['heading_path']])}\n\n{r['text']}" for r in records]


def rate_drift(recorder: Recorder, tokens: list[float]) -> dict[str, float]:
    """CPU seconds per unit of progress in the first half of the steps over the second half, per unit.

    1.0 is a steady rate, which is what an estimate from a moving rate needs; under 1 the early rate is
    too fast and the estimate starts optimistic (what the token count did), over 1 pessimistic.
    """
    clock = "process CPU clock"
    times = [recorder.start[clock], *recorder.times[clock]]
    seconds = [b - a for a, b in zip(times, times[1:], strict=False)]
    half = len(seconds) // 2
    out = {}
    for unit, amounts in (("tokens", tokens), ("model work", recorder.steps)):
        early = sum(seconds[:half]) / sum(amounts[:half])
        late = sum(seconds[half:]) / sum(amounts[half:])
        out[unit] = early / late
    return out


def estimate_errors(recorder: Recorder, tokens: list[float], clock: str) -> dict[str, Any]:
    """Per estimator, the relative error of the time left at each decile of progress, and the worst from 10% on."""
    from ragcli.ingestion import RemainingTime

    times = recorder.times[clock]
    end = times[-1]
    token_done, done_tokens = 0.0, []
    for n in tokens:
        token_done += n
        done_tokens.append(token_done)
    estimators = {
        "tokens, 30 s window (before)": (RemainingTime(sum(tokens), window_s=30.0), done_tokens),
        "work, moving rate (now)": (RemainingTime(recorder.total), recorder.done),
    }
    out: dict[str, Any] = {}
    for label, (estimate, progress) in estimators.items():
        estimate.start(recorder.start[clock])
        errors: list[tuple[float, float]] = []
        for now, work_done, done in zip(times, recorder.done, progress, strict=True):
            estimate.update(done, now)
            fraction = work_done / recorder.total
            left, actual = estimate.seconds_left(now), end - now
            if fraction >= 0.1 and left is not None and actual > 0 and fraction < 0.95:
                errors.append((fraction, left / actual - 1))
        at = {d: next((e for f, e in errors if f >= d), None) for d in DECILES}
        out[label] = {"at": at, "worst": max((abs(e) for _, e in errors), default=None), "points": len(errors)}
    return out


def _constant(name: str) -> object:
    import ragcli.embedder

    return getattr(ragcli.embedder, name)


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--corpus", type=Path, default=None, help="folder to ingest (default: DATA/uv-docs/docs)")
    parser.add_argument("--repeat", type=int, default=7, help="calibration runs per width (the fastest counts)")
    parser.add_argument("--skip-calibration", action="store_true")
    args = parser.parse_args()
    out = Output(args.json)

    if not args.skip_calibration:
        fit = calibrate(args.repeat)
        model_ms = {w: fit["a"] + fit["b"] * w + fit["c"] * w * w for w in WIDTHS}
        out.table(
            f"Model time per batch of 8 by width (fastest of {args.repeat}); fit a + b*w + c*w^2",
            ["width", "ms", "fit ms", "us per position"],
            [[w, 1000 * fit["seconds"][w], 1000 * model_ms[w], 1e6 * fit["seconds"][w] / (8 * w)] for w in WIDTHS],
            caption=f"attention doubles a position's cost at width b/c = {fit['attention_width']:.0f}; "
            f"per-batch overhead a = {1000 * fit['a']:.1f} ms",
        )
        out.put("calibration", fit)

    corpus = args.corpus or args.data / "uv-docs" / "docs"
    recorder, tokens, lengths = run_ingest(corpus)
    out.put("steps", {"lengths": lengths, "times": recorder.times, "start": recorder.start})
    drift = rate_drift(recorder, tokens)
    out.put("rate_drift", drift)
    out.table(
        "CPU seconds per unit, first half of the steps / second half (1.0 = steady)",
        ["unit", "first / second half"],
        [[unit, ratio] for unit, ratio in drift.items()],
        caption=f"model work: Embedder.batch_work with ATTENTION_WIDTH {_constant('ATTENTION_WIDTH')}, "
        f"BATCH_OVERHEAD {_constant('BATCH_OVERHEAD')}",
    )
    results: dict[str, Any] = {}
    for clock in CLOCKS:
        seconds = recorder.times[clock][-1] - recorder.start[clock]
        errors = estimate_errors(recorder, tokens, clock)
        rows = [[label, *(r["at"][d] for d in DECILES), r["worst"]] for label, r in errors.items()]
        out.table(
            f"Embedding time left on the {clock}: estimate / actual - 1, {corpus.name} "
            f"({len(tokens)} steps, {seconds:.1f} s of embedding)",
            ["estimator", *(f"{int(d * 100)}%" for d in DECILES), "worst >= 10%"],
            rows,
            caption="negative = optimistic (the estimate said less time than was left); "
            "target: within 0.15 from 10% on",
        )
        results[clock] = {"seconds": seconds, "steps": len(tokens), "errors": errors}
    out.put("estimates", results)
    out.finish()


if __name__ == "__main__":
    main()
