"""`python -m railbird` is the `railbird` command."""

import sys

from railbird.cli import main

sys.exit(main())
