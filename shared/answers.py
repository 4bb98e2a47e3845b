"""Asking again for an unchanged window publishes nothing (issue #17 item 2).

A report request whose window has not changed since its revision was summarized needs no new
summary and no new report: the revision that exists answers it. The summarizer then asks the
renderer, by a core NATS request (no stream keeps it, so no event is added to the log), to answer
the requester with the report-ready that announced the revision. The renderer answers only when
every language and format asked for was announced; otherwise (another language, a revision still
being rendered), or when no renderer answers, the summarizer publishes the summary as before and
the renderer renders what is missing into the same revision.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

# core NATS, outside every stream's subjects; renderer replicas answer in one queue group
SUBJECT = "rd.answer.unchanged"
QUEUE = "renderer"
ANSWERED = b"answered"  # the renderer sent the requester its report-ready
RENDER = b"render"  # not everything asked for was announced: publish the summary


class UnchangedRequest(BaseModel):
    """Answer `request_id` with the announced revision `revision` of the window."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_id: str
    repo: str
    window_label: str
    revision: int
    languages: tuple[str, ...]
    formats: tuple[str, ...]
