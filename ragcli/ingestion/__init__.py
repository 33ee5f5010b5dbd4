"""The ingestion layer: source files in, one new published generation out.

sources      what a source file is (formats, sidecars), strict UTF-8, fingerprints
folder       the ingested folder opened by descriptor: discovery and reads inside it only
metadata     front matter, sidecars, JSONL fields and text fields (Word, reStructuredText), validated
             (a key given twice refused)
report       ``IngestReport``: what one ingest did (``ingest --json``)
loaders      every format into ``Document``s: Markdown, text, JSONL, and the formats below as Markdown
html         HTML to the Markdown the chunker reads
docx         Word documents to Markdown (python-docx): heading styles, lists, tables, properties
docx_archive  a Word archive checked before python-docx opens it: unpacked size, body counts, no DOCTYPE
rst          reStructuredText to Markdown (docutils): Sphinx markup as text, top field list as metadata (MyST's
             ``{eval-rst}`` too)
sphinx_markup  the Sphinx roles and directives docutils does not know, run as the text Sphinx shows
notebook     Jupyter notebooks to Markdown (nbformat): Markdown cells and code cells, outputs dropped
csv          CSV and TSV rows to ``Header: value`` list items
pdf          PDF as paged Markdown (pypdf): page marks, outline headings, tables and scans from the two below
pdf_tables   ruled tables on PDF pages (pdfplumber), a continued table keeping its first page's header
pdf_ocr      scanned PDF pages read by Tesseract (``ragcli[ocr]``: pytesseract, pypdfium2), bounded per document
mdwriter     writing escaped Markdown (headings, lists, tables, code, PDF page marks) for the converters above,
             and a container's title as the label its content reads under (``Note: ...``) for every reader
dialects     doc-site markup (Hugo, Docusaurus, MyST, GitHub alerts, ...) unfolded into plain Markdown
directives   MyST directives as their page shows them: labelled prose, code, tables, ``{eval-rst}``, ``{glossary}``;
             what shows nothing dropped
shortcodes   Hugo shortcodes alone on their line: containers as labelled prose, a tab of code as code
comments     HTML comments dropped outside code, one written in a code span kept, Material's default badge
footnotes    footnotes numbered (``[1]``), each note's text at the end of the section that first refers to it
fences       where fenced code begins and ends, a container's indented body, MyST code directives as code
material     Material for MkDocs, pymdownx and mkdocstrings markup: blocks, fence options, annotations, API stubs
inline_markup  the dialects' inline markup (roles, shortcodes, icons, emoji, keys) as the text a reader sees
html_markup  HTML in Markdown (a tag in a sentence, a ``<div>`` or ``<table>`` block) as the text the page shows
crossrefs    what a cross-reference shows: the target's title the folder has (``resolving``), else its text
references   the folder's labels and titles, collected before parsing; each file's reference titles
markdown     Markdown as sections of blocks: admonitions unfolded, soft wraps joined
link_refs    reference-style links the page defines (``[Docusaurus]``) as the text the page shows for them
layout       each passage's top-level blocks read off its document's parse, so its units need no parse of their own
sizing       model token counts (once per text, batched, added up) and a block over the cap cut on its structure
chunking     structure-first splitting into ``Passage``s under the model's token cap
embedding    where new passages' vectors are computed (``EmbeddingBackend``), filled in shortest first
incremental  what can be kept from the generation being replaced
changes      withdrawn (fail closed), kept, deleted; one folder per tenant; one ID per document; ACL spelling
progress     the hooks progress bars are drawn with, and a remaining-time estimate from a moving rate
workers      parsing each file in a worker process under CPU, wall and memory limits
parsing      one file's parse, the boundary where any parser failure becomes that file's one rejection
pipeline     ``ingest()``: the whole run, under the tenant's write lock
ray_embed    ``RayEmbedding``: the passages that need vectors embedded on a Ray cluster (``--ray``)
job          ``IngestJob``: what one ingest does, described once for ``ingest`` and ``watch``
watch        ``watch()``: run the job again after every change to the folder
"""

from typing import TYPE_CHECKING

from ..lazy import export_names, lazy_exports

# A parsing worker imports ``workers`` only, not the pipeline these names bring.
if TYPE_CHECKING:  # the exports, once: "X as X" for type checkers, read by ``lazy`` for the runtime
    from .job import IngestJob as IngestJob
    from .pipeline import ingest as ingest
    from .progress import Progress as Progress
    from .progress import RemainingTime as RemainingTime
    from .report import IngestReport as IngestReport

__all__ = export_names(__file__)


__getattr__ = lazy_exports(__name__, __file__)
