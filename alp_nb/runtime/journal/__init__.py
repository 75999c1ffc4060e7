"""The journal: one line per runner call asked, per answer a call keeps and per answer paid for but not kept, the
memory a resume reads from and the record every view of a run is drawn from.

Where each part is: the typed lines (``lines``: ``Ask``, ``Answer``, ``Spend`` and ``Answered``) and how a call
went (``outcomes``); the seal (``seal``); one decoder per format (``v4`` for the lines written now,
``whole_lines`` for ``v`` 3, ``v`` 2 and the legacy lines before seals), each giving the same records; the reader
(``reader``: ordering, gaps, tampering, the torn last line); a line as a viewer shows it (``entry``); the writer
(``writer``).
"""
