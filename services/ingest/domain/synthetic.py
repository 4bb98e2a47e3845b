"""Moved to `services.ingest.adapters.demo` (a demo data source, not domain; issue #18).

A re-export for the modules not yet importing from there; import from
`services.ingest.adapters.demo` instead.
"""

from services.ingest.adapters.demo import *  # noqa: F401,F403
from services.ingest.adapters.demo import __all__  # noqa: F401
