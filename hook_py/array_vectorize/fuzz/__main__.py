"""``python -m array_vectorize.fuzz --seed N --count M [--backend numpy,strict] [--verbose]``."""

import sys

from .runner import main

if __name__ == "__main__":
    sys.exit(main())
