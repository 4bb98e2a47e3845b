"""`python -m services.notifier`: the notifier as its own process."""

import logging
import sys

from pydantic import ValidationError

from shared.service import run_service

from .app import build_service
from .config import NotifierSettings, describe

try:
    settings = NotifierSettings()
except ValidationError as exc:
    # said without the input values: they hold webhook URLs and passwords
    logging.basicConfig()
    logging.getLogger("repodigest.notifier").error("notifier settings are invalid: %s",
                                                   describe(exc))
    sys.exit(1)
raise SystemExit(run_service("notifier", settings, lambda rt: build_service(settings, rt)))
