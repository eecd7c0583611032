"""Embedding models: loading one (loading.py: the default model, packaged ones, fastembed's named ones), running it, verifying its files."""
