"""`repodigest site --out DIR` and `repodigest serve web`: the report archive as a directory to
publish (GitHub Pages, any static host) and read-only over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

from rich.console import Console

err = Console(stderr=True, highlight=False, soft_wrap=True)


class SiteError(Exception):
    """Something a person can fix; the CLI prints it and exits 1."""


async def export_site(
    out: Path, artifacts: str | None, nats_url: str | None, data_dir: Path | None
):
    """Every page and artifact of the archive in `artifacts` (a report's `--data-dir` holds its
    own NATS object store) written under `out`."""
    from services.renderer.adapters.site import SiteBuilder
    from services.renderer.adapters.stores import StoreConfigError
    from services.renderer.config import RendererSettings
    from services.renderer.web import open_archive
    from shared.natsserver import EmbeddedNats
    from shared.service import NatsUnreachable

    url = (artifacts or "nats").strip()
    server = None
    settings = RendererSettings(artifacts_url=url)
    try:
        if data_dir is not None and url.split(":", 1)[0] == "nats":
            store_dir = data_dir.expanduser() / "jetstream"
            if not store_dir.is_dir():
                raise SiteError(
                    f"--data-dir {data_dir} holds no event log (no {store_dir}); "
                    "pass the directory a `repodigest report --data-dir` used"
                )
            server = EmbeddedNats(store_dir=store_dir)
            await server.start()
            settings = settings.model_copy(
                update={
                    "nats_url": server.url,
                    **dict.fromkeys(
                        (
                            "nats_tls_ca",
                            "nats_tls_cert",
                            "nats_tls_key",
                            "nats_creds",
                            "nats_nkey",
                            "nats_user",
                            "nats_password",
                            "nats_token",
                        )
                    ),
                }
            )
        elif nats_url:
            settings = settings.model_copy(update={"nats_url": nats_url})
        try:
            store, nc = await open_archive(settings)
        except StoreConfigError as exc:
            raise SiteError(f"--artifacts: {exc}") from None
        except NatsUnreachable as exc:
            raise SiteError(str(exc)) from None
        try:
            return await SiteBuilder(store).export(out)
        finally:
            if nc is not None:
                with contextlib.suppress(Exception):
                    await nc.close()
    finally:
        if server is not None:
            await server.stop()


def site_command(
    out: Path, artifacts: str | None, nats_url: str | None, data_dir: Path | None
) -> int:
    try:
        done = asyncio.run(export_site(out, artifacts, nats_url, data_dir))
    except SiteError as exc:
        err.print(f"error: {exc}")
        return 1
    except OSError as exc:
        err.print(
            f"error: cannot write the site under {out}: {exc.strerror or exc}; choose another --out"
        )
        return 1
    if not done.repositories:
        err.print(
            f"the archive holds no reports yet: {done.path / 'index.html'} says so "
            "(make one with `repodigest report ... --data-dir DIR`, or point --artifacts "
            "at the renderer's store)"
        )
    repos = "1 repository" if done.repositories == 1 else f"{done.repositories} repositories"
    sys.stdout.write(
        f"wrote {done.pages} pages and {done.artifacts} artifacts of {repos} "
        f"to {done.path}; open "
        f"{done.path / 'index.html'}\n"
    )
    return 0


def web_command() -> int:
    """Serve the archive until SIGTERM/SIGINT (settings from REPODIGEST_*)."""
    from pydantic import ValidationError

    from services.renderer.adapters.stores import StoreConfigError
    from services.renderer.web import ListenError, WebSettings, serve_web
    from shared.service import NatsUnreachable

    try:
        settings = WebSettings()
    except ValidationError as exc:
        err.print(
            "error: web settings are invalid: "
            + "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)
            )
        )
        return 1
    try:
        asyncio.run(serve_web(settings))
    except (StoreConfigError, NatsUnreachable, ListenError) as exc:
        err.print(f"error: {exc}")
        return 1
    except KeyboardInterrupt:
        pass
    return 0
