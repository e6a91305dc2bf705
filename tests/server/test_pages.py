"""The pages: login, the clinician's picker, the chat page with its escaped side panel."""

from __future__ import annotations

from tests.server.conftest import CANARY, A, B, C, login


def test_patient_lands_on_their_own_chat_page(serve, world):
    served = serve()
    with served.client() as client:
        login(client, "alice")
        page = client.get("/", follow_redirects=True)
    assert page.url.path == f"/patients/{A}"
    html = page.text
    assert "Alice Anders" in html and "Metformin 500 MG Oral Tablet" in html
    assert 'data-section="labs"' in html and 'data-kind="observation" data-id="obs-a3"' in html
    assert '<svg class="spark"' in html and "HbA1c trend: 3 results" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html  # record text is escaped
    assert html.count("<script") == 1 and 'src="/static/chat.js' in html  # the only script
    assert "Offline mode" in html
    assert CANARY not in html


def test_clinician_picks_from_their_panel_and_can_switch(serve, world):
    served = serve()
    with served.client() as client:
        login(client, "carol")
        picker = client.get("/patients")
        chat = client.get(f"/patients/{C}")
    assert "Alice Anders" in picker.text and "Cara Chen" in picker.text and "Bob Brown" not in picker.text
    assert f'href="/patients/{A}"' in chat.text and f'href="/patients/{B}"' not in chat.text
    assert "Switch patient" in chat.text


def test_pages_redirect_to_login_without_a_session(serve, world):
    served = serve()
    with served.client() as client:
        response = client.get(f"/patients/{A}", headers={"Accept": "text/html"})
        root = client.get("/")
    assert response.status_code == 303 and response.headers["location"] == "/login"
    assert root.status_code == 303 and root.headers["location"] == "/login"


def test_logout_ends_the_session(serve, world):
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        assert client.post("/logout", data={"csrf_token": csrf}).status_code == 303
        assert client.get(f"/api/patients/{A}/record").status_code == 401


def test_a_conversation_reopens_with_its_messages(serve, world):
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        posted = client.post(
            f"/api/patients/{A}/messages",
            json={"question": "What is my A1C?"},
            headers={"X-CSRF-Token": csrf},
        ).json()
        page = client.get(f"/patients/{A}", params={"c": posted["conversation_id"]})
    assert f'data-message-id="{posted["message_id"]}"' in page.text
    assert f'data-conversation-id="{posted["conversation_id"]}"' in page.text


def test_healthz_reports_database_schema_and_model_mode(serve, world):
    from records import migrate

    served = serve()
    with served.client() as client:
        health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["database"] == "ok"
    assert health["schema_revision"] == migrate.head_revision()
    assert health["model"] == "offline"
