"""Cursors: round trip, binding, and one precise error per way a cursor can be wrong."""

import json
import re

import pytest

from docs_mcp.server.contract.cursor import MAX_CURSOR_CHARS, CursorCodec, SearchBinding
from docs_mcp.server.errors import InvalidCursorError

BINDING = SearchBinding("retry backoff", {"language": "go", "scope": "sdk-specific"}, 10, "hybrid")
CODEC = CursorCodec("generation-a")


def _error(cursor: str, binding: SearchBinding = BINDING, codec: CursorCodec = CODEC) -> str:
    with pytest.raises(InvalidCursorError) as caught:
        codec.decode(cursor, binding)
    return caught.value.message


@pytest.mark.contract("SD-CURSOR-OPAQUE")
@pytest.mark.parametrize("offset", [0, 1, 10, 49, 10_000])
def test_a_cursor_carries_its_offset_back(offset):
    assert CODEC.decode(CODEC.encode(BINDING, offset), BINDING) == offset


@pytest.mark.contract("SD-CURSOR-OPAQUE")
def test_a_cursor_is_unpadded_urlsafe_base64():
    assert re.fullmatch(r"[A-Za-z0-9_-]+", CODEC.encode(BINDING, 20))


def test_filter_order_does_not_matter():
    reordered = SearchBinding(BINDING.query, {"scope": "sdk-specific", "language": "go"}, 10, "hybrid")
    assert CODEC.decode(CODEC.encode(BINDING, 5), reordered) == 5


def test_any_replica_of_the_same_index_accepts_the_cursor():
    assert CursorCodec("generation-a").decode(CODEC.encode(BINDING, 7), BINDING) == 7


@pytest.mark.contract("SD-CURSOR-INVALID")
@pytest.mark.parametrize(
    "cursor",
    ["", "!!!!", "not base64 at all", "é", "abc", "A" * (MAX_CURSOR_CHARS + 1), "YWJj\n"],
    ids=["empty", "punctuation", "spaces", "unicode", "too-short", "too-long", "newline"],
)
def test_a_malformed_cursor_is_refused(cursor):
    assert _error(cursor).startswith("The cursor is malformed")


@pytest.mark.contract("SD-CURSOR-INVALID")
def test_a_changed_cursor_fails_the_integrity_check():
    cursor = CODEC.encode(BINDING, 10)
    middle = len(cursor) // 2
    tampered = cursor[:middle] + ("A" if cursor[middle] != "A" else "B") + cursor[middle + 1 :]
    assert _error(tampered).startswith("The cursor failed its integrity check")


def test_a_cursor_signed_with_another_secret_fails_the_integrity_check():
    other = CursorCodec("generation-a", secret=b"another team secret")
    assert _error(other.encode(BINDING, 10)).startswith("The cursor failed its integrity check")


@pytest.mark.contract("SD-CURSOR-INVALID")
@pytest.mark.parametrize(
    "other",
    [
        SearchBinding("retry", BINDING.filters, 10, "hybrid"),
        SearchBinding(BINDING.query, {"language": "go"}, 10, "hybrid"),
        SearchBinding(BINDING.query, BINDING.filters, 5, "hybrid"),
        SearchBinding(BINDING.query, BINDING.filters, 10, "bm25"),
    ],
    ids=["query", "filters", "limit", "mode"],
)
def test_a_cursor_from_another_search_is_foreign(other):
    assert _error(CODEC.encode(BINDING, 10), binding=other).startswith("The cursor belongs to a different search")


@pytest.mark.contract("SD-CURSOR-INVALID")
def test_a_cursor_from_an_older_index_generation_is_stale():
    old = CursorCodec("generation-old").encode(BINDING, 10)
    assert _error(old).startswith("The cursor is stale")


@pytest.mark.contract("SD-CURSOR-INVALID")
def test_a_cursor_from_another_index_is_called_so_not_stale():
    ours, theirs = CursorCodec("generation-a", index="index-one"), CursorCodec("generation-b", index="index-two")
    with pytest.raises(InvalidCursorError) as caught:
        ours.decode(theirs.encode(BINDING, 10), BINDING)
    assert caught.value.message.startswith("The cursor comes from another documentation index")
    rebuilt = CursorCodec("generation-old", index="index-one").encode(BINDING, 10)
    with pytest.raises(InvalidCursorError, match="The cursor is stale: the documentation index was rebuilt"):
        ours.decode(rebuilt, BINDING)


def test_a_cursor_of_the_previous_format_from_this_generation_still_pages():
    import base64
    import hashlib
    import hmac

    payload = json.dumps(
        {"v": 1, "g": hashlib.sha256(b"generation-a").hexdigest()[:8], "s": BINDING.digest(), "o": 20},
        separators=(",", ":"),
    ).encode()
    mac = hmac.new(CODEC._key, payload, hashlib.sha256).digest()[:16]
    assert CODEC.decode(base64.urlsafe_b64encode(payload + mac).rstrip(b"=").decode(), BINDING) == 20


@pytest.mark.contract("SD-CURSOR-INVALID", "ERR-ACTIONABLE")
def test_every_cursor_error_says_to_search_again(snapshot):
    tampered = CODEC.encode(BINDING, 10)[:-3] + "AAA"
    errors = {
        "malformed": _catch("!!!"),
        "tampered": _catch(tampered),
        "foreign": _catch(CODEC.encode(BINDING, 10), SearchBinding("other", {}, 10, "hybrid")),
        "stale": _catch(CursorCodec("generation-old").encode(BINDING, 10)),
        "other index": _catch(
            CursorCodec("generation-b", index="another").encode(BINDING, 10),
            codec=CursorCodec("generation-a", index="ours"),
        ),
    }
    assert all("run search_docs again without a cursor" in str(error).lower() for error in errors.values())
    assert {name: str(error) for name, error in errors.items()} == snapshot


def _catch(cursor: str, binding: SearchBinding = BINDING, codec: CursorCodec = CODEC) -> InvalidCursorError:
    with pytest.raises(InvalidCursorError) as caught:
        codec.decode(cursor, binding)
    return caught.value
