"""`python -m services.renderer`: the renderer as its own process."""

from shared.service import run_service

from .app import build_service
from .config import RendererSettings

settings = RendererSettings()
raise SystemExit(run_service("renderer", settings, lambda rt: build_service(settings, rt)))
