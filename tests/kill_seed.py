"""The seed a kill test draws its kill points from, so that a failure can be run again.

Each run of the suite draws a fresh seed, so that over many runs the kill tests reach every point they sample
from; ``ALP_NB_KILL_SEED=N`` draws the same points as the run that printed ``ALP_NB_KILL_SEED=N``. Every test
that draws names the seed in its failure messages and prints it (pytest shows it beside a failure).
"""

from __future__ import annotations

import os
import random

VARIABLE = "ALP_NB_KILL_SEED"


def kill_seed() -> int:
    given = os.environ.get(VARIABLE, "")
    seed = int(given) if given else random.SystemRandom().randrange(1_000_000)
    print(f"kill points drawn with {VARIABLE}={seed}")
    return seed
