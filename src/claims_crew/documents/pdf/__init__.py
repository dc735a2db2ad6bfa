"""PDFs: the text layer and a filled form's fields read by a child process (text.py, reader.py,
form_fields.py, reader_process.py), and pages drawn by pdfium in a bounded child of their own for
OCR and for the review page (rendering.py, page_renderer.py, pages.py)."""
