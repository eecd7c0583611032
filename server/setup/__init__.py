"""`docs-mcp setup CLIENT`: register the server with a coding agent (Claude Code, Cursor, VS Code, Windsurf,
Codex) and write the rule (and, for Claude Code, the skill) that tells the agent when to search the docs."""
