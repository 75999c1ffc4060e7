import sys

from alp_nb.cli import main

sys.exit(main())
