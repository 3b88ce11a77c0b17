"""``python -m daikifu``: the command line."""

from daikifu.cli import main

if __name__ == "__main__":
    main()
