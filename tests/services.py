"""Real services for tests, started privately on loopback or unix sockets: redis-server, PostgreSQL, haproxy.

Each is Debian's package, started by the test itself (nothing global), and skipped with a
visible reason when its binary is not installed. Readiness is waited on (a log line, a
socket answering), with deadlines, never with sleeps.

PostgreSQL's initdb and postgres refuse to run as root. Under root (CI, containers) they run
as the ``postgres`` OS user that Debian's package creates (else ``nobody``), through
``setpriv``; their data folders are made with ``tempfile.mkdtemp`` under /tmp (pytest's own
temporary folders are private to root) and handed to that user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

STARTUP_TIMEOUT = 60.0  # seconds; generous for a loaded CI machine, never waited on when things work


def wait_until(
    condition: Callable[[], Any],
    what: str,
    timeout: float = STARTUP_TIMEOUT,
    every: float = 0.05,
    explain: Callable[[], str] | None = None,
) -> Any:
    """Poll ``condition`` until it returns something truthy (returned), or fail naming ``what`` after ``timeout``
    (with what ``explain`` says of the state then, to diagnose a failure seen only once)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout:g} s waiting for {what}" + (f": {explain()}" if explain else "")
            )
        time.sleep(every)  # a polling interval under a deadline, not a synchronization


def free_port() -> int:
    """A TCP port free on loopback now (the kernel's choice)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """A private redis-server on a unix socket in ``folder`` (no TCP port to collide on), with ``password`` if given."""

    def __init__(self, folder: Path, password: str = "") -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (apt-get install redis-server); Redis tests skipped")
        sock = folder / "redis.sock"
        self.password = password
        self.url = f"unix://:{password}@{sock}" if password else f"unix://{sock}"
        auth = ["--requirepass", password] if password else []
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                "0",
                "--unixsocket",
                str(sock),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(folder),
                *auth,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:  # ends if redis exits; this line comes once it accepts connections
            if "ready to accept connections" in line.lower():
                break
        else:
            raise AssertionError(f"redis-server exited with {self.process.wait()} before it was ready")
        self.drain = threading.Thread(target=self.process.stdout.read, daemon=True)  # keep reading its log
        self.drain.start()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=STARTUP_TIMEOUT)
        self.drain.join(timeout=STARTUP_TIMEOUT)
        assert self.process.stdout is not None
        self.process.stdout.close()


def postgres_bin() -> Path:
    """The folder of PostgreSQL's server binaries (Debian keeps them off PATH); skip without them."""
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).resolve().parent  # a symlink on PATH: the folder that holds every tool
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if not found:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql); fleet tests skipped")
    return Path(found[-1]).parent


def service_user() -> tuple[list[str], int, int]:
    """(command prefix, uid, gid) that runs PostgreSQL unprivileged: as is, or as postgres/nobody under root."""
    if os.geteuid() != 0:
        return [], os.getuid(), os.getgid()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux): PostgreSQL cannot be started unprivileged")
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        return [setpriv, f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"], user.pw_uid, user.pw_gid
    pytest.skip("running as root and neither a postgres nor a nobody user exists")


class PostgresServer:
    """One PostgreSQL node on 127.0.0.1:``port``: a primary made by initdb, or a streaming standby of one."""

    USER = "fleet"

    def __init__(self, data: Path, port: int, prefix: list[str]) -> None:
        self.data, self.port, self.prefix, self.bin = data, port, prefix, postgres_bin()
        self.log = data.parent / f"{data.name}.log"

    @classmethod
    def primary(cls, root: Path) -> PostgresServer:
        prefix, uid, gid = service_user()
        node = cls(root / "primary", free_port(), prefix)
        node._run(
            "initdb", "-D", str(node.data), "-U", cls.USER, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"
        )
        with open(node.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(
                f"\nlisten_addresses = '127.0.0.1'\nport = {node.port}\nunix_socket_directories = '{root}'\n"
                "wal_level = replica\nmax_wal_senders = 5\nhot_standby = on\nfsync = off\nmax_connections = 60\n"
            )
        with open(node.data / "pg_hba.conf", "a", encoding="utf-8") as hba:
            hba.write(f"host replication {cls.USER} 127.0.0.1/32 trust\n")
        node.start()
        return node

    def standby(self) -> PostgresServer:
        """A streaming standby of this primary (pg_basebackup -R), started."""
        node = PostgresServer(self.data.parent / "standby", free_port(), self.prefix)
        self._run(
            "pg_basebackup",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            self.USER,
            "-D",
            str(node.data),
            "-R",
            "-X",
            "stream",
        )
        with open(node.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(f"\nport = {node.port}\n")
        node.start()
        return node

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.USER}@{self.address}/{database}"

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(int(STARTUP_TIMEOUT)), "start")

    def stop(self, mode: str = "fast") -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def promote(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-w", "promote")

    def sql(self, statement: str, *params: Any) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(statement, params or None)
            return cursor.fetchall() if cursor.description else []

    def _run(self, tool: str, *args: str, check: bool = True) -> None:
        done = subprocess.run(
            [*self.prefix, str(self.bin / tool), *args],
            capture_output=True,
            text=True,
            timeout=STARTUP_TIMEOUT * 2,
            cwd="/",
            env={**os.environ, "LC_ALL": "C"},
        )
        if check and done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise AssertionError(f"{tool} failed ({done.returncode}): {done.stderr.strip()}\n{log}")


class PostgresCluster:
    """A primary and a streaming standby in a private folder under /tmp; removed with everything in it."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="docs-mcp-pg-"))
        _, uid, gid = service_user()
        os.chown(self.root, uid, gid)
        self.primary = PostgresServer.primary(self.root)
        self.standby: PostgresServer | None = None

    def add_standby(self) -> PostgresServer:
        self.standby = self.primary.standby()
        return self.standby

    def url(self) -> str:
        """Every node, for libpq to find the read-write one (after a promotion too)."""
        hosts = ",".join(node.address for node in (self.primary, self.standby) if node is not None)
        return f"postgresql://{PostgresServer.USER}@{hosts}/postgres?connect_timeout=2"

    def close(self) -> None:
        for node in (self.standby, self.primary):
            if node is not None:
                node.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class HAProxy:
    """haproxy in HTTP mode on loopback, round-robin over ``backends`` (name -> port), checking GET /healthz."""

    def __init__(self, folder: Path, backends: dict[str, int]) -> None:
        binary = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None)
        if binary is None:
            pytest.skip("haproxy is not installed (apt-get install haproxy); fleet test skipped")
        self.port = free_port()
        self.stats = folder / "haproxy.sock"
        servers = "".join(f"    server {name} 127.0.0.1:{port} check\n" for name, port in backends.items())
        config = folder / "haproxy.cfg"
        config.write_text(
            "global\n    maxconn 512\n"
            f"    stats socket {self.stats} level admin\n"
            "defaults\n    mode http\n    option http-server-close\n"
            "    timeout connect 2s\n    timeout client 30s\n    timeout server 30s\n"
            f"frontend fleet\n    bind 127.0.0.1:{self.port}\n    default_backend replicas\n"
            "backend replicas\n    balance roundrobin\n    option httpchk GET /healthz\n    http-check expect status 200\n"
            "    default-server inter 200ms fall 1 rise 1\n" + servers,
            encoding="utf-8",
        )
        checked = subprocess.run([binary, "-c", "-f", str(config)], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        self.process = subprocess.Popen(
            [binary, "-db", "-f", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: self.stats.exists(), "haproxy's stats socket")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def states(self) -> dict[str, str]:
        """Each backend server's state as haproxy sees it (UP, DOWN, ...)."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(5)
            sock.connect(str(self.stats))
            sock.sendall(b"show stat\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        rows = [line.split(",") for line in data.decode().splitlines() if line and not line.startswith("#")]
        return {
            row[1]: row[17].split()[0] for row in rows if row[0] == "replicas" and row[1] not in ("FRONTEND", "BACKEND")
        }

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=STARTUP_TIMEOUT)
