"""The names of the failure injections, in their order, apart from the scenarios themselves: the command line
names them in its help on every start, and building the scenarios (pydantic models of the whole loop model)
would cost a lint or a diff 0.1 s it never uses. ``injections.py`` refuses to import if the two disagree."""

INJECTION_NAMES = ("timeout", "crash-before-side-effect", "crash-after-side-effect", "duplicate-item",
                   "broken-verifier", "missing-authority", "ambiguous-requirement", "repeated-failure",
                   "retries-exhausted", "no-qualifying-work", "success-on-retry", "crash-after-verify", "stale-input",
                   "owner-not-responding")
