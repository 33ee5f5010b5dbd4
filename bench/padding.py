"""Does the answerer's decision hang on how long a question is? Each set asked as written and with a preamble.

Every question of the fifteen development sets is asked twice through the real CLI (``ragcli eval QUESTIONS
--ask --json``, the local answerer with the shipped ``fitted.py``): as written, and with the same neutral
first sentence before it (``--pad``, default: "I've been reading through the documentation for a while and
I'm still not sure about one thing."). The preamble asks nothing and names nothing, so a rule that reads the
evidence should decide the same way; a rule that has learnt the development sets' question style (their
unanswerable questions are short) answers more of the padded unanswerable ones.

    python bench/padding.py --index /tmp/answers-index [--sets uv-docs,attrs] [--pad "..."] [--lower]

With ``--lower`` the second asking is the question in lower case instead (as typed in a hurry: "install
lazygit ubuntu"): the names the answerer looks for are read from capitals, so this probes that reading.

The weights are the shipped ones, fitted on these sets: this measures a sensitivity, not left-out quality
(``answers.py`` does that). The index is the one ``answers.py --index`` builds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser
from answers import DEV, QUESTIONS

PAD = "I've been reading through the documentation for a while and I'm still not sure about one thing. "


def reworded_copy(name: str, pad: str, into: Path, lower: bool = False) -> Path:
    """The set's question file with ``pad`` before every question (or, ``lower``, every question in lower case),
    beside copies of its user files."""
    source = QUESTIONS / f"{name}.jsonl"
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            case["question"] = case["question"].lower() if lower else pad + case["question"]
            lines.append(json.dumps(case))
    for user in QUESTIONS.glob("*-user.json"):
        shutil.copy(user, into / user.name)
    target = into / source.name
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def abstentions(questions: Path, index: Path) -> tuple[int, int, int, int, int]:
    """(answerable abstained, answerable, unanswerable abstained, unanswerable, answerable answered right) of
    one ``eval --ask`` run."""
    proc = subprocess.run(
        [sys.executable, "-m", "ragcli", "eval", str(questions), "--ask", "--index", str(index), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if not proc.stdout.strip():
        raise SystemExit(f"error: ragcli eval {questions.name} printed nothing: {proc.stderr[-500:]}")
    cases = json.loads(proc.stdout)["cases"]
    answerable = [c for c in cases if c.get("expect") == "answer"]
    unanswerable = [c for c in cases if c.get("expect") and c.get("expect") != "answer"]
    return (
        sum(c.get("disposition") == "abstained" for c in answerable),
        len(answerable),
        sum(c.get("disposition") == "abstained" for c in unanswerable),
        len(unanswerable),
        sum(bool(c.get("answer_ok")) for c in answerable),
    )


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, required=True, help="an index holding the sets' tenants")
    parser.add_argument("--sets", default=",".join(DEV), help="comma-separated question sets (default: all)")
    parser.add_argument("--pad", default=PAD, help="the sentence put before every question")
    parser.add_argument("--lower", action="store_true", help="ask each question in lower case instead of padded")
    args = parser.parse_args()
    out = Output(args.json)
    rows = []
    totals = [0] * 10
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sets.split(","):
            written = abstentions(QUESTIONS / f"{name}.jsonl", args.index)
            padded = abstentions(reworded_copy(name, args.pad, Path(tmp), args.lower), args.index)
            counts = [*written, *padded]
            totals = [t + c for t, c in zip(totals, counts, strict=True)]
            rows.append([name, *counts])
    rows.append(["all", *totals])
    table = [
        [r[0], f"{r[5]}/{r[2]} → {r[10]}/{r[7]}", f"{r[1]}/{r[2]} → {r[6]}/{r[7]}", f"{r[3]}/{r[4]} → {r[8]}/{r[9]}"]
        for r in rows
    ]
    changed = "in lower case" if args.lower else "with the preamble"
    out.table(
        f"As written → {changed}",
        ["set", "answered right", "answerable abstained", "unanswerable abstained"],
        table,
        caption="every question in lower case" if args.lower else f"preamble: {args.pad.strip()!r}",
    )
    keys = ["answerable_abstained", "answerable", "unanswerable_abstained", "unanswerable", "right"]
    out.put(
        "sets",
        {
            r[0]: {"written": dict(zip(keys, r[1:6], strict=True)), "changed": dict(zip(keys, r[6:11], strict=True))}
            for r in rows
        },
    )
    out.finish()


if __name__ == "__main__":
    main()
