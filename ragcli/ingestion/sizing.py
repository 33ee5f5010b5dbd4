"""Sizing: model token counts, and a block over the cap cut on its own structure.

``Counts`` counts texts with the model's tokenizer (once each, in batches, and by adding
up parts when the tokenizer allows it); ``Sizer`` packs units into parts of at most a
budget of tokens: table rows with the header repeated, list items, code lines (fenced
again), prose by sentences with a one-sentence overlap, and only as a last resort by
words or characters (see ``chunking``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..text import only_definitions, split_sentences
from .markdown import Block

OVERLAP_MAX_TOKENS = 48
"""A sentence repeated at the start of the next part must be short, or it crowds out new text."""

TokenCounter = Callable[[Sequence[str]], list[int]]
"""Counts model tokens (without special tokens) for each text."""

_EXCEPTION_START = re.compile(
    r"^(except|unless|however|but|exception|this does not apply|note:|only if)\b", re.IGNORECASE
)


class Counts:
    """Model tokens of texts, each text counted once per document (texts asked for together in one batch).

    With ``add_up`` (``Embedder.counts_add_up``: the tokenizer splits words at whitespace first) a text made of
    parts joined by whitespace counts the sum of its parts, so packing a passage costs one count per unit
    instead of one of every growing candidate; the passages are the same either way.
    """

    def __init__(self, count: TokenCounter, *, add_up: bool = False) -> None:
        self.count = count
        self.add_up = add_up
        self.known: dict[str, int] = {}

    def of(self, text: str) -> int:
        known = self.known.get(text)
        if known is None:
            self.prime([text])
            known = self.known[text]
        return known

    def joined(self, text: str, parts: Sequence[str]) -> int:
        """The tokens of ``text``, which is ``parts`` joined by whitespace."""
        if not self.add_up:
            return self.of(text)
        self.prime(parts)
        return sum(self.known[part] for part in parts)

    def prime(self, texts: Sequence[str]) -> None:
        """Count the texts not counted yet, in one call."""
        todo = list(dict.fromkeys(t for t in texts if t not in self.known))
        if todo:
            self.known.update(zip(todo, self.count(todo), strict=True))


class Sizer:
    """Packs units into parts of at most ``budget`` tokens, counting with the model's tokenizer."""

    def __init__(self, counts: Counts, budget: int) -> None:
        self.counts = counts
        self.budget = budget

    def tokens(self, text: str) -> int:
        return self.counts.of(text)

    def fits(self, text: str, parts: Sequence[str] | None = None) -> bool:
        """Whether ``text`` fits; ``parts``: it is those joined by whitespace (counted as them when counts add up)."""
        return (self.tokens(text) if parts is None else self.counts.joined(text, parts)) <= self.budget

    def within(self, budget: int) -> Sizer:
        """A sizer for what is left of this one's budget (the same counts)."""
        return Sizer(self.counts, budget)

    def split_block(self, block: Block) -> list[str]:
        if self.fits(block.text):
            return [block.text]
        if block.kind == "table":
            return self._split_table(block.text)
        if block.kind == "list":
            items = _list_items(block.text)
            parts = self._pack([u for item in items for u in self._container_units(item)], joiner="\n")
            return parts[:1] + [_outdented(part) for part in parts[1:]]
        if block.kind == "code":
            return self._split_code(block.text)
        if block.kind == "quote":
            return self._pack(self._container_units(block.text), joiner="\n")
        return self._split_prose(block.text)

    def _container_units(self, text: str) -> list[str]:
        """A list item or a quote that does not fit, cut on its own structure as a top-level section is: its
        paragraphs whole (or by sentences), its code by lines with every part fenced again and the sentence that
        introduces the code repeated; never by words through the middle of a line of code."""
        if self.fits(text):
            return [text]
        units: list[str] = []
        lead = ""
        for is_code, lines in _segments(text.split("\n")):
            if not is_code:
                for paragraph in _paragraphs(lines):
                    if only_definitions(paragraph.split("\n")):
                        continue  # shows nothing, and cut as prose its lines would run into one line of text
                    units += [paragraph] if self.fits(paragraph) else self._split_prose(_unquoted(paragraph))
                lead = units[-1] if units and units[-1].rstrip().endswith(":") else ""
                continue
            code = "\n".join(lines)
            room = max(16, self.budget - self.tokens(lead) - 1) if lead else 0
            if lead and not self.fits(f"{lead}\n{code}", (lead, code)) and room >= self.budget // 2:
                # Every part of the code says what it is for, as the parts of a top-level block do.
                parts = self.within(room)._split_code(code)
                units[-1] = f"{lead}\n{parts[0]}"
                units += [f"{lead}\n{part}" for part in parts[1:]]
            else:
                units += self._split_code(code)
            lead = ""
        return units

    def _split_table(self, text: str) -> list[str]:
        rows = text.split("\n")
        header = "\n".join(rows[:2])
        body = rows[2:]
        room = self.within(max(16, self.budget - self.tokens(header) - 1))
        return [f"{header}\n{part}" for part in room._pack(body, joiner="\n")]

    def _split_code(self, text: str) -> list[str]:
        """Code by lines; a fenced block's parts are each fenced again, so every part still reads as code."""
        lines = text.split("\n")
        first, last = _bare(lines[0]), _bare(lines[-1]) if len(lines) > 1 else ""
        fenced = len(lines) > 2 and first.startswith(("```", "~~~")) and last in ("```", "~~~", first[:3])
        if not fenced:
            return self._pack_evenly(lines)
        opener, closer = lines[0], lines[-1]
        room = self.within(max(16, self.budget - self.tokens(f"{opener}\n{closer}") - 2))
        return [f"{opener}\n{part}\n{closer}" for part in room._pack_evenly(lines[1:-1])]

    def _pack_evenly(self, lines: list[str]) -> list[str]:
        """Lines of code in as few parts as packing fills, of even size: filled greedily, the last part of a block
        a little over the budget was its last line alone (a doctest's error message without the call that raised
        it). The smallest budget that needs no more parts is found by halving; a line never has to be cut."""
        parts = self._pack(lines, joiner="\n")
        if len(parts) < 2 or not all(self.fits(line) for line in lines):
            return parts
        low, high, even = max(self.tokens(line) for line in lines), self.budget, parts
        while low < high:
            middle = (low + high) // 2
            packed = self.within(middle)._pack(lines, joiner="\n")
            if len(packed) <= len(parts):
                high, even = middle, packed
            else:
                low = middle + 1
        return even

    def _split_prose(self, text: str) -> list[str]:
        sentences = split_sentences(" ".join(text.split()))
        self.counts.prime(sentences)
        sentences = _glue_exceptions(sentences, self)
        parts: list[str] = []
        current: list[str] = []
        for sentence in sentences:
            for unit in self._words_if_needed(sentence):
                if current and not self.fits(" ".join([*current, unit]), [*current, unit]):
                    parts.append(" ".join(current))
                    last = current[-1]
                    # Overlap: repeat the previous sentence so a part does not start mid-thought.
                    short = self.tokens(last) <= OVERLAP_MAX_TOKENS
                    keep = [last] if short and self.fits(f"{last} {unit}", (last, unit)) else []
                    current = [*keep, unit]
                else:
                    current.append(unit)
        if current:
            parts.append(" ".join(current))
        return parts

    def _pack(self, units: list[str], joiner: str) -> list[str]:
        self.counts.prime(units)
        parts: list[str] = []
        current: list[str] = []
        for raw in units:
            for unit in self._words_if_needed(raw):
                if current and not self.fits(joiner.join([*current, unit]), [*current, unit]):
                    parts.append(joiner.join(current))
                    current = []
                current.append(unit)
        if current:
            parts.append(joiner.join(current))
        return parts

    def _words_if_needed(self, unit: str) -> list[str]:
        """The last resort: cut one over-long unit into word windows."""
        if self.fits(unit):
            return [unit]
        words = unit.split()
        pieces: list[str] = []
        start = 0
        while start < len(words):
            count = self._words_that_fit(words, start)
            pieces.append(" ".join(words[start : start + count]))
            start += count
        # A single "word" over the cap (a base64 blob): cut it by characters.
        out: list[str] = []
        for piece in pieces:
            while not self.fits(piece) and len(piece) > 1:
                cut = max(1, len(piece) * self.budget // max(1, self.tokens(piece)) - 1)
                # Tokens are not spread evenly over characters ("!!!!" is one token
                # per character, "aaaa" a few for many): shrink until the cut fits.
                while cut > 1 and not self.fits(piece[:cut]):
                    cut = max(1, min(cut - 1, cut * self.budget // max(1, self.tokens(piece[:cut]))))
                out.append(piece[:cut])
                piece = piece[cut:]
            out.append(piece)
        return out

    def _words_that_fit(self, words: list[str], start: int) -> int:
        """How many words from ``start`` fit together (at least 1): the same greedy cut as adding one word at a
        time (a prefix's token count only grows with its words), found with O(log n) token counts instead of one
        per word, so a very long line costs time linear in its length."""

        def fits(n: int) -> bool:
            window = words[start : start + n]
            return self.fits(" ".join(window), window)

        left = len(words) - start
        good, bad = 1, 2
        while bad <= left and fits(bad):
            good, bad = bad, bad * 2
        bad = min(bad, left + 1)
        while bad - good > 1:
            middle = (good + bad) // 2
            good, bad = (middle, bad) if fits(middle) else (good, middle)
        return good


_QUOTE_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_FENCE_MARK = re.compile(r"^(`{3,}|~{3,})")


def _bare(line: str) -> str:
    """A line without its indentation and blockquote markers."""
    return _QUOTE_PREFIX.sub("", line).strip()


def _segments(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """Runs of lines, each a fenced code block (True, fences included) or what lies between (False); a fence
    may be indented (in a list item) or quoted (``> ```python``)."""
    out: list[tuple[bool, list[str]]] = []
    marker: str | None = None
    for line in lines:
        bare = _bare(line)
        opened = _FENCE_MARK.match(bare)
        if marker is None and opened and not (opened.group(1)[0] == "`" and "`" in bare[opened.end() :]):
            marker = opened.group(1)
            out.append((True, [line]))
        elif marker is not None:
            out[-1][1].append(line)
            if bare and set(bare) == {marker[0]} and len(bare) >= len(marker):
                marker = None
        elif out and not out[-1][0]:
            out[-1][1].append(line)
        else:
            out.append((False, [line]))
    return out


def _paragraphs(lines: list[str]) -> list[str]:
    """Non-blank runs of lines (a list item's lead line, a quoted paragraph)."""
    text = "\n".join(lines)
    return [p.strip("\n") for p in re.split(r"\n(?:[ \t>]*\n)+", text) if p.strip(" \t\n>")]


def _unquoted(text: str) -> str:
    """A quoted paragraph without its ``>`` markers, to be cut by sentences."""
    return "\n".join(_QUOTE_PREFIX.sub("", line) for line in text.split("\n"))


def _outdented(part: str) -> str:
    """A part of a list that starts inside an item (its warning, its tabs of code) with the item's indentation taken
    off its leading lines, up to the next line indented less (the next item): alone, four spaces read as a code block,
    and the answer printed the item's prose as code (pip's ``pip install`` examples, item 10's warning)."""
    lines = part.split("\n")
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    if indent == 0:
        return part
    kept = 0
    for line in lines:
        if line.strip() and len(line) - len(line.lstrip(" ")) < indent:
            break
        kept += 1
    return "\n".join([line[indent:] if line.strip() else "" for line in lines[:kept]] + lines[kept:])


def _list_items(text: str) -> list[str]:
    """Top-level items of a Markdown list, each with its nested lines."""
    items: list[str] = []
    for line in text.split("\n"):
        if re.match(r"^([-*+]|\d+[.)])\s", line) or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    return items


def _glue_exceptions(sentences: list[str], sizer: Sizer) -> list[str]:
    """Keep a rule and the exception that follows it in one unit when they fit."""
    out: list[str] = []
    for sentence in sentences:
        if out and _EXCEPTION_START.match(sentence) and sizer.fits(f"{out[-1]} {sentence}", (out[-1], sentence)):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out
