"""``python -m bench [--quick]``: run every benchmark, print a Markdown table, write JSON."""

import sys

from bench._harness import main

sys.exit(main())
