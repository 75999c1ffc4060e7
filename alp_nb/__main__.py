"""``python -m alp_nb``: the ``alp-nb`` command.

A Ctrl-C prints one line and exits 130 from the first statement of ``alp_nb`` on (see ``alp_nb.__init__``);
only Python's own start, before any code of alp_nb runs, is beyond reach.
"""

import sys

from alp_nb.cli import main

sys.exit(main())
