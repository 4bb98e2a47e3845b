"""`python -m services.ingest`: the ingest service on its own."""

import sys

from pydantic import ValidationError

from shared.service import run_service

from .app import build_service, settings_problems
from .config import IngestSettings


def main() -> int:
    try:
        settings = IngestSettings()
    except ValidationError as exc:
        for error in exc.errors():
            field = ".".join(str(p) for p in error["loc"])
            print(f"ingest: REPODIGEST_{field.upper()}: {error['msg']}", file=sys.stderr)
        return 2
    problems = settings_problems(settings)
    for problem in problems:
        print(f"ingest: {problem}", file=sys.stderr)
    if problems:
        return 2
    return run_service("ingest", settings, lambda rt: build_service(settings, rt))


raise SystemExit(main())
