"""How the ingest is built from its settings: `python -m services.ingest`, `repodigest serve`, the
CLI's in-process run and the tests all use this (see shared/bootstrap.py)."""

from shared.bootstrap import Bootstrap

from .app import build_service, settings_problems
from .config import IngestSettings

BOOTSTRAP = Bootstrap("ingest", IngestSettings, build_service, settings_problems)
