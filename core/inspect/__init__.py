"""Looking at a memory: its sessions (`funes sessions`, `funes show`), its health
(`funes doctor`) and a local web view (`funes ui`).

Each job lives in its own module and imports lancedb/pyarrow only when it runs:
- `funes.inspect.sessions`: list the sessions of a memory, show one whole session;
- `funes.inspect.overview`: counts per agent and project, activity over time, redactions;
- `funes.inspect.syncview`: for Hub-bound memories, what is pushed and what is still local;
- `funes.inspect.doctor`: every health check (`run_checks`), with safe repairs;
- `funes.inspect.ui`: the loopback web server and its static page.
"""
