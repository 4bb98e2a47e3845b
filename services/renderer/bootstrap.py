"""How the renderer is built from its settings: `python -m services.renderer`, `repodigest serve`, the
CLI's in-process run and the tests all use this (see shared/bootstrap.py)."""

from shared.bootstrap import Bootstrap

from .app import build_service
from .config import RendererSettings

BOOTSTRAP = Bootstrap("renderer", RendererSettings, build_service)
