"""No NUL and no lone surrogate in a request's text (api/text.py): given a request, where the
first one is, or None; a surrogate *pair* (an emoji as JSON escapes) and Hangul's bytes are
text like any other."""

from __future__ import annotations

from typing import Any

import pytest

from api.text import bad_field


def request(
    body: bytes = b"", query: bytes = b"", path: str = "/v1/x", **headers: str
) -> tuple[dict[str, Any], bytes]:
    pairs = [(k.replace("_", "-").encode(), v.encode("latin-1")) for k, v in headers.items()]
    return {"path": path, "query_string": query, "headers": pairs}, body


JSON = {"content_type": "application/json"}


@pytest.mark.parametrize(
    ("sent", "found"),
    [
        (request(b'{"name": "a\\u0000"}', **JSON), ("body.name", False)),
        (request(b'{"a": [1, {"b\\ud800": 2}]}', **JSON), ("body.a.1 (a key)", False)),
        (request(b'{"name": "\\udfff"}'), ("body.name", False)),  # no type: JSON if it parses
        (
            request('{"name": "\ud800"}'.encode("utf-8", "surrogatepass"), **JSON),
            ("body.name", False),
        ),
        (
            request(b"command=1D6%00", content_type="application/x-www-form-urlencoded"),
            ("body.command", False),
        ),
        (request(b"command=1D6%00"), ("body.command", False)),  # BCDice reads any body as a form
        (request(query=b"turn=1&phase=%00"), ("query.phase", False)),
        (request(path="/v1/members/a\x00"), ("path", True)),
        (request(if_match='"1\x00"'), ("header.if-match", True)),
    ],
)
def test_a_bad_character_is_found_where_it_is(
    sent: tuple[dict[str, Any], bytes], found: tuple[str, bool]
) -> None:
    assert bad_field(*sent) == found


@pytest.mark.parametrize(
    "sent",
    [
        request(b'{"name": "\\ud83d\\ude00"}', **JSON),  # 😀 as a surrogate pair: one character
        request('{"name": "한국"}'.encode(), **JSON),  # Hangul's UTF-8 starts with 0xED too
        request(b'{"name": "\\\\u0000"}', **JSON),  # a backslash, then the text u0000
        request(b'{"broken": ', **JSON),  # the route's validation says where it broke
        request(b"command=100%25", content_type="application/x-www-form-urlencoded"),
        request(query=b"q=%E3%82%A2"),
    ],
)
def test_text_without_one_passes(sent: tuple[dict[str, Any], bytes]) -> None:
    assert bad_field(*sent) is None
