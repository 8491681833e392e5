"""`python -m bench`: every benchmark, one table (see bench/suite.py)."""

import sys

from bench.suite import main

sys.exit(main())
