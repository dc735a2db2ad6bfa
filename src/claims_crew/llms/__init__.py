"""The models: which one each agent talks to, and the three of our own (local, scripted, probe).

providers/ holds what is known of each model provider, one module each (endpoint, key variable,
client options, what its errors mean, its limits); endpoints.py and select.py choose and build
an agent's model from it. providers/ and endpoints.py import no CrewAI: `config check` reads
them.
"""
