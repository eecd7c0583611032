"""Fleet fixtures: a PostgreSQL primary for the control plane's tests (tests/services.py starts it privately).

Skipped, with the reason shown, where PostgreSQL is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from services import PostgresCluster


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL primary (no standby) for the fleet's unit tests; each test uses its own database."""
    cluster = PostgresCluster()
    yield cluster
    cluster.close()


@pytest.fixture
def database(postgres: PostgresCluster, request: pytest.FixtureRequest) -> str:
    """The URL of a fresh database on the module's primary."""
    name = "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name.lower())[:50]
    postgres.primary.sql(f"DROP DATABASE IF EXISTS {name}")
    postgres.primary.sql(f"CREATE DATABASE {name}")
    return postgres.primary.url(name)
