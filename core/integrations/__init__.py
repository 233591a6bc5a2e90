"""What the agents talk to and what wires funes into them: the per-turn hook and its queue
worker, the MCP server, `funes ask`, the record of wired agents, where each agent's turns are
indexed, and the status they all report.

Kept empty: the hook imports `funes.integrations.hook` on every agent turn, before anything
heavy may load.
"""
