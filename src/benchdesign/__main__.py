"""``python -m benchdesign``: the ``benchdesign`` command line."""

import sys

from benchdesign.cli import main

if __name__ == "__main__":
    sys.exit(main())
