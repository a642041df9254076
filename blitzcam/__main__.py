"""`python -m blitzcam`: the console script, for a Python whose scripts folder is not on PATH."""

import sys

from blitzcam.entry import main

sys.exit(main())
