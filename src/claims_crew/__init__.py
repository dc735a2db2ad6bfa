"""claims-crew: AI agents help review insurance claims; plain Python decides what their disagreement means."""

__version__ = "0.1.0"
