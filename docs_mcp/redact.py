"""Credentials out of everything rendered: URLs (``redis://user:PASSWORD@host``, ``?password=``) and secret values.

Every URL or configuration value that reaches a log line, an HTTP body or the
CLI goes through here first; a secret is shown only as ``***`` (set) or as
empty (not set), so an operator still sees whether it is configured.
"""

from __future__ import annotations

import re

MASK = "***"
# scheme://user:password@ (or scheme://password@ with an empty user) anywhere in a text.
# Greedy up to the authority's last '@': a password may hold an unencoded '@'.
# One slash is enough: "https:/user:pw@host" is a typo that must not show the password either.
# Every repetition is bounded: unbounded ones rescan a long run of letters from each of its
# positions, and a megabyte of them (a method name in the access log) took hours.
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31}:/{1,2})(?P<userinfo>[^/?#\s]{0,2048})@")
# Query parameters that carry credentials (password=, api_key=, access_token=, X-Amz-Signature=...).
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&;][\w.-]{0,64}?(?:pass|pwd|token|secret|auth|key|sig)[\w.-]{0,64}=)[^&;#\s]*", re.IGNORECASE
)


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with URL passwords and every non-empty one of ``secrets`` replaced by ``***``.

    A URL's user name stays (it says which account), its password does not; a
    bare ``scheme://TOKEN@host`` is masked whole, as Redis reads it as a password.
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    if ":/" in text:
        text = _USERINFO.sub(_mask_userinfo, text)
    return _SECRET_PARAM.sub(lambda match: match["name"] + MASK, text) if "=" in text else text


def _mask_userinfo(match: re.Match[str]) -> str:
    user, colon, _password = match["userinfo"].partition(":")
    kept = f"{user}:{MASK}" if colon else MASK
    return f"{match['scheme']}{kept}@"
