"""Remote-source fixtures: a documentation site on loopback, fetchers that never sleep."""

from __future__ import annotations

from typing import Iterator

import pytest

from docs_site import DocsSite, running_site


@pytest.fixture
def site() -> Iterator[DocsSite]:
    yield from running_site()
