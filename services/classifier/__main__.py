"""`python -m services.classifier`: the classifier on its own (its bootstrap: services/classifier/bootstrap.py)."""

from .bootstrap import BOOTSTRAP

raise SystemExit(BOOTSTRAP.main())
