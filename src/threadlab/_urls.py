"""URLs as shown to a person: without the password (or any userinfo) a URL may carry, and
without the values of its credential-like query parameters.

`http://user:PASS@host/v1` is a valid base URL and a valid store URL, and the password in it
must not reach an error message, a stored run, a magic's output or a log line; nor must the
key in `https://host/mcp?api_key=KEY`. `shown` does that to one URL; `scrub` to every URL
inside a text (an SDK's error or log message quotes the URL it used); `hide` removes a known
password from a text, for errors about a URL too malformed to parse.
"""

from __future__ import annotations

import functools
import logging
import re
from urllib.parse import quote, unquote

__all__ = ["HIDDEN", "UserinfoFilter", "hide", "password_of", "scrub", "scrub_http_logs", "shown"]

# scheme://userinfo@ — userinfo being anything up to the last "@" before the path, so that a
# password with "@" or spaces in it (malformed, but typed) is taken whole.
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*@)")
# A query or fragment parameter (`?api_key=…`, `&X-Amz-Signature=…`, `#access_token=…`) whose
# name says it holds a credential: its value is replaced, its name kept (it says what is gone).
_PARAMETER = re.compile(
    r"(?P<lead>[?&;#])(?P<name>[^=&;#?\s\"'<>]+)=(?P<value>[\"']?[^&;#\s\"'<>]*)"
)
# Words that name a credential wherever they appear in a parameter's name ...
_CREDENTIAL_WORDS = re.compile(
    r"token|secret|passw|passcode|signature|credential|assertion|apikey|auth|bearer|jwt|cookie",
    re.IGNORECASE,
)
# ... and words that do only as a whole part of it (`key`, `api_key`, `keyId`; not `keyword`).
_CREDENTIAL_PART = re.compile(
    r"(key|keys|keyid|sig|pass|pwd|pw|code|session|sessionid|sid)\d*", re.IGNORECASE
)
_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
HIDDEN = "***"
"""What a credential's value is replaced with."""
_LOOSE_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^:/@]*:(?P<password>.*)@", re.DOTALL)


def shown(url: str) -> str:
    """`url` without its userinfo."""
    return scrub(url)


def scrub(text: str) -> str:
    """Every URL in `text` without its userinfo and its credential-like parameters' values."""
    if "=" in text:
        text = _PARAMETER.sub(_hidden_parameter, text)
    if "@" not in text:
        return text
    return _USERINFO.sub(lambda m: m["scheme"], text)


def _hidden_parameter(match: re.Match[str]) -> str:
    name = unquote(match["name"])
    if not match["value"] or not _names_a_credential(name):
        return match[0]
    return f"{match['lead']}{match['name']}={HIDDEN}"


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


def _names_a_credential(name: str) -> bool:
    if _CREDENTIAL_WORDS.search(name):
        return True
    return any(_CREDENTIAL_PART.fullmatch(part) for part in _PART.findall(name))


class UserinfoFilter(logging.Filter):
    """Rewrites log records so URLs in them carry no userinfo and no credential parameters
    (the SDKs log their requests' URLs at DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "@" in message or "=" in message:
            record.msg, record.args = scrub(message), None
        return True


# The loggers that write a request's URL: the HTTP libraries under the SDKs (httpx, and the
# httpx2 fork that openai's and mcp's clients use here log each request at INFO) and the SDKs
# themselves. A filter applies to the records of its own logger only, so each is named.
_HTTP_LOGGERS = (
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "openai._base_client",
    "anthropic._base_client",
    "mcp.client.streamable_http",
    "mcp.client.sse",
)


@functools.cache
def scrub_http_logs() -> None:
    """Rewrite the URLs in what the HTTP libraries and SDKs log (once per process)."""
    for name in _HTTP_LOGGERS:
        logging.getLogger(name).addFilter(UserinfoFilter())
