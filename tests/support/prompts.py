"""What a model was sent: the passage IDs in the evidence, as the prompt lays them out."""

from __future__ import annotations

import re

PASSAGE_TAG = re.compile(r'<passage id="([^"]+)"')


def sent_passage_ids(text: str) -> list[str]:
    """The passage IDs in a prompt or tool result, in the order shown."""
    return PASSAGE_TAG.findall(text)


def grouped_by_document(ids: list[str]) -> list[str]:
    """Passage IDs as the evidence shows them: by document, documents in the order of their first passage."""
    docs: dict[str, list[str]] = {}
    for i in ids:
        docs.setdefault(i.split("@")[0].split("#")[0], []).append(i)
    return [i for group in docs.values() for i in group]
