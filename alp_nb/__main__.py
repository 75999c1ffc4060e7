"""``python -m alp_nb``: the ``alp-nb`` command.

``main`` turns a Ctrl-C into one line and exit 130. One that lands before ``main`` is called (while Python
starts and imports ``alp_nb.cli``) still ends in Python's own traceback: nothing of alp_nb runs yet to catch it.
"""

import sys

from alp_nb.cli import main

sys.exit(main())
