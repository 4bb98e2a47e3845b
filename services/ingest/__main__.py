"""`python -m services.ingest`: the ingest service on its own."""

from shared.service import run_service

from .app import build_service
from .config import IngestSettings

settings = IngestSettings()
raise SystemExit(run_service("ingest", settings, lambda rt: build_service(settings, rt)))
