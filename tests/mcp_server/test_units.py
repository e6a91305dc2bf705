"""The pieces with many possible inputs: header parsing, conversation bookkeeping, message ids."""

from __future__ import annotations

import string

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_server.binding import call_message_id
from mcp_server.conversation import ConversationStore
from mcp_server.http_auth import bearer_token, requested_patient

tokens = st.text(alphabet=string.ascii_letters + string.digits + "-._~+/=", min_size=1, max_size=80)


@given(
    token=tokens, scheme=st.sampled_from(["Bearer", "bearer", "BEARER"]), pad=st.sampled_from(["", " ", "  "])
)
def test_bearer_token_is_read_whatever_the_scheme_case(token, scheme, pad):
    assert bearer_token({"authorization": f"{scheme} {pad}{token}{pad}"}) == token


@given(value=st.text(max_size=40))
def test_anything_but_a_bearer_credential_is_no_token(value):
    token = bearer_token({"authorization": value})
    assert token is None or value.split(" ", 1)[0].lower() == "bearer"


def test_no_authorization_header_is_no_token():
    assert bearer_token({}) is None
    assert bearer_token({"authorization": "Bearer    "}) is None


@given(patient=st.text(alphabet=string.ascii_letters + string.digits + "-", min_size=1, max_size=30))
def test_patient_is_named_by_header_or_query_header_first(patient):
    assert requested_patient({"x-chartside-patient": patient}, b"") == patient
    assert requested_patient({}, f"patient={patient}&x=1".encode()) == patient
    assert requested_patient({"x-chartside-patient": patient}, b"patient=someone-else") == patient
    assert requested_patient({}, b"other=1") is None


@settings(max_examples=200)
@given(
    keys=st.lists(st.sampled_from([f"s{i}" for i in range(8)]), max_size=60),
    cap=st.integers(min_value=1, max_value=5),
)
def test_conversation_store_keeps_one_conversation_per_session_within_its_cap(keys, cap):
    store = ConversationStore(transport="http", idle_timeout_s=3600, max_conversations=cap)
    seen: dict[str, str] = {}
    recent: list[str] = []  # least recently used first
    for key in keys:
        conversation = store.get(key)
        if key in recent[-cap:]:
            assert conversation.id == seen[key]  # still open: the same conversation
        else:
            assert conversation.id not in seen.values()  # new (or evicted and reopened): fresh id
        seen[key] = conversation.id
        recent = [k for k in recent if k != key] + [key]
        assert len(store) <= cap


def test_idle_conversations_are_forgotten(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("mcp_server.conversation.time.monotonic", lambda: clock[0])
    store = ConversationStore(transport="http", idle_timeout_s=60, max_conversations=10)
    first = store.get("a").id
    clock[0] += 59
    assert store.get("a").id == first
    clock[0] += 61
    assert store.get("a").id != first


conversation_ids = st.text(alphabet=string.ascii_lowercase + string.digits + "-", min_size=1, max_size=12)
request_ids = st.one_of(st.integers(), st.text(max_size=10))  # JSON-RPC ids: numbers or strings


@given(a=st.tuples(conversation_ids, request_ids), b=st.tuples(conversation_ids, request_ids))
@example(a=("c", 1), b=("c", "1"))
@example(a=("c", 7), b=("c", 7))
def test_message_ids_are_the_same_exactly_for_the_same_request_in_the_same_conversation(a, b):
    same_request = a[0] == b[0] and type(a[1]) is type(b[1]) and a[1] == b[1]
    assert (call_message_id(*a) == call_message_id(*b)) == same_request


def test_notifications_never_share_a_message_id():
    assert call_message_id("c", None) != call_message_id("c", None)
