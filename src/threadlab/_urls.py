"""URLs as shown to a person: without the password (or any userinfo) a URL may carry.

`http://user:PASS@host/v1` is a valid base URL and a valid store URL, and the password in it
must not reach an error message, a stored run, a magic's output or a log line. `shown`
strips userinfo from one URL; `scrub` does it to every URL inside a text (an SDK's error or
log message quotes the URL it used); `hide` removes a known password from a text, for
errors about a URL too malformed to parse.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import quote, unquote

__all__ = ["UserinfoFilter", "hide", "password_of", "scrub", "shown"]

# scheme://userinfo@ — userinfo being anything up to the last "@" before the path, so that a
# password with "@" or spaces in it (malformed, but typed) is taken whole.
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*@)")
_LOOSE_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^:/@]*:(?P<password>.*)@", re.DOTALL)


def shown(url: str) -> str:
    """`url` without its userinfo."""
    return scrub(url)


def scrub(text: str) -> str:
    """Every URL in `text` without its userinfo."""
    if "@" not in text:
        return text
    return _USERINFO.sub(lambda m: m["scheme"], text)


def password_of(url: str) -> str | None:
    """The password in `url`, read loosely (the URL may be malformed), or None."""
    match = _LOOSE_PASSWORD.match(url)
    return match["password"] if match and match["password"] else None


def hide(text: str, url: str) -> str:
    """`text` with `url`'s password removed in every spelling it may have been quoted in, and
    every URL in it without userinfo."""
    password = password_of(url)
    if password:
        # A driver that split a malformed URL at another "@" quotes the pieces of the
        # password on either side of it: those go too (the longer ones first).
        pieces = [p for p in password.split("@") if len(p) >= 3] if "@" in password else []
        spellings = {password, unquote(password), quote(password, safe=""), *pieces}
        for spelling in sorted(spellings, key=len, reverse=True):
            if spelling:
                text = text.replace(spelling, "***")
    return scrub(text)


class UserinfoFilter(logging.Filter):
    """Rewrites log records so URLs in them carry no userinfo (the SDKs log their requests'
    URLs at DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "@" in message:
            record.msg, record.args = scrub(message), None
        return True
