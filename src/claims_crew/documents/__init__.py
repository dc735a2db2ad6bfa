"""Claim attachments and scanned pages turned into text: the OCR engine and the readers."""
