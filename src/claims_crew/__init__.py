"""claims-crew: AI agents review insurance claims; plain Python decides what disagreement means."""

__version__ = "0.1.0"
