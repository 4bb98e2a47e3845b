"""One way to build a service from its settings, for every composition root.

A service's `bootstrap.py` holds a `Bootstrap`: its name, its settings class, what makes its
settings unusable (`problems`), and `build(settings, runtime, **deps)` with every dependency
injectable. `python -m services.X` (`Bootstrap.main`), `repodigest serve`, the CLI's in-process
run and the tests all go through it (`services.registry` lists them), so settings problems are
found and said the same way everywhere.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import ValidationError

from shared.config import CommonSettings

if TYPE_CHECKING:
    from shared.service import Runtime, Service

S = TypeVar("S", bound=CommonSettings)


class SettingsProblem(ValueError):
    """A service's settings cannot work; each problem is said so that a person can fix it (and
    never with the value given: settings hold URLs with passwords, tokens, secrets)."""

    def __init__(self, service: str, problems: list[str]) -> None:
        self.service, self.problems = service, problems
        super().__init__(f"{service} settings are invalid: " + "; ".join(problems))


def validation_problems(exc: ValidationError) -> list[str]:
    """pydantic's errors by field, WITHOUT the input values (its own message repeats them)."""
    return [
        f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
        for e in exc.errors(include_input=False, include_url=False)
    ]


def _no_problems(settings: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class Bootstrap(Generic[S]):
    name: str
    settings_class: type[S]
    build: Callable[..., Service]  # synchronous: a coroutine is refused when it is called
    problems: Callable[[S], list[str]] = _no_problems

    def settings(self, **overrides: Any) -> S:
        """The settings from REPODIGEST_* (and `overrides`), or SettingsProblem."""
        try:
            settings = self.settings_class(**overrides)
        except ValidationError as exc:
            raise SettingsProblem(self.name, validation_problems(exc)) from None
        problems = self.problems(settings)
        if problems:
            raise SettingsProblem(self.name, problems)
        return settings

    def add(self, runtime: Runtime, settings: S, **deps: Any) -> Service:
        """Build the service on `runtime` (its dependencies `deps`, each injectable) and add it
        there."""
        service = self.build(settings, runtime, **deps)
        if asyncio.iscoroutine(service):
            service.close()
            raise TypeError(f"{self.name}: build is a coroutine; build services synchronously")
        return runtime.add(service)

    def main(self) -> int:
        """`python -m services.<name>`: the service alone until SIGTERM; 1 for settings a person
        must fix (each problem on a line of its own) or a failed start, 2 when NATS cannot be
        reached, 0 after draining."""
        from shared.service import run_service

        try:
            settings = self.settings()
        except SettingsProblem as exc:
            for problem in exc.problems:
                print(f"{self.name}: {problem}", file=sys.stderr)
            return 1
        # what `build` refuses (a broken rule profile, a bad routes file) is said by run_service
        return run_service(self.name, settings, lambda runtime: self.build(settings, runtime))
