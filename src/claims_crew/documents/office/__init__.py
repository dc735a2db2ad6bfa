"""Word files and workbooks: the zip's sizes checked here (read.py), then the text read by
python-docx or openpyxl in a bounded child process of its own (reader.py)."""
