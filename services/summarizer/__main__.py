"""`python -m services.summarizer`: the summarizer on its own (composition root)."""

from shared.service import run_service

from .app import build_service
from .config import SummarizerSettings

settings = SummarizerSettings()
raise SystemExit(run_service("summarizer", settings, lambda rt: build_service(settings, rt)))
