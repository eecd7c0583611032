"""The three small libraries the library tests index (see conftest.py for what each exercises)."""

from __future__ import annotations

import json

from corpus_files import write_corpus  # noqa: F401 - re-exported for this area's tests

QUICKWEB, PYDANTIX, ACME = "quickweb/quickweb", "pydantix/pydantix", "acme/cli"
LONG_PAGE_LINES = 260

_QUICKWEB_MANIFEST = {
    "version": "1",
    "metadata": {"kind": "guide"},
    "overrides": [{"pattern": "reference/**", "metadata": {"kind": "reference"}}],
    "taxonomy": {
        "kind": {"description": "Guide or API reference.", "properties": {"reference": {"mcp_resource": True}}}
    },
    "library": {
        "id": QUICKWEB,
        "name": "QuickWeb",
        "description": "A small, fast Python web framework with dependency injection.",
        "languages": ["python"],
        "aliases": ["qw"],
        "version": "2.1",
        "sections": {"tutorial/**": "Tutorial", "reference/**": "API Reference"},
    },
}

QUICKWEB_FILES: dict[str, str] = {
    ".docs-mcp.json": json.dumps(_QUICKWEB_MANIFEST),
    "index.md": "# QuickWeb\n\nQuickWeb builds HTTP APIs from plain Python functions. It is small and fast.\n",
    "tutorial/first-steps.md": (
        "# First steps\n\nCreate an app and declare a route with the `route` decorator.\n\n"
        "## Run the server\n\nStart it with `quickweb run app:app` and open the browser.\n"
    ),
    "tutorial/dependencies.md": (
        "# Dependencies\n\nDeclare what a route needs with `Depends` and QuickWeb injects it.\n\n"
        "## Depends parameters\n\n`Depends(callable, use_cache=True)` calls the dependency once per request.\n\n"
        "```python\n@app.route('/items')\ndef items(db = Depends(get_db)):\n    return db.all()\n```\n"
    ),
    "tutorial/long-page.md": "# A long page\n\n"
    + "".join(
        f"## Part {n}\n\nLine of part {n}: routing details and middleware order.\n\n"
        for n in range(1, (LONG_PAGE_LINES - 2) // 4 + 1)
    ),
    "reference/routing.md": (
        "# Routing reference\n\nEvery route maps a path and method to a handler function.\n\n"
        "## route()\n\n`route(path, methods=['GET'])` registers a handler.\n"
    ),
    "prompts/add-endpoint.template.md": (
        "---\nname: add-endpoint\ndescription: Add an endpoint to a QuickWeb app.\narguments:\n"
        "  - name: path\n    description: The URL path of the endpoint.\n    required: true\n"
        "  - name: method\n    description: The HTTP method.\n---\n"
        "Add a {{#method}}{{method}} {{/method}}endpoint at {{path}} using get_docs(libraries=['quickweb/quickweb'], topic='route').\n"
    ),
}

PYDANTIX_FILES: dict[str, str] = {
    "concepts/models.md": "# Models\n\nA model declares typed fields; Pydantix validates input against them.\n\n## Fields\n\nEach field has a type and an optional default.\n",
    "concepts/validators.md": "# Validators\n\nValidators check or transform a field's value after type validation.\n\n## field_validator\n\nDecorate a classmethod with `field_validator('name')`.\n",
    "errors.md": "# Errors\n\nInvalid input raises `ValidationError` with one entry per failing field.\n\n## ValidationError\n\nRead `errors()` for the list of failures.\n",
}

_DEPLOY_STEPS = "".join(
    f"Step {n}: the deploy command uploads the bundle, checks the health endpoint and switches traffic.\n\n"
    f"```bash\nacme deploy --env staging --step {n}\n```\n\n"
    for n in range(1, 40)
)
ACME_FILES: dict[str, str] = {
    "install.md": "# Install\n\nInstall the acme command-line tool with `go install acme.dev/cli@latest`.\n",
    "commands/deploy.md": "# acme deploy\n\nDeploy an application bundle to an environment.\n\n## Deploy walkthrough\n\n"
    + _DEPLOY_STEPS,
    "commands/rollback.md": "# acme rollback\n\nRoll back to the previous release when a deploy fails its health check.\n",
}
