"""The intermediate models pictures are made of, and where their parts go: a ``Diagram`` and its geometry, a
``Matrix`` and its grid, a run's timeline laid out, the widths of text and the styles' colours. Nothing here
draws; every renderer reads these."""
