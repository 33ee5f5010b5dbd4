"""The ingestion layer: source files in, one new published generation out.

sources      what a source file is (formats, sidecars), strict UTF-8, fingerprints
folder       the ingested folder opened by descriptor: discovery and reads inside it only
metadata     front matter, sidecars, JSONL fields and text fields (Word, reStructuredText), validated
             (a key given twice refused)
report       ``IngestReport``: what one ingest did (``ingest --json``)
loaders      every format into ``Document``s: Markdown, text, JSONL, and the formats below as Markdown
html         HTML to the Markdown the chunker reads
docx         Word documents to Markdown (python-docx): heading styles, lists, tables, properties
rst          reStructuredText to Markdown (docutils): Sphinx markup as text, top field list as metadata
notebook     Jupyter notebooks to Markdown (nbformat): Markdown cells and code cells, outputs dropped
csv          CSV and TSV rows to ``Header: value`` list items
pdf          PDF text by page (pypdf); headings from the outline when there is one
mdwriter     writing escaped Markdown (headings, lists, tables, code) for the converters above
dialects     doc-site markup (Hugo, Docusaurus, MyST, GitHub alerts, ...) unfolded into plain Markdown
inline_markup  the dialects' inline markup (roles, shortcodes, icons, keys) as the text a reader sees
markdown     Markdown as sections of blocks: admonitions unfolded, soft wraps joined
chunking     structure-first splitting into ``Passage``s under the model's token cap
incremental  what can be kept from the generation being replaced
changes      withdrawn (fail closed), kept, deleted; one folder per tenant; one ID per document; ACL spelling
progress     the hooks progress bars are drawn with, and a remaining-time estimate from a moving rate
workers      parsing each file in a worker process under CPU, wall and memory limits; any failure one rejection
pipeline     ``ingest()``: the whole run, under the tenant's write lock
ray_embed    ``RayEmbedding``: the passages that need vectors embedded on a Ray cluster (``--ray``)
job          ``IngestJob``: what one ingest does, described once for ``ingest`` and ``watch``
watch        ``watch()``: run the job again after every change to the folder
"""

from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:  # a parsing worker imports ``workers`` only, not the pipeline these names bring
    from .job import IngestJob as IngestJob
    from .pipeline import ingest as ingest
    from .progress import Progress as Progress
    from .progress import RemainingTime as RemainingTime
    from .report import IngestReport as IngestReport

__all__ = ["IngestJob", "IngestReport", "Progress", "RemainingTime", "ingest"]

__getattr__: Any = lazy_exports(
    __name__,
    {
        "IngestJob": "job",
        "IngestReport": "report",
        "Progress": "progress",
        "RemainingTime": "progress",
        "ingest": "pipeline",
    },
)
