"""`python -m horizon_tui …` is the `horizon` command."""

import sys

from horizon_tui.cli import main

sys.exit(main())
