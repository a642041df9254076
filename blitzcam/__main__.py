"""`python -m blitzcam`: the console script, for a Python whose scripts folder is not on PATH."""

import sys

from blitzcam.entry import main

if __name__ == "__main__":  # (imported, by pydoc say, it runs nothing)
    sys.exit(main())
