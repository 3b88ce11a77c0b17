"""The ``daikifu`` command line."""

from daikifu.archive.cli import main

__all__ = ["main"]
