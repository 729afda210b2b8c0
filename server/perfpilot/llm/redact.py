"""Redacting secrets from URLs and messages before they are shown or logged.

Users paste keys into endpoint URLs (``https://user:KEY@host/v1``, ``...?api-key=KEY``); an
error or a ``-v`` log that prints the URL would print the key. Userinfo and every query value
are replaced by ``***`` (a query on an endpoint URL is almost always a key or a token).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
_MIN_SECRET = 4  # shorter values would mask ordinary words


def redact_url(url: str) -> str:
    """``url`` with its userinfo and query values masked (the rest kept for diagnosis)."""
    try:
        parts = urlsplit(url)
        host = parts.netloc
        if "@" in host:
            host = MASK + "@" + host.rsplit("@", 1)[1]
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode([(k, MASK) for k, _ in pairs], safe="*") if pairs else MASK
        fragment = MASK if parts.fragment else ""
        return urlunsplit((parts.scheme, host, parts.path, query, fragment))
    except ValueError:
        return MASK


def redact_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every URL in it redacted and every given secret value masked."""
    out = _URL.sub(lambda m: redact_url(m.group(0)), text)
    for secret in secrets:
        if secret and len(secret) >= _MIN_SECRET:
            out = out.replace(secret, MASK)
    return out


class RedactingFilter(logging.Filter):
    """A logging filter that redacts URLs in every record (libraries such as httpx log the
    full request URL at INFO, which ``-v`` shows)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message with its URLs redacted; never drops a record."""
        message = record.getMessage()
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True
