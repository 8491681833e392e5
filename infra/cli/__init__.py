"""The `senki` command line: one module per command group (main.py is the root)."""
