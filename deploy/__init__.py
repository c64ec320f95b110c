"""Deployment parts: the proxy's configuration (nginx/) and the periodic commands (scheduler)."""
