"""Which package: ``pypi:NAME[==VERSION]`` or ``npm:NAME[@VERSION]``, and the library ID its documentation gets.

    pypi:requests            the newest release            -> library pypi/requests/v2.32.3
    pypi:requests==2.31.0    that release                  -> library pypi/requests/v2.31.0
    npm:react@18.2.0         that release                  -> library npm/react/v18.2.0
    npm:@types/node@20.1.0   a scoped package              -> library npm-types/node/v20.1.0

PyPI names are normalized as PEP 503 says (``Foo_Bar`` is ``foo-bar``); npm names are
lower-case already. A scoped npm package ``@scope/name`` is the library ``npm-scope/name``,
so it can never take the ID of an unscoped package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docs_mcp.indexer.errors import PackageSpecError
from docs_mcp.indexer.libraries.versions import is_version, versioned_id

PYPI = "pypi"
NPM = "npm"
ECOSYSTEMS = (PYPI, NPM)
_PYPI_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?")
_NPM_NAME = re.compile(r"(?:@(?P<scope>[a-z0-9][a-z0-9._-]{0,100})/)?(?P<name>[a-z0-9][a-z0-9._-]{0,213})")
_PEP503 = re.compile(r"[-_.]+")
_UNSAFE_VERSION = re.compile(r"[/\\\x00-\x1f\x7f]|\.\.")
SPEC_HINT = "Write pypi:NAME or pypi:NAME==VERSION (e.g. pypi:requests==2.31.0), npm:NAME or npm:NAME@VERSION (e.g. npm:@types/node@20.1.0)."


@dataclass(frozen=True)
class PackageRef:
    """A package of one ecosystem, at one version ('' : the newest release)."""

    ecosystem: str  # PYPI or NPM
    name: str  # normalized (PyPI) or as published (npm, scope included)
    version: str = ""

    @property
    def base_id(self) -> str:
        """The library ID of the package, any version: ``pypi/NAME``, ``npm/NAME`` or ``npm-SCOPE/NAME``."""
        if self.ecosystem == NPM and self.name.startswith("@"):
            scope, name = self.name[1:].split("/", 1)
            return f"npm-{scope}/{name}"
        return f"{self.ecosystem}/{self.name}"

    @property
    def library_id(self) -> str:
        """The versioned library ID (the version must be known)."""
        return versioned_id(self.base_id, self.version)

    def at(self, version: str) -> PackageRef:
        return PackageRef(self.ecosystem, self.name, version)

    def __str__(self) -> str:
        if not self.version:
            return f"{self.ecosystem}:{self.name}"
        return f"{self.ecosystem}:{self.name}{'==' if self.ecosystem == PYPI else '@'}{self.version}"


def unsafe_version(version: str) -> bool:
    """Whether a version (a registry's, a lock file's) holds what no library ID or path may: '/', '\\', '..', NUL or
    another control character."""
    return _UNSAFE_VERSION.search(version) is not None


def normalize_pypi(name: str) -> str:
    """A PyPI project name as PEP 503 normalizes it."""
    return _PEP503.sub("-", name).lower()


def package_ref(ecosystem: str, name: str, version: str = "") -> PackageRef:
    """A checked reference to ``name`` at ``version`` in ``ecosystem``.

    Raises:
        PackageSpecError: the ecosystem, name or version is not valid.
    """
    name, version = name.strip(), version.strip()
    if version[:1] == "v" and version[1:2].isdigit():  # v1.2.3, as tags spell it
        version = version[1:]
    if ecosystem == PYPI:
        if not _PYPI_NAME.fullmatch(name):
            raise PackageSpecError(f"'{name}' is not a PyPI project name.", SPEC_HINT)
        name = normalize_pypi(name)
    elif ecosystem == NPM:
        if not _NPM_NAME.fullmatch(name.lower()):
            raise PackageSpecError(f"'{name}' is not an npm package name.", SPEC_HINT)
        name = name.lower()
    else:
        raise PackageSpecError(f"'{ecosystem}' is not a package registry docs-mcp reads.", SPEC_HINT)
    if version and (not is_version(version) or unsafe_version(version)):
        raise PackageSpecError(
            f"'{version}' is not a version of {name}.", "Give an exact version, e.g. ==2.31.0 or @18.2.0."
        )
    return PackageRef(ecosystem, name, version)


def parse_package_spec(text: str) -> PackageRef:
    """``pypi:NAME[==VERSION]`` or ``npm:NAME[@VERSION]`` as a reference.

    Raises:
        PackageSpecError: ``text`` is not of either form.
    """
    ecosystem, colon, rest = text.strip().partition(":")
    if not colon or ecosystem not in ECOSYSTEMS or not rest:
        raise PackageSpecError(f"'{text}' names no package.", SPEC_HINT)
    if ecosystem == PYPI:
        name, _, version = rest.partition("==")
        return package_ref(PYPI, name, version)
    scoped = rest.startswith("@")
    name, at, version = rest[1:].partition("@") if scoped else rest.partition("@")
    return package_ref(NPM, ("@" if scoped else "") + name, version if at else "")
