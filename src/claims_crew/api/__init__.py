"""The HTTP API a claims system calls (/api/v1): submit claims, follow them, fetch letters."""
