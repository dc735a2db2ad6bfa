"""E-mails: a .eml (mime.py) or an Outlook .msg (outlook.py) into one shape (shape.py), an HTML
body as text (html_body.py), and the message with the files it carries read in turn (read.py)."""
