"""Reading scanned PDF pages with Tesseract: the optional ``ragcli[ocr]`` extra, bounded per document.

Pages are rendered with pypdfium2 (PDFium, the renderer of Chromium: Apache-2.0/BSD, wheels with the
library inside, no system poppler to match as ``pdf2image`` needs) and read by Tesseract (Debian's
``tesseract-ocr``) through pytesseract, a thin wrapper of the binary (Apache-2.0). ocrmypdf would rewrite
the whole PDF with a text layer: more than ingest needs, and it pulls Ghostscript.

Untrusted input, bounded work: at most ``OcrLimits.pages`` pages and ``OcrLimits.seconds`` seconds of OCR per
document (a 2,000-page scan must not stall an ingest); an image whose declared size is over
``MAX_IMAGE_PIXELS`` rejects its document before anything is decoded (a decompression bomb), and a page
larger than ``MAX_RENDER_PIXELS`` at 300 dpi is rendered at a lower resolution instead.
"""

from __future__ import annotations

import functools
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import DocumentRejected

OCR_DPI = 300
"""Tesseract reads print best at 300 dpi (its documentation's advice); lower loses small type."""
MAX_RENDER_PIXELS = 40_000_000
"""A rendered page at most this many pixels (A3 at 300 dpi is 17 M): a poster-sized page is rendered smaller."""
MAX_IMAGE_PIXELS = 150_000_000
"""An image declaring more pixels than this (a 12,000 x 12,000 scan is 144 M) is taken for a decompression bomb."""
ENABLE_HINT = "pip install 'ragcli[ocr]' and apt-get install tesseract-ocr (or your system's Tesseract package)"
"""How to turn OCR on: said wherever pages are left unread for want of it."""


@dataclass(frozen=True)
class OcrLimits:
    """How much OCR one document may cost; both are reported by ``ingest``."""

    pages: int = 100
    """Pages OCRed per document at most: the rest of a longer scan is left unread (and reported)."""
    seconds: float = 90.0
    """OCR time per document at most: a page is not started once this is spent. Under the parse worker's wall
    limit (``RAGCLI_PARSE_WALL_SECONDS``, 120 by default), so a long scan ends as pages left unread, not as
    the whole document rejected."""


@functools.cache
def missing() -> str | None:
    """What OCR lacks on this machine (None: it works): the extra's packages or the Tesseract binary."""
    try:
        import pypdfium2  # noqa: F401
        import pytesseract
    except ImportError:
        return "the ragcli[ocr] extra (pytesseract, pypdfium2) is not installed"
    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
        return "the tesseract program is not on PATH"
    return None


@dataclass(frozen=True)
class OcrRun:
    """What OCR made of a document's textless pages."""

    texts: dict[int, str]
    """Page index (0-based) -> the text Tesseract read."""
    unread: tuple[int, ...]
    """Page indexes left unread because a limit was reached."""
    limit: str | None
    """Which limit left pages unread: ``pages`` or ``seconds`` (None: every page was read)."""
    seconds: float


def check_images(reader: Any, indexes: Sequence[int], source: str) -> None:
    """Reject the document if a page to render draws an image declaring over MAX_IMAGE_PIXELS pixels."""
    for index in indexes:
        for width, height in _image_sizes(reader.pages[index]):
            if width * height > MAX_IMAGE_PIXELS:
                raise DocumentRejected(
                    source,
                    f"page {index + 1} holds an image of {width:,} x {height:,} pixels, over the "
                    f"{MAX_IMAGE_PIXELS:,}-pixel limit (a decompression bomb?)",
                )


def _image_sizes(page: Any) -> Iterator[tuple[int, int]]:
    """(width, height) of every image XObject of the page, as the PDF declares them (nothing is decoded)."""
    try:
        xobjects = page["/Resources"].get_object().get("/XObject")
        objects = xobjects.get_object().values() if xobjects is not None else []
        for ref in objects:
            image = ref.get_object()
            if image.get("/Subtype") == "/Image":
                yield int(image.get("/Width", 0)), int(image.get("/Height", 0))
    except (KeyError, AttributeError, TypeError, ValueError):
        return


def read_pages(raw: bytes, indexes: Sequence[int], limits: OcrLimits) -> OcrRun:
    """OCR the pages ``indexes`` (0-based) of the PDF ``raw`` within ``limits``; needs ``missing()`` to be None."""
    import pypdfium2 as pdfium
    import pytesseract

    started = time.monotonic()
    texts: dict[int, str] = {}
    todo = list(indexes)
    limit: str | None = "pages" if len(todo) > limits.pages else None
    document = pdfium.PdfDocument(raw)
    try:
        for n, index in enumerate(todo[: limits.pages]):
            left = limits.seconds - (time.monotonic() - started)
            if left <= 0:
                return OcrRun(texts, tuple(todo[n:]), "seconds", time.monotonic() - started)
            image = _render(document[index])
            try:
                texts[index] = pytesseract.image_to_string(image, timeout=max(1, int(left + 0.999)))
            except RuntimeError:  # pytesseract's timeout: this page and the rest stay unread
                return OcrRun(texts, tuple(todo[n:]), "seconds", time.monotonic() - started)
    finally:
        document.close()
    return OcrRun(texts, tuple(todo[limits.pages :]), limit, time.monotonic() - started)


def _render(page: Any) -> Any:
    """The page as a greyscale image at OCR_DPI, or smaller when that would pass MAX_RENDER_PIXELS."""
    width, height = page.get_size()
    scale = OCR_DPI / 72
    pixels = width * height * scale * scale
    if pixels > MAX_RENDER_PIXELS:
        scale *= (MAX_RENDER_PIXELS / pixels) ** 0.5
    return page.render(scale=scale, grayscale=True).to_pil()
