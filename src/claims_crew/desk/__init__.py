"""The review desk's own rules: clocks on escalations (clocks.py) and appeals (appeal.py).

Nothing is imported here, so the store can read the clock types without loading the claim
routine that an appeal runs.
"""
