"""The one lock every call into pdfium takes.

pdfium is not safe to call from two threads at once, in one document or in two, and one process
may call it from several places at the same time: claims of a batch reading scanned attachments
(documents/pages.py) or opening a scanned policy (policy/scanned.py), and the review page's
routes, which run in a pool, drawing a page image (review/page_image.py). A lock of each
module's own would keep out only that module's other threads.
"""

from __future__ import annotations

import threading

PDFIUM = threading.Lock()
