"""`python -m services.ingest`: the ingest on its own (its bootstrap: services/ingest/bootstrap.py)."""

from .bootstrap import BOOTSTRAP

raise SystemExit(BOOTSTRAP.main())
