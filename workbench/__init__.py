"""The application: run specs, the farm of worker processes, the DuckDB store, the CLI."""
__version__ = "0.1.0"
