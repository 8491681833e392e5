"""No token secret in a log line (infra/log_redaction.py): given a record holding one, when
it is made, then its secret reads `***` and its arguments keep their shape."""

from __future__ import annotations

import logging

import pytest

from infra import log_redaction

TOKEN = "senki.0123456789abcdef0123456789abcdef.3411b840.UEBM4w08d66moovFWYu2H8DdYf-sCNpS8Mz6D"
SECRET = TOKEN.rsplit(".", 1)[1]


@pytest.mark.parametrize(
    ("logged", "shown"),
    [
        (
            f"GET /v1/me?access_token={TOKEN} 401",
            "GET /v1/me?access_token=senki.0123456789abcdef0123456789abcdef.3411b840.*** 401",
        ),
        (f"/bcdice/{TOKEN}/v2/version", "/bcdice/***/v2/version"),
        ("/bcdice/not-even-a-token/v2/version", "/bcdice/***/v2/version"),
        (f"Authorization: Bearer {SECRET}", "Authorization: Bearer ***"),
        ("GET /v1/encounters/5 404", "GET /v1/encounters/5 404"),
    ],
)
def test_a_secret_reads_as_stars_and_nothing_else_changes(logged: str, shown: str) -> None:
    assert log_redaction.redact(logged) == shown


def test_a_record_keeps_its_arguments_one_by_one(caplog: pytest.LogCaptureFixture) -> None:
    """uvicorn's access formatter unpacks five arguments: each stays in its place."""
    log_redaction.install()
    log_redaction.install()  # idempotent: one wrapper
    with caplog.at_level(logging.INFO, logger="uvicorn.access"):
        args = ("127.0.0.1:5", "GET", f"/bcdice/{TOKEN}/v2/version", "1.1", 200)
        logging.getLogger("uvicorn.access").info('%s - "%s %s HTTP/%s" %d', *args)
        try:
            raise RuntimeError(f"a bug quoting {TOKEN}")
        except RuntimeError:
            logging.getLogger("senki.api").exception("unhandled")
    access, failure = caplog.records
    assert access.args == ("127.0.0.1:5", "GET", "/bcdice/***/v2/version", "1.1", 200)
    assert SECRET not in caplog.text
    assert "a bug quoting senki." in (failure.exc_text or "")
