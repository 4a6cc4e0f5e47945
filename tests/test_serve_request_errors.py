"""What `criss-rag serve` answers to a bad request: malformed JSON names the body and where it broke,
a body that is not JSON is 415; an IPv6 host is printed in brackets."""

from __future__ import annotations

import httpx
import pytest
from serve_fixtures import engine_for


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from criss_rag_serve.app import create_app
    from criss_rag_serve.running import running
    from criss_rag_serve.settings import ServeSettings

    engine = engine_for(tmp_path_factory.mktemp("serve-small"))
    with running(create_app(engine, ServeSettings())) as url, httpx.Client(base_url=url, timeout=30) as http:
        yield http


def test_malformed_json_names_the_body_and_where_it_broke(client):
    response = client.post("/ask", content=b'{"question": ', headers={"content-type": "application/json"})
    assert response.status_code == 422
    detail = response.json()["error"]["details"][0]
    assert detail["field"] == "body" and detail["problem"].startswith("not valid JSON at character 13"), detail


def test_a_body_that_is_not_json_is_415(client):
    response = client.post(
        "/ask", content=b"question=liver", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 415, response.text
    error = response.json()["error"]
    assert error["code"] == "unsupported_media_type" and "application/json" in error["message"]
    assert client.post("/ask", content=b"{}", headers={"content-type": "text/plain"}).status_code == 415


def test_an_ipv6_host_is_printed_in_brackets():
    from criss_rag_serve.command import url_host

    assert url_host("::1") == "[::1]" and url_host("127.0.0.1") == "127.0.0.1" and url_host("[::1]") == "[::1]"
