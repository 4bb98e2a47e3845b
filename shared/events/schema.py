"""Committed JSON Schemas, one per event type: `python -m shared.events.schema --write` regenerates
them, and the AsyncAPI document that embeds them (docs/asyncapi.json, `services.asyncapi`).

The contract test compares these files with the models, so a model that changes without its
schema file being regenerated (and reviewed in the diff) fails CI.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import ALL_EVENT_TYPES
from .envelope import CloudEvent, schema_uri

SCHEMA_DIR = Path(__file__).with_name("schemas")


def schema_of(cls: type[CloudEvent]) -> dict:
    schema = cls.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = schema_uri(cls.TYPE)
    return schema


def render(cls: type) -> str:
    return json.dumps(schema_of(cls), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def expected_files() -> dict[str, str]:
    return {f"{cls.TYPE}.json": render(cls) for cls in ALL_EVENT_TYPES}


def main(argv: list[str]) -> int:
    files = expected_files()
    if "--write" in argv:
        SCHEMA_DIR.mkdir(exist_ok=True)
        for stale in SCHEMA_DIR.glob("*.json"):
            if stale.name not in files:
                stale.unlink()
        for name, text in files.items():
            (SCHEMA_DIR / name).write_text(text, encoding="utf-8")
        print(f"wrote {len(files)} schemas to {SCHEMA_DIR}")
        # the AsyncAPI document embeds the same models: regenerated with them
        from services.asyncapi import main as asyncapi

        return asyncapi(["--write"])
    stale = [
        n
        for n, t in files.items()
        if not (SCHEMA_DIR / n).exists() or (SCHEMA_DIR / n).read_text(encoding="utf-8") != t
    ]
    if stale:
        print(
            "schemas out of date: "
            + ", ".join(stale)
            + "\nrun: python -m shared.events.schema --write",
            file=sys.stderr,
        )
        return 1
    print(f"{len(files)} schemas up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
