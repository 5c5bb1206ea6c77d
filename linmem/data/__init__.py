"""Data shipped with linmem: a sample of real token embeddings (see README.md)."""
