"""`python -m services.notifier`: the notifier on its own (its bootstrap: services/notifier/bootstrap.py)."""

from .bootstrap import BOOTSTRAP

raise SystemExit(BOOTSTRAP.main())
