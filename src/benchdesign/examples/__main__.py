"""``python -m benchdesign.examples [DIR]``: copy the example files into DIR, or print where they are."""

from __future__ import annotations

import argparse
import sys

from benchdesign.examples import FOLDER, copy_examples


def main(argv: list[str] | None = None) -> int:
    """Copy the examples into the folder given (and list the copies), or print the folder they ship in.

    Parameters
    ----------
    argv : command-line arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0, or 2 when the destination is a file.

    Examples
    --------
    >>> main([])  # doctest: +ELLIPSIS
    /.../benchdesign/examples
    0
    """
    parser = argparse.ArgumentParser(prog="python -m benchdesign.examples", description=__doc__)
    parser.add_argument("folder", nargs="?", help="copy the example files here (created); without it, print "
                                                  "the folder the package ships them in")
    args = parser.parse_args(argv)
    if args.folder is None:
        print(FOLDER)
        return 0
    try:
        copies = copy_examples(args.folder)
    except ValueError as err:
        print(f"python -m benchdesign.examples: {err}", file=sys.stderr)
        return 2
    for path in copies:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
