"""``python -m bot.cli``: the ``crusader`` command."""

import sys

from bot.cli.main import main

sys.exit(main())
