"""How the summarizer is built from its settings: `python -m services.summarizer`, `repodigest serve`, the
CLI's in-process run and the tests all use this (see shared/bootstrap.py)."""

from shared.bootstrap import Bootstrap

from .app import build_service
from .config import SummarizerSettings, partition_problems

BOOTSTRAP = Bootstrap("summarizer", SummarizerSettings, build_service, partition_problems)
