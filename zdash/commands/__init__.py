"""One module per CLI command; zdash.cli only parses the command line and dispatches here.
Each imports what it needs lazily, so `zdash --help` and headless commands stay light."""
