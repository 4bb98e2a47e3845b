"""`repodigest serve`: services by name, each built by its bootstrap (services/registry.py), on
one runtime until SIGTERM — what deployments run."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from services.registry import SERVICES, bootstrap
from shared.bootstrap import SettingsProblem
from shared.config import CommonSettings
from shared.telemetry import setup_logging, setup_telemetry


class ServeError(Exception):
    """Why the services cannot be served, said for a person (exit status `code`)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def service_names(asked: Sequence[str]) -> list[str]:
    names = list(SERVICES) if list(asked) == ["all"] else list(asked)
    unknown = [n for n in names if n not in SERVICES]
    if unknown:
        raise ServeError(
            f"unknown service(s) {', '.join(unknown)}; choose from {', '.join(SERVICES)} or all", 2
        )
    return names


def serve_services(asked: Sequence[str], log_level: str) -> None:
    """Build every service asked for from its settings (each checked as `python -m services.X`
    checks it) and serve them on one runtime until SIGTERM; ServeError for what a person must
    fix (invalid settings, NATS unreachable, a database that cannot be used)."""
    from services.summarizer.adapters.store import StoreError
    from shared.messaging import PartitionMismatch
    from shared.service import NatsUnreachable, Runtime, serve

    names = service_names(asked)
    setup_logging(log_level)
    # each service's spans carry its own service.name (repodigest-<service>); the process's name
    # (OTEL_SERVICE_NAME, else this) is that of a single service, or of what is no service's
    setup_telemetry(f"repodigest-{names[0]}" if len(names) == 1 else "repodigest-serve")
    settings = CommonSettings()

    async def main() -> None:
        runtime = Runtime(settings, "+".join(names))
        for name in names:
            boot = bootstrap(name)
            try:
                boot.add(runtime, boot.settings())
            except SettingsProblem as exc:
                raise ServeError(str(exc)) from None
            except ValueError as exc:  # e.g. a notifier routes file that is not a route list
                raise ServeError(f"{name} cannot start: {exc}") from None
        await serve(runtime)

    try:
        asyncio.run(main())
    except NatsUnreachable as exc:
        raise ServeError(str(exc)) from None
    except StoreError as exc:  # e.g. REPODIGEST_DATABASE_MIGRATE=false and the schema is behind
        raise ServeError(str(exc)) from None
    except PartitionMismatch as exc:  # the streams are partitioned for another summarizer count
        raise ServeError(str(exc)) from None
