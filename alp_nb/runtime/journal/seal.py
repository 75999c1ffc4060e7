"""A journal line's seal: the checksum that vouches the line is what its writer wrote.

A sealed line is the JSON text T of its record with ``"sum": "<first hex digits of SHA-256 over T>"`` appended as
the object's last member, so a reader checks it against the raw bytes without encoding anything again. Each sealed
version has its own form: ``v`` 4 lines are compact with 12 digits (48 bits: an edit goes unseen once in 2**48),
``v`` 3 compact with 16, ``v`` 2 spaced (a space after each separator) with 16. Lines written before seals (the s16
reference's, our ``v`` 1) have none. The checksum is not a signature: whoever recomputes it can forge a line.
"""

from __future__ import annotations

import hashlib

FIRST_SEALED_VERSION = 2
"""The first version whose lines carry a seal; lines of earlier versions are legacy."""

_TAIL = b'"}'
_COMPACT_LEAD = b',"sum":"'
SEALS = ((_COMPACT_LEAD, 12, 4), (_COMPACT_LEAD, 16, 3), (b', "sum": "', 16, 2))
"""How each sealed version's checksum member opens, and how many hex digits it holds."""
DIGITS = {version: digits for _lead, digits, version in SEALS}
_SEAL_AT = tuple((lead, digits, version, -(len(_TAIL) + digits) - len(lead), -(len(_TAIL) + digits))
                 for lead, digits, version in SEALS)
"""Each seal with where its lead and its digits start, counted from the line's end."""
_sha256 = hashlib.sha256


def seal(text: str, digits: int) -> bytes:
    """The journal line for ``text``, the compact JSON of one record (an object): its checksum of ``digits`` hex
    digits appended as the last member, then the newline."""
    body = text.encode()
    return body[:-1] + _COMPACT_LEAD + _sha256(body).hexdigest()[:digits].encode() + _TAIL + b"\n"


def sealed_version(line: bytes) -> int:
    """The version whose seal ends ``line`` (without its newline) and holds: 4, 3 or 2; 0 for a line without a
    valid one (legacy, edited, or stripped: the reader tells which)."""
    if not line.endswith(_TAIL):
        return 0
    for lead, digits, version, lead_at, digits_at in _SEAL_AT:
        if line[lead_at:digits_at] == lead:
            return version if _sha256(line[:lead_at] + b"}").hexdigest()[:digits].encode() == \
                line[digits_at:-len(_TAIL)] else 0
    return 0
