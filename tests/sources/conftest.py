"""Remote-source fixtures: a documentation site on loopback, fetchers that never sleep."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from docs_site import DocsSite, close_fetchers, running_site


@pytest.fixture
def site() -> Iterator[DocsSite]:
    yield from running_site()


@pytest.fixture(autouse=True)
def _close_fetchers() -> Iterator[None]:
    """Close every fetcher a test opened (open_fetcher): its connections belong to the fetch pool's event loop."""
    yield
    close_fetchers()
