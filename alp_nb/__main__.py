"""``python -m alp_nb``: the ``alp-nb`` command.

A Ctrl-C prints one line and exits 130 from the first statement of ``alp_nb`` on (see ``alp_nb.__init__``);
only Python's own start, before any code of alp_nb runs, is beyond reach. Under ``-m``, CPython ends the process by
SIGINT instead of with its exit code when a KeyboardInterrupt ever escaped code it ran from a string (a dataclass's
generated methods, say), caught since or not; running a string clears that record, so the code is the command's.
"""

import sys

from alp_nb.cli import main

code = main()
exec("")  # clears CPython's record of a KeyboardInterrupt escaping a string's code (see above)
sys.exit(code)
