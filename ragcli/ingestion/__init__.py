"""The ingestion layer: source files in, one new published generation out.

sources      discovery, size limits, strict UTF-8, fingerprints
metadata     front matter, sidecars and JSONL fields, validated
loaders      Markdown, text, HTML, PDF and JSONL into ``Document``s
html         HTML to the Markdown the chunker reads
markdown     Markdown as sections of blocks: admonitions unfolded, soft wraps joined
chunking     structure-first splitting into ``Passage``s under the model's token cap
incremental  what can be kept from the generation being replaced
pipeline     ``ingest()``: the whole run, under the tenant's write lock
ray_embed    ``RayEmbedding``: the passages that need vectors embedded on a Ray cluster (``--ray``)
watch        ``watch()``: ingest again after every change to the folder
"""

from .pipeline import IngestReport, Progress, ingest

__all__ = ["IngestReport", "Progress", "ingest"]
