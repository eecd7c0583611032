"""The tools this server offers, one module each: its name, description, input schema, argument record,
parse, run and spec (what the server needs to know of it: slow, the cursor a call continues, after-call hooks).

``offered`` lists them in the order tools/list shows them; ``context`` is what a spec is made with (the
ranking mode, the remote sources, the gateway). The rendering a tool shares with others stays with its
product (the contract's SearchResult grammar and sizing, the libraries' catalog and fetching, the gateway's
service); the registry mechanics are the kernel's (server/core/tool_registry.py).
"""
