"""Entry point the hook scripts run as ``python -I -S self_improve/_hook.py NAME``.

``-I -S`` skips site-packages and the user's environment: the hot path needs only the standard
library, and skipping ``site`` saves most of the interpreter's start-up on a busy venv. Isolated
mode also drops the script's folder from ``sys.path``, so we put the package's parent there.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from self_improve.hooks import main  # noqa: E402

sys.exit(main())
