"""Encryption of secret values at rest, and where the key comes from.

The key is never stored with the data: it is given (`Runtime(secret_key=...)`), taken from
`THREADLAB_SECRET_KEY`, or kept in a 0600 file in the user's config directory.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

import platformdirs
from cryptography.fernet import Fernet, InvalidToken

from .._errors import SecretKeyError

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
    if not path.exists():
        _create_key_file(path)
    key = path.read_bytes().strip()
    try:
        valid = len(base64.urlsafe_b64decode(key)) == 32
    except ValueError:
        valid = False
    if not valid:
        raise SecretKeyError(
            f"the secret key file {path} is empty or damaged. Restore it from a backup, or give"
            f" the key with Runtime(secret_key=...) or {KEY_ENV}. Deleting the file lets"
            " threadlab make a new key, but secrets stored with the old one become unreadable."
        )
    return key


def _create_key_file(path: Path) -> None:
    """Write a new key so that no reader ever sees a partial file: a complete temporary file
    is linked into place, which fails if another process got there first (its key wins)."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".secret-key-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(Fernet.generate_key())
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o600)
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


class SecretBox:
    """Encrypts and decrypts secret values with the resolved key."""

    def __init__(self, secret_key: str | bytes | None = None, key_path: Path | None = None):
        self.given = secret_key is not None
        """Whether the key was given to the runtime (not read from the environment or the
        key file, which processes started from this one find as it did)."""
        if secret_key is not None:
            key = _fernet_key(secret_key)
        elif os.environ.get(KEY_ENV):
            key = _fernet_key(os.environ[KEY_ENV])
        else:
            key = _key_from_file(key_path or default_key_path())
        self._fernet = Fernet(key)
        self._key = key
        self.fingerprint = hashlib.sha256(b"threadlab secret key\0" + key).hexdigest()[:16]
        """Tells two keys apart without saying anything of either: another process compares
        its own with it before it opens a thread's secrets."""
        self.salt = hashlib.sha256(b"threadlab identifiers\0" + key).digest()
        """What a thread tree's redactor keys an id's placeholder with: derived from the key,
        so processes that share the key name an id alike, and nobody without it can test a
        guess of a secret against a placeholder."""

    def inheritable(self) -> dict[str, str]:
        """What a process started from this one (a local Ray) needs in its environment to
        hold the same key: the key, when it was given to the runtime (it found the others
        itself); nothing otherwise."""
        return {KEY_ENV: self._key.decode()} if self.given else {}

    def encrypt(self, value: str) -> bytes:
        return self._fernet.encrypt(value.encode())

    def decrypt(self, token: bytes) -> str | None:
        """The value, or None when the token was made with another key."""
        try:
            return self._fernet.decrypt(token).decode()
        except InvalidToken:
            return None
