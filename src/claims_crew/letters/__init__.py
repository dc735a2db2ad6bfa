"""Decision letters: what a decided claim's letter says (content.py), rendered through the
team's Jinja2 templates in config/letters/ (render.py) as Markdown, HTML or a PDF (pdf.py),
and issued with its hash in the audit trail (issue.py). sample.py holds the decisions
`config check` renders the templates against."""
