"""`python -m services.summarizer`: the summarizer on its own (its bootstrap: services/summarizer/bootstrap.py)."""

from .bootstrap import BOOTSTRAP

raise SystemExit(BOOTSTRAP.main())
