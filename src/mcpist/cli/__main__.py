"""`python -m mcpist.cli`: the `mcpist` command."""

import sys

from mcpist.cli import main

sys.exit(main())
