"""The dice master key: seeds of every encounter's verifiable dice are derived from it."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from infra.settings import Settings


class DiceKeyError(RuntimeError):
    """The key is missing or unreadable; the message says what to do."""


def load_dice_key(settings: Settings) -> bytes:
    """From the settings; on the embedded default, from (or generated into) the data directory."""
    if settings.dice_master_key is not None:
        return bytes.fromhex(settings.dice_master_key.get_secret_value())
    if not settings.embedded:
        raise DiceKeyError(
            "SENKI_DICE_MASTER_KEY is required with an external database (generate one with "
            "`openssl rand -hex 32` and keep it in a secret: every dice seed and token derives "
            "from it)"
        )
    return _key_file(settings.dice_key_file)


def _key_file(path: Path) -> bytes:
    if path.exists():
        text = path.read_text(encoding="ascii").strip()
        try:
            key = bytes.fromhex(text)
        except ValueError as error:
            raise DiceKeyError(f"{path} is not a hex key; restore it from a backup") from error
        if len(key) < 32:
            raise DiceKeyError(f"{path} holds fewer than 32 bytes; restore it from a backup")
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    # O_EXCL: two processes starting at once must not write two different keys.
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _key_file(path)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(key.hex() + "\n")
    return key
