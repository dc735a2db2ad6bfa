"""The models: which one each agent talks to, and the three of our own (local, scripted, probe)."""
