"""URLs in registry metadata: picking one by its label, and repository URLs in the https form."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_SCP = re.compile(r"^(?:ssh://)?git@(?P<host>[^:/]+)[:/](?P<path>.+)$")
_SHORTHAND = re.compile(r"^(?:(?P<host>github|gitlab|bitbucket):)?(?P<path>[A-Za-z0-9][\w.-]*/[\w.-]+)$")
_HOSTS = {"github": "github.com", "gitlab": "gitlab.com", "bitbucket": "bitbucket.org"}


def first_url(labelled: Mapping[str, str], labels: Iterable[str]) -> str:
    """The http(s) URL of the first label (lower-case) ``labelled`` has among ``labels``."""
    for label in labels:
        value = labelled.get(label, "")
        if value.startswith(("http://", "https://")):
            return value
    return ""


def https_repository(value: str) -> str:
    """A repository reference as an https URL: ``git+https://x/y.git``, ``git@x:y``, ``github:y/z`` and ``y/z`` normalized ('' when it is none)."""
    value = value.strip()
    if not value:
        return ""
    if match := _SHORTHAND.fullmatch(value):
        value = f"https://{_HOSTS[match['host'] or 'github']}/{match['path']}"
    elif match := _SCP.match(value):
        value = f"https://{match['host']}/{match['path']}"
    value = value.removeprefix("git+").replace("git://", "https://", 1)
    if not value.startswith(("http://", "https://")):
        return ""
    return value.removesuffix("/").removesuffix(".git")
