"""`python -m services.classifier`: the classifier service on its own."""

import logging

from shared.service import run_service

from .app import build_service
from .config import ClassifierSettings
from .domain.rules import ProfileError

settings = ClassifierSettings()
try:
    code = run_service("classifier", settings, lambda rt: build_service(settings, rt))
except ProfileError as exc:  # a broken profile is the operator's to fix: say what, no traceback
    logging.getLogger("repodigest.classifier").error("cannot load the rule profiles:\n%s", exc)
    code = 2
raise SystemExit(code)
