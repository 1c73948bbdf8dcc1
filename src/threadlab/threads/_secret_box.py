"""Encryption of secret values at rest, and where the key comes from.

The key is never stored with the data: it is given (`Runtime(secret_key=...)`), taken from
`THREADLAB_SECRET_KEY`, or kept in a 0600 file in the user's config directory.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

import platformdirs
from cryptography.fernet import Fernet, InvalidToken

__all__ = ["SecretBox", "default_key_path"]

KEY_ENV = "THREADLAB_SECRET_KEY"


def default_key_path() -> Path:
    return Path(platformdirs.user_config_dir("threadlab")) / "secret.key"


def _fernet_key(material: str | bytes) -> bytes:
    raw = material.encode() if isinstance(material, str) else material
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32:
            return raw  # already a Fernet key
    except ValueError:
        pass
    # Any other passphrase: derive a key from it, so users may give a plain string.
    return base64.urlsafe_b64encode(hashlib.sha256(raw).digest())


def _key_from_file(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes().strip()
    key = Fernet.generate_key()
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


class SecretBox:
    """Encrypts and decrypts secret values with the resolved key."""

    def __init__(self, secret_key: str | bytes | None = None, key_path: Path | None = None):
        if secret_key is not None:
            key = _fernet_key(secret_key)
        elif os.environ.get(KEY_ENV):
            key = _fernet_key(os.environ[KEY_ENV])
        else:
            key = _key_from_file(key_path or default_key_path())
        self._fernet = Fernet(key)

    def encrypt(self, value: str) -> bytes:
        return self._fernet.encrypt(value.encode())

    def decrypt(self, token: bytes) -> str | None:
        """The value, or None when the token was made with another key."""
        try:
            return self._fernet.decrypt(token).decode()
        except InvalidToken:
            return None
