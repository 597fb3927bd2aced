"""``python -m pokerbot.bot.cli``: the ``pokerbot`` command."""

import sys

from pokerbot.bot.cli import main

sys.exit(main())
