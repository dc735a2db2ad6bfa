"""Documents turned into text: PDF text layers and drawn pages (each in a bounded child process),
OCR, and a claim's attachments read within its budget. Policy wordings are read through here too."""
