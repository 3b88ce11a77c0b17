"""``python -m daikifu``: the command line."""

from daikifu.cli import run

if __name__ == "__main__":
    run()
