"""The ranking's learned parts: the candidates' features, the ranking model and its gate, get_docs' confidence.

The engine (server/search) orders the fusion's candidates with ``model``; ``Engine.candidate_pool``
is the public view of those candidates that training (eval/training.py) learns from. It may import
the search engine's lexical helpers and the indexer's read side; never MCP, the contract, the
libraries, team mode or the gateway.
"""
