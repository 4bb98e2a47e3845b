"""`reload_rules`: a good load replaces the registry and names what changed; any failure keeps the
current registry and says why."""

from __future__ import annotations

from pathlib import Path

from services.classifier.adapters.profiles import load_registry
from services.classifier.domain.rules import ProfileError
from services.classifier.handlers import reload_rules


async def test_good_load_replaces_and_names_the_changed_profiles(tmp_path: Path):
    (tmp_path / "acme.yaml").write_text("profile: acme\nmodules:\n  - {name: a, keywords: [a]}\n")
    current = load_registry(tmp_path)
    (tmp_path / "acme.yaml").write_text("profile: acme\nmodules:\n  - {name: a, keywords: [b]}\n")
    (tmp_path / "beta.yaml").write_text("profile: beta\n")
    registry, reply = await reload_rules(lambda: load_registry(tmp_path), current)
    assert registry is not current and reply.ok and reply.error is None
    assert reply.changed == ("acme", "beta")
    assert (
        reply.profiles["acme"]
        == registry.get("acme").ref.version
        != current.get("acme").ref.version
    )


async def test_unchanged_rules_report_nothing_changed(tmp_path: Path):
    current = load_registry()
    registry, reply = await reload_rules(load_registry, current)
    assert reply.ok and reply.changed == () and reply.profiles == current.versions()


async def test_failures_keep_the_current_rules():
    current = load_registry()

    def broken():
        raise ProfileError("profiles/acme.yaml:7: modules rule 'x', field 'paths': invalid glob")

    def crashing():
        raise RuntimeError("disk on fire")

    for loader, said in (
        (broken, "acme.yaml:7:"),
        (crashing, "RuntimeError while loading the rules: disk on fire"),
    ):
        registry, reply = await reload_rules(loader, current)
        assert registry is current and not reply.ok and said in reply.error
        assert reply.profiles == current.versions() and reply.changed == ()
