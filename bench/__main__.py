"""``python -m bench [--quick]``: run every benchmark, print a Markdown table, write JSON."""

import sys

from bench._harness import main

if __name__ == "__main__":  # pool workers import this module again; they must not run it
    sys.exit(main())
