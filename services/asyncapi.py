"""The AsyncAPI document of all the services (docs/asyncapi.json), from their contracts.

python -m services.asyncapi            # print it (also: repodigest asyncapi)
python -m services.asyncapi --write    # regenerate docs/asyncapi.json
python -m services.asyncapi --check    # exit 1 when the committed file is out of date
faststream docs gen services.asyncapi:app --factory    # FastStream's own command, the same
"""

from __future__ import annotations

import sys
from pathlib import Path

from services.registry import contracts
from shared.messaging.asyncapi import application, render

DOCUMENT = Path(__file__).resolve().parents[1] / "docs" / "asyncapi.json"


def app():
    """The FastStream application of the document (for `faststream docs gen --factory`)."""
    return application(contracts().values())


def current() -> str:
    return render(contracts().values())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = current()
    if "--write" in args:
        DOCUMENT.parent.mkdir(parents=True, exist_ok=True)
        DOCUMENT.write_text(text, encoding="utf-8")
        print(f"wrote {DOCUMENT}")
    elif "--check" in args:
        committed = DOCUMENT.read_text(encoding="utf-8") if DOCUMENT.exists() else ""
        if committed != text:
            print(
                f"{DOCUMENT} is out of date: python -m services.asyncapi --write", file=sys.stderr
            )
            return 1
        print(f"{DOCUMENT} is up to date")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
