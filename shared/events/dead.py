"""Dead-letter headers: why a message went to RD_DEAD, and where it came from.

The original bytes travel unchanged as the dead letter's body; everything we add is a header,
so a dead letter can be inspected, fixed and re-published byte for byte.
"""

from __future__ import annotations

from datetime import datetime

from .envelope import Frozen, utc

PREFIX = "Rd-Dead-"
REASON_MAX = 1000


class DeadLetter(Frozen):
    service: str
    reason: str
    subject: str
    stream: str | None = None
    sequence: int | None = None
    deliveries: int | None = None
    event_id: str | None = None
    failed_at: datetime

    def to_headers(self) -> dict[str, str]:
        headers = {
            f"{PREFIX}Service": self.service,
            f"{PREFIX}Reason": _one_line(self.reason)[:REASON_MAX],
            f"{PREFIX}Subject": self.subject,
            f"{PREFIX}Failed-At": utc(self.failed_at).isoformat(),
        }
        for name, value in (
            ("Stream", self.stream),
            ("Sequence", self.sequence),
            ("Deliveries", self.deliveries),
            ("Event-Id", self.event_id),
        ):
            if value is not None:
                headers[f"{PREFIX}{name}"] = str(value)
        return headers

    @classmethod
    def from_headers(cls, headers: dict[str, str]) -> DeadLetter:
        def get(name: str) -> str | None:
            return headers.get(f"{PREFIX}{name}")

        return cls(
            service=get("Service") or "unknown",
            reason=get("Reason") or "",
            subject=get("Subject") or "",
            stream=get("Stream"),
            sequence=_number(get("Sequence")),
            deliveries=_number(get("Deliveries")),
            event_id=get("Event-Id"),
            failed_at=datetime.fromisoformat(get("Failed-At") or "1970-01-01T00:00:00+00:00"),
        )


def _number(text: str | None) -> int | None:
    return int(text) if text else None


def _one_line(text: str) -> str:
    # NATS headers cannot carry CR/LF; a reason must stay a single readable line
    return " ".join(text.split())
