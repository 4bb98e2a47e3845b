"""How the notifier is built from its settings: `python -m services.notifier`, `repodigest serve`, the
CLI's in-process run and the tests all use this (see shared/bootstrap.py)."""

from shared.bootstrap import Bootstrap

from .app import build_service
from .config import NotifierSettings

BOOTSTRAP = Bootstrap("notifier", NotifierSettings, build_service)
