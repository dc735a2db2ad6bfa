"""The human review of escalated claims: terminal commands and a small web page."""
