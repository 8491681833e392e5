"""No credential in any log line (issue 33 §4): every log record is redacted as it is made.

A token's secret reaches a log by many roads: a BCDice-API address carries the roller token
(uvicorn's access log prints paths; an error handler logs the URL), a header or an exception
text can quote `Bearer …`. A filter on one logger misses records made by another, and a
handler filter misses handlers configured later (uvicorn's), so the redaction sits in the
record factory, which every logger of the process calls: the message, each argument as it
will be printed, and an exception's text are redacted there.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

REDACTED = "***"
# A Senki token, senki.<campaign hex>.<token id>.<secret> (infra/services/campaigns.py
# `bearer`): its secret goes. Also a BCDice-API address's credential, whatever it holds (a
# mistyped token is a secret too), and whatever follows `Bearer`.
_SECRETS = (
    re.compile(r"(senki\.[0-9a-fA-F]{32}\.[^.\s/?#]*\.)[^\s/?#&\"',;)]+"),
    re.compile(r"(/bcdice/)[^/?#\s\"']+"),
    re.compile(r"(?i)(bearer\s+)[^\s\"',;)]+"),
)


def redact(text: str) -> str:
    """`text` with every token secret replaced by `***`."""
    for secret in _SECRETS:
        text = secret.sub(rf"\g<1>{REDACTED}", text)
    return text


class _RedactingFactory:
    """The record factory in force, wrapped: what it makes leaves with no secret in it."""

    def __init__(self, made: Any) -> None:
        self.made = made

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = self.made(*args, **kwargs)
        # Arguments keep their number and place: a formatter may read them one by one
        # (uvicorn's access formatter unpacks five).
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_clean(arg) for arg in record.args)
        elif isinstance(record.args, Mapping):
            record.args = {name: _clean(arg) for name, arg in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return record


def _clean(arg: object) -> object:
    """An argument as logged: a URL, a header, an error with a secret becomes its redacted text."""
    if arg is None or isinstance(arg, int | float):
        return arg
    text = str(arg)
    redacted = redact(text)
    return arg if redacted == text else redacted


def install() -> None:
    """Redact every record this process logs from now on (idempotent)."""
    factory = logging.getLogRecordFactory()
    if not isinstance(factory, _RedactingFactory):
        logging.setLogRecordFactory(_RedactingFactory(factory))
