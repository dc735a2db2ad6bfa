"""The CrewAI side: the claims crew, the adjudicator, the tool ledger and the prompt preview."""
