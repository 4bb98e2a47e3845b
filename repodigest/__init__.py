"""The repodigest command line: one-shot reports, the demo, and per-service commands."""
