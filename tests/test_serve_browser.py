"""The chat page in headless Chromium (Debian's `chromium` + `chromium-driver`, driven by Selenium;
no browser download): ask, see the streamed answer and its citations, open the evidence, and
check that evidence carrying <script> and <img onerror> renders as text and runs nothing; Korean
and Japanese questions too, drawn with a CJK font (Debian's fonts-noto-cjk), and sources of one
document under titles that tell them apart. `make test` installs Chromium and the fonts; without
them these tests FAIL and say how."""

from __future__ import annotations

import re
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
        pytest.fail(
            "headless Chromium is missing: install Debian's browser and driver with "
            "`apt-get install -y chromium chromium-driver` (`make test` does it when /usr/bin/chromium is absent)"
        )
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
    item.find_element(By.CSS_SELECTOR, ".sources a.source-title").click()
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


def test_a_refusal_is_said_in_plain_words_and_its_reason_only_under_how_it_was_made(page):
    from selenium.webdriver.common.by import By

    item = ask(page, "What is the capital of France?")
    assert "refused" in item.get_attribute("class") and "I could not find this in the sources I have." in item.text
    assert "no_evidence" not in item.text and "Insufficient evidence" not in item.text
    how = item.find_element(By.CSS_SELECTOR, "details.steps")
    assert how.find_element(By.TAG_NAME, "summary").text == "How this answer was made"
    assert "refusal_reason: no_evidence" in how.get_attribute("textContent")


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
    assert "This is the answer given earlier to “Which test finds breast cancer early?”" in again.text
    assert "similarity" not in again.text  # the score only under "How this answer was made"



def test_a_streamed_llm_answer_in_japanese(browser, tmp_path):
    from criss_rag.testing.servers import OpenAIStubServer

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


# -- Korean and Japanese are drawn with a font that has them, not as empty boxes ---------------------------

CJK_FONT = "Noto Sans CJK"  # Debian's fonts-noto-cjk, which `make test` installs with Chromium


def fonts_drawing(driver, element) -> dict[str, int]:
    """``{font family: glyphs}`` Chromium used to draw the text directly inside ``element`` (DevTools'
    CSS.getPlatformFontsForNode: the fonts actually used, fallbacks included)."""
    driver.execute_script("arguments[0].setAttribute('data-font-probe', '1')", element)
    try:
        driver.execute_cdp_cmd("DOM.enable", {})
        driver.execute_cdp_cmd("CSS.enable", {})
        root = driver.execute_cdp_cmd("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": "[data-font-probe]"})["nodeId"]
        fonts = driver.execute_cdp_cmd("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        driver.execute_script("arguments[0].removeAttribute('data-font-probe')", element)
    return {font["familyName"]: font["glyphCount"] for font in fonts}


@pytest.mark.parametrize(("question", "script"), [("간암의 위험 요인은 무엇인가요?", r"[가-힣]"),
                                                  ("肺がんの症状は何ですか？", r"[぀-ヿ一-鿿]")], ids=["ko", "ja"])
def test_korean_and_japanese_are_rendered_with_a_cjk_font(page, question, script):
    import re

    from selenium.webdriver.common.by import By

    if not Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc").exists():
        pytest.fail("fonts-noto-cjk is missing: `apt-get install -y fonts-noto-cjk` (`make test` installs it)")
    ask(page, question)
    user = page.find_elements(By.CSS_SELECTOR, "#log li.user")[-1]
    fonts = fonts_drawing(page, user)
    cjk_glyphs = len(re.findall(script, user.text))
    assert cjk_glyphs >= 5
    drawn_by_cjk = sum(n for family, n in fonts.items() if CJK_FONT in family)
    assert drawn_by_cjk >= cjk_glyphs, f"{question!r} was drawn with {fonts}: no font with Korean/Japanese glyphs"
    # and the picture is not blank (empty boxes would pass this alone; the font check above is the one that tells)
    from io import BytesIO

    from PIL import Image

    image = Image.open(BytesIO(user.screenshot_as_png)).convert("L")
    dark = sum(image.histogram()[:128])
    assert dark > 20 * cjk_glyphs, f"the message's screenshot is nearly blank ({dark} dark pixels)"


def test_sources_of_one_document_have_titles_that_tell_them_apart(browser, tmp_path):
    """Two cited sections of one document: the sources list and the evidence panel say which is which."""
    import json

    from selenium.webdriver.common.by import By

    from criss_rag.engine import Engine
    from criss_rag.testing import pipeline_from_yaml, plugin_host

    corpus = {"doc_id": "liver-tx", "title": "Liver cancer: treatment",
              "text": "### Surgery\nSurgery removes the part of the liver that holds the tumour.\n"
                      "### Ablation\nAblation destroys a small liver tumour with heat when surgery is not possible."}
    (tmp_path / "corpus.jsonl").write_text(json.dumps(corpus) + "\n", encoding="utf-8")
    yaml_text = ("name: titles\nindex: {dir: index}\nloader: {name: jsonl, path: corpus.jsonl}\n"
                 "chunker: {name: sections, max_tokens: 256}\nretrievers: [{name: bm25, analyzer: standard}]\n"
                 "context: numbered\ngenerator: {name: extractive, max_sentences: 3}\n")
    engine = Engine.open(pipeline_from_yaml(yaml_text, tmp_path, plugin_host(entry_points=True)), build_if_missing=True)
    with running(create_app(engine, ServeSettings())) as url:
        browser.get(url + "/")
        item = ask(browser, "How is a liver tumour treated: surgery or ablation?")
        titles = [link.text for link in item.find_elements(By.CSS_SELECTOR, ".sources a.source-title")]
        assert sorted(titles) == ["Liver cancer: treatment › Ablation", "Liver cancer: treatment › Surgery"]
        item.find_elements(By.CSS_SELECTOR, ".sources a.source-title")[1].click()
        assert browser.find_element(By.ID, "ev-title").text == titles[1]


def test_thinking_and_progress_are_collapsed_and_dropped_sentences_never_in_the_answer(browser, tmp_path):
    from selenium.webdriver.common.by import By

    from criss_rag.testing.servers import OpenAIStubServer

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
    answer_spans = " ".join(
        s.get_attribute("textContent") for s in item.find_elements(By.CSS_SELECTOR, "span.sentence")
    )
    assert "Hepatitis B infection raises the risk of liver cancer [1]" in answer_spans
    assert "Coffee" not in answer_spans and think not in answer_spans
    assert "Coffee" not in item.text and think not in item.text  # what the reader sees


# -- the page a patient reads, in four languages ------------------------------------------------------------

CHINESE = {"doc_id": "lung-zh", "title": "肺癌", "url": "https://example.org/zh/lung", "cancer_type": "lung",
           "text": "吸烟是肺癌最重要的危险因素，吸烟的时间越长、数量越多，风险就越高。"
                   "长期咳嗽、咳血和胸痛可能是肺癌的症状，出现时应尽早就医检查。"}
#: language -> (an example question the corpus answers, its source's title and URL, a question it cannot answer,
#: the plain refusal the reader sees, a word of the page's heading in that language)
READERS = {
    "en": (
        "What raises the risk of liver cancer?",
        "Liver cancer",
        "https://example.org/liver",
        "What is the capital of France?",
        "I could not find this in the sources I have.",
        "Ask a question",
    ),
    "ko": (
        "간암의 위험 요인은 무엇인가요?",
        "간암",
        "https://example.org/ko/liver",
        "프랑스의 수도는 어디인가요?",
        "가지고 있는 자료에서 이 내용을 찾지 못했습니다.",
        "물어보세요",
    ),
    "ja": (
        "肺がんの症状は何ですか？",
        "肺がん",
        "https://example.org/ja/lung",
        "フランスの首都はどこですか？",
        "手元の資料では、このことについての情報が見つかりませんでした。",
        "質問してください",
    ),
    "zh": (
        "吸烟是肺癌的危险因素吗？",
        "肺癌",
        "https://example.org/zh/lung",
        "法国的首都是哪里？",
        "我在现有资料中没有找到这方面的信息。",
        "请提出",
    ),
}
NOTICE_EN = "Not medical advice. Your care team knows your case: ask them before you act on anything here."
#: what a reader must never see outside "How this answer was made": refusal codes, scores, engine wording
TECHNICAL = re.compile(
    r"no_evidence|weak_evidence|uncited_answer|refusal|score|similarity|Insufficient evidence|\d\.\d\d"
)


@pytest.fixture(scope="module")
def reader_page(browser, tmp_path_factory):
    from serve_fixtures import CORPUS

    from criss_rag_serve.page import PageSettings

    engine = engine_for(tmp_path_factory.mktemp("readers"), extra="", corpus=[*CORPUS, CHINESE], analyzer="auto")
    landing = PageSettings(
        corpus={
            "en": "the criss_rag team's example pages",
            "ko": "criss_rag 팀의 예시 자료",
            "ja": "criss_ragチームの例示資料",
            "zh": "criss_rag团队的示例资料",
        },
        notice={"en": NOTICE_EN},
        examples={lang: [case[0]] for lang, case in READERS.items()},
    )
    with running(create_app(engine, ServeSettings(page=landing))) as url:
        yield browser, url


def save_screenshot(driver, name: str, tmp_path: Path) -> Path:
    """The page as a PNG in tmp_path, and in $CRISS_RAG_SCREENSHOTS when set (to look at)."""
    import os

    path = tmp_path / f"{name}.png"
    driver.save_screenshot(str(path))
    if os.environ.get("CRISS_RAG_SCREENSHOTS"):
        Path(os.environ["CRISS_RAG_SCREENSHOTS"]).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(os.environ["CRISS_RAG_SCREENSHOTS"]) / f"{name}.png"))
    return path


@pytest.mark.parametrize("lang", list(READERS))
def test_a_patient_reads_the_landing_a_cited_answer_and_a_plain_refusal(reader_page, lang, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver, url = reader_page
    landing_names = {"en": "the criss_rag team's example pages", "ko": "criss_rag 팀의 예시 자료",
                     "ja": "criss_ragチームの例示資料", "zh": "criss_rag团队的示例资料"}
    question, title, link, unanswerable, refusal, heading = READERS[lang]
    driver.get(f"{url}/?lang={lang}")
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "answers-from").text)
    driver.find_element(By.ID, "new-chat").click()  # the tab's session would carry the last language's conversation
    # the landing: what it answers from (name, documents, last update), what it is not, examples in this language
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == lang
    assert heading in driver.find_element(By.ID, "landing-title").text
    answers_from = driver.find_element(By.ID, "answers-from").text
    corpus = landing_names[lang]
    assert corpus in answers_from and corpus == driver.find_element(By.ID, "pipeline").text and "6" in answers_from
    assert re.search(r"\d{4}-\d\d-\d\d", answers_from), answers_from
    notice = driver.find_element(By.ID, "notice").text
    assert notice == NOTICE_EN if lang == "en" else notice and not re.search("[A-Za-z]{4}", notice)
    assert driver.find_element(By.ID, "not-for").text
    examples = driver.find_elements(By.CSS_SELECTOR, "#examples button.example")
    assert [b.text for b in examples] == [question]
    assert driver.find_element(By.ID, "question").get_attribute("placeholder") != "Ask a question" or lang == "en"
    save_screenshot(driver, f"chat-{lang}-landing", tmp_path)

    # a cited answer: numbered 1..n as shown, readable titles, a working link, no score in sight
    examples[0].click()
    wait = WebDriverWait(driver, 20)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#log li.assistant"))
    item = driver.find_elements(By.CSS_SELECTOR, "#log li.assistant")[-1]
    wait.until(lambda d: "streaming" not in item.get_attribute("class"))
    assert not driver.find_element(By.ID, "landing").is_displayed()
    assert "refused" not in item.get_attribute("class"), item.get_attribute("textContent")
    entries = item.find_elements(By.CSS_SELECTOR, ".sources li")
    assert [int(e.get_attribute("value")) for e in entries] == list(range(1, len(entries) + 1))
    shown = {int(a.text.strip("[]")) for a in item.find_elements(By.CSS_SELECTOR, "a.cite")}
    assert shown == set(range(1, len(entries) + 1))
    assert entries[0].find_element(By.CSS_SELECTOR, "a.source-title").text == title  # no "› section" appended
    assert entries[0].find_element(By.CSS_SELECTOR, "a.source-link").get_attribute("href") == link
    assert not TECHNICAL.search(item.text), item.text
    save_screenshot(driver, f"chat-{lang}-answer", tmp_path)

    # a refusal: plain words in the reader's language, the reason only under "How this answer was made"
    driver.find_element(By.ID, "new-chat").click()  # a question of its own, not a follow-up of the answer
    refused = ask(driver, unanswerable)
    assert "refused" in refused.get_attribute("class") and refusal in refused.text, refused.get_attribute("textContent")
    assert not TECHNICAL.search(refused.text), refused.text
    how = refused.find_element(By.CSS_SELECTOR, "details.steps")
    assert how.get_attribute("open") is None and "refusal_reason: no_evidence" in how.get_attribute("textContent")
    save_screenshot(driver, f"chat-{lang}-refusal", tmp_path)


def test_the_page_has_a_favicon_and_serves_its_landing_as_json(reader_page):
    import httpx

    _, url = reader_page
    icon = httpx.get(f"{url}/favicon.ico")
    assert (
        icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon" and icon.content[:4] == b"\0\0\1\0"
    )
    info = httpx.get(f"{url}/page.json").json()
    assert info["documents"] == 6 and info["notice"]["en"] == NOTICE_EN and info["notice"]["ko"]


def test_page_settings_from_yaml_name_the_file_and_key(tmp_path):
    from criss_rag.errors import ConfigError
    from criss_rag_serve.page import page_info, read_page_settings

    good = tmp_path / "page.yaml"
    good.write_text("corpus: Example pages\nexamples:\n  ko: ['간암은 어떻게 치료하나요?']\n", encoding="utf-8")
    info = page_info(read_page_settings(good), "default", 12, "2026-02-03T10:00:00+0000")
    assert info["corpus"]["ko"] == "Example pages" and info["updated"] == "2026-02-03"
    assert info["examples"] == {"ko": ["간암은 어떻게 치료하나요?"]} and set(info["notice"]) == {"en", "ko", "ja", "zh"}
    bad = tmp_path / "bad.yaml"
    bad.write_text("notice:\n  fr: Pas un avis médical\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.yaml: notice: .*'fr' is not one the page speaks \(en, ko, ja, zh\)"):
        read_page_settings(bad)
