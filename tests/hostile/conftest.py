"""Hostile sources and upstreams on loopback: fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hostile_site import HostileSite, running_hostile_site


@pytest.fixture
def hostile() -> Iterator[HostileSite]:
    yield from running_hostile_site()
