"""CrewAI tools the agents may call."""
