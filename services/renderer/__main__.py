"""`python -m services.renderer`: the renderer on its own (its bootstrap: services/renderer/bootstrap.py)."""

from .bootstrap import BOOTSTRAP

raise SystemExit(BOOTSTRAP.main())
