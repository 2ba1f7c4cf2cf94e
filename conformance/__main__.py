"""`python -m conformance`: the command line (`conformance.console`)."""

import sys

from conformance.console import main

sys.exit(main())
