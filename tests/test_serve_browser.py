"""The chat page in headless Chromium (Debian's `chromium` + `chromium-driver`, driven by Selenium;
no browser download): ask, see the streamed answer and its citations, open the evidence, and
check that evidence carrying <script> and <img onerror> renders as text and runs nothing; Korean
and Japanese questions too. `make test` installs Chromium; without it this test FAILS and says how."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_fixtures import engine_for

from criss_rag_serve.app import create_app
from criss_rag_serve.running import running
from criss_rag_serve.settings import ServeSettings

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.fail("headless Chromium is missing: install Debian's browser and driver with "
                    "`apt-get install -y chromium chromium-driver` (`make test` does it when /usr/bin/chromium is absent)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)  # never Selenium Manager
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    engine = engine_for(tmp_path_factory.mktemp("browser"))
    with running(create_app(engine, ServeSettings())) as url:
        browser.get(url + "/")
        yield browser


def ask(driver, question: str):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    before = len(driver.find_elements(By.CSS_SELECTOR, "#log li.assistant"))
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    driver.find_element(By.ID, "send").click()
    wait = WebDriverWait(driver, 20)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#log li.assistant")) > before)
    item = driver.find_elements(By.CSS_SELECTOR, "#log li.assistant")[-1]
    wait.until(lambda d: "streaming" not in item.get_attribute("class"))
    return item


def test_ask_see_the_answer_and_open_the_evidence_as_text(page):
    from selenium.webdriver.common.by import By

    item = ask(page, "Does radon raise the risk of lung cancer?")
    assert "Radon exposure" in item.text and "refused" not in item.get_attribute("class")
    links = item.find_elements(By.CSS_SELECTOR, "a.cite")
    assert links and links[0].text.startswith("[")
    # the answer quotes the evidence's <script> as text: no script element was made from it
    assert "<script>window.__pwned=2</script>" in item.text
    assert not item.find_elements(By.TAG_NAME, "script") and not item.find_elements(By.TAG_NAME, "img")

    radon = next(link for link in links if "Radon" in (link.get_attribute("title") or ""))
    radon.click()
    panel = page.find_element(By.ID, "evidence")
    assert panel.is_displayed()
    title = page.find_element(By.ID, "ev-title").text
    assert title == '<img src=x onerror="window.__pwned=1">Radon and lung cancer'
    quote = page.find_element(By.ID, "ev-text")
    assert "<script>window.__pwned=2</script>" in quote.text and '<img src=x onerror="window.__pwned=4">' in quote.text
    assert quote.find_elements(By.TAG_NAME, "mark"), "the cited passage is highlighted"
    assert not panel.find_elements(By.TAG_NAME, "img") and not panel.find_elements(By.TAG_NAME, "script")
    # a javascript: location is shown as text, never made a link
    assert not page.find_element(By.ID, "ev-source").find_elements(By.TAG_NAME, "a")
    assert page.find_element(By.ID, "ev-source").text == "javascript:window.__pwned=3"
    assert page.execute_script("return window.__pwned === undefined")  # nothing from the documents ran


def test_a_source_link_opens_its_evidence_with_its_url(page):
    from selenium.webdriver.common.by import By

    item = ask(page, "What raises the risk of liver cancer?")
    item.find_element(By.CSS_SELECTOR, ".sources a").click()
    assert page.find_element(By.ID, "ev-title").text == "Liver cancer"
    link = page.find_element(By.ID, "ev-source").find_element(By.TAG_NAME, "a")
    assert link.get_attribute("href") == "https://example.org/liver"


def test_korean_and_japanese_questions(page):
    from selenium.webdriver.common.by import By

    korean = ask(page, "간암의 위험 요인은 무엇인가요?")
    assert "B형 간염 바이러스에 감염되면 간암 위험이 높아집니다" in korean.text
    assert korean.get_attribute("lang") == "ko"
    user = page.find_elements(By.CSS_SELECTOR, "#log li.user")[-1]
    assert user.text == "간암의 위험 요인은 무엇인가요?" and user.get_attribute("lang") == "ko"
    japanese = ask(page, "肺がんの症状は何ですか？")
    assert "長引くせきは肺がんの症状のことがあります" in japanese.text and japanese.get_attribute("lang") == "ja"


def test_a_refusal_shows_as_a_refusal_with_its_reason(page):
    item = ask(page, "What is the capital of France?")
    assert "refused" in item.get_attribute("class") and "Not answered: no_evidence" in item.text


def test_the_conversation_keeps_its_session(page):
    session = page.execute_script("return sessionStorage.getItem('criss-session')")
    assert session
    ask(page, "And how is it treated?")
    assert page.execute_script("return sessionStorage.getItem('criss-session')") == session



def test_a_cached_answer_is_marked(page):
    from selenium.webdriver.common.by import By

    # a new conversation each time: turns with history are never answered from the cache
    page.find_element(By.ID, "new-chat").click()
    ask(page, "Which test finds breast cancer early?")
    page.find_element(By.ID, "new-chat").click()
    again = ask(page, "which test finds breast cancer early?")
    assert "Answered from the cache" in again.text and "Which test finds breast cancer early?" in again.text



def test_a_streamed_llm_answer_in_japanese(browser, tmp_path):
    from criss_rag.testing_servers import OpenAIStubServer

    reply = "肺がんは喫煙と強く関係しています [1]。長引くせきは症状のことがあります [1]。"
    with OpenAIStubServer(reply=reply) as llm:
        api = f'{{name: openai-compatible, model: stub, api_base: "{llm.base_url}", max_retries: 0}}'
        engine = engine_for(tmp_path, generator="{name: llm, llm: gen}", extra=f"llms:\n  gen: {api}")
        with running(create_app(engine, ServeSettings())) as url:
            browser.get(url + "/")
            item = ask(browser, "肺がんの症状は何ですか？")
    assert item.get_attribute("lang") == "ja" and "refused" not in item.get_attribute("class")
    assert "肺がんは喫煙と強く関係しています" in item.text and "長引くせきは症状のことがあります" in item.text
    assert "\ufffd" not in item.text  # no character broken across network chunks


def test_thinking_and_progress_are_collapsed_and_dropped_sentences_never_in_the_answer(browser, tmp_path):
    from selenium.webdriver.common.by import By

    from criss_rag.testing_servers import OpenAIStubServer

    think = "Passage one names hepatitis B; nothing mentions coffee."
    reply = "Hepatitis B infection raises the risk of liver cancer. Coffee enemas cure liver cancer overnight."
    with OpenAIStubServer(reply=reply, think=think) as llm:
        api = f'{{name: openai-compatible, model: stub, api_base: "{llm.base_url}", max_retries: 0}}'
        engine = engine_for(tmp_path, generator="{name: llm, llm: gen, citations: attribute, unsupported: drop}",
                            extra=f"llms:\n  gen: {api}")
        with running(create_app(engine, ServeSettings())) as url:
            browser.get(url + "/")
            item = ask(browser, "What raises the risk of liver cancer?")
    assert "refused" not in item.get_attribute("class")
    steps = item.find_element(By.CSS_SELECTOR, "details.steps")
    assert steps.get_attribute("open") is None  # collapsed
    hidden = steps.get_attribute("textContent")
    assert think in hidden and "retrieving" in hidden and "generating" in hidden
    dropped = item.find_element(By.CSS_SELECTOR, "details.dropped")
    assert dropped.get_attribute("open") is None and "Coffee enemas" in dropped.get_attribute("textContent")
    answer_spans = " ".join(s.get_attribute("textContent") for s in item.find_elements(By.CSS_SELECTOR, "span.sentence"))
    assert "Hepatitis B infection raises the risk of liver cancer [1]" in answer_spans
    assert "Coffee" not in answer_spans and think not in answer_spans
    assert "Coffee" not in item.text and think not in item.text  # what the reader sees
