"""Which URLs from the data a report may link: only https URLs on the repository's own forge.

An item's URL comes from whoever wrote the events or GH Archive file: `javascript:`, another host
or a `)` that ends a Markdown link early must never reach a document as a working link.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

# anything a browser strips or treats as a separator inside a URL (tabs, newlines, backslashes)
_UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")
# characters left as they are in a Markdown link target; everything else is percent-encoded
# (parentheses, angle brackets, spaces, brackets, quotes, backticks, non-ASCII)
_MD_SAFE = "/:?#@!$&*+,;=%-._~"


def forge_url(url: str, repo_url: str) -> str:
    """`url` when it is an https URL under the repository's page `repo_url`
    (https://github.com/<owner>/<repo>, or a GitHub Enterprise host's), else "" (not linked)."""
    if not url or _UNSAFE.search(url):
        return ""
    try:
        parts, base = urlsplit(url), urlsplit(repo_url)
        port, base_port = parts.port, base.port
    except ValueError:
        return ""
    if parts.scheme.lower() != "https" or base.scheme.lower() != "https":
        return ""
    if parts.username is not None or parts.password is not None:
        return ""
    if (parts.hostname or "") != (base.hostname or "").lower() or (port or 443) != (
        base_port or 443
    ):
        return ""
    prefix = base.path.rstrip("/").lower() + "/"
    path = parts.path
    if not path.lower().startswith(prefix) or len(path) == len(prefix):
        return ""
    if any(seg in {".", ".."} for seg in path.split("/")):
        return ""
    return url


def md_target(url: str) -> str:
    """A URL as a Markdown link target: `( ) < > [ ]`, spaces, quotes and the like percent-encoded,
    so the link ends where the URL ends."""
    return quote(url, safe=_MD_SAFE)
