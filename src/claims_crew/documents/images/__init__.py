"""Photos and scans: opened under a pixel cap (opener.py, which every part that opens an image
uses), their frames taken within a claim's budget (pages.py) and read by OCR (ocr.py)."""
