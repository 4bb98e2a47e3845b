"""How the classifier is built from its settings: `python -m services.classifier`, `repodigest serve`, the
CLI's in-process run and the tests all use this (see shared/bootstrap.py)."""

from shared.bootstrap import Bootstrap

from .app import build_service
from .config import ClassifierSettings

BOOTSTRAP = Bootstrap("classifier", ClassifierSettings, build_service)
