"""``python -m railbird.review RECORDING --out DIR`` until the CLI wires ``railbird review``."""

import argparse
import logging
import sys

from railbird.review.run import add_arguments, run_review
from rules.errors import RailbirdError

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
parser = argparse.ArgumentParser(prog="railbird review")
add_arguments(parser)
try:
    sys.exit(run_review(parser.parse_args(), sys.stdout))
except RailbirdError as exc:
    print(f"railbird review: {exc}", file=sys.stderr)
    sys.exit(2)
