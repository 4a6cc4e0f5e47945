"""The crawl plugin: `criss-rag crawl` against a fixture guideline site served on 127.0.0.1, the
review spreadsheet (CSV and XLSX), the kept pages as a corpus, the `reviewed-urls` loader, the LLM
classifier against a loopback Ollama stub, and the whole workflow through to a cited answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from criss_rag.cli.main import build_cli
from criss_rag.errors import DataError
from criss_rag.plugins import PluginHost
from criss_rag.testing.servers import OllamaStubServer
from criss_rag_crawl.cache import PageCache
from criss_rag_crawl.charset import decode_html, detect_charset
from criss_rag_crawl.classify import HeuristicSettings, classify_page, parse_llm_reply
from criss_rag_crawl.crawler import CrawlOptions, crawl
from criss_rag_crawl.fetch import Fetcher, FetchSettings, RateLimiter
from criss_rag_crawl.langfilter import LanguageFilter
from criss_rag_crawl.page import parse_page
from criss_rag_crawl.reviewed import ReviewedPages, ReviewSettings
from criss_rag_crawl.sheet import COLUMNS, Row, keep_value, read_sheet, write_sheet
from criss_rag_crawl.testing import SitePage, SiteServer
from criss_rag_crawl.urls import Scope, normalize_url

UA = "criss-rag-test-crawler/1.0 (+mailto:team@example.org)"

# -- the fixture guideline site (text written for these tests) -----------------------------------

CQ1 = """<h1>CQ1 胸腺腫の治療で手術は勧められるか</h1>
<p>推奨：切除可能な胸腺腫には、腫瘍と胸腺をまとめて切除する手術を行うことを推奨する。</p>
<p>解説：胸腺腫は前縦隔に発生する腫瘍で、完全切除ができた場合の予後は良好である。病期がI期からII期の患者では、
手術のみで再発が少ないことが多くの臨床研究で示されている。周囲の臓器への浸潤がある場合も、可能であれば合併切除を検討する。</p>
<p>術後の経過観察では、胸部CT検査を定期的に行い、再発や転移の有無を確認する。詳しくは<a href="cq2.html">放射線治療</a>を参照。</p>"""  # noqa: E501
CQ2 = """<h1>CQ2 胸腺腫の術後に放射線治療は勧められるか</h1>
<p>推奨：完全切除されたI期・II期の胸腺腫に対して、術後放射線治療を行わないことを提案する。</p>
<p>解説：術後放射線治療は再発を減らすと考えられてきたが、完全切除例では生存を改善する明確なエビデンスは乏しい。
一方、不完全切除の患者や病理で断端陽性とされた場合には、局所の再発を防ぐ目的で放射線治療を検討する。
副作用として放射線肺臓炎や心臓への影響があるため、照射範囲と線量に注意する。</p>"""
CQ3 = """<h1>CQ3 進行胸腺がんに薬物療法は勧められるか</h1>
<p>推奨：切除できない進行胸腺がんには、プラチナ製剤を含む化学療法を行うことを推奨する。</p>
<p>解説：胸腺がんは胸腺腫より悪性度が高く、診断時に転移を認めることも多い。化学療法の奏効率は報告により異なるが、
症状の緩和と生存期間の延長が期待できる。治療の前には病理診断で組織型を確認し、患者の全身状態を評価する。</p>"""
CQ4 = """<h1>CQ4 重症筋無力症を合併した胸腺腫の診断</h1>
<p>胸腺腫の患者の一部は重症筋無力症を合併し、まぶたが下がる、物が二重に見えるなどの症状で受診する。
抗アセチルコリン受容体抗体の検査と胸部CT検査を行い、前縦隔の腫瘍の有無を確認する。診断がついた場合は、
神経内科と連携して手術の時期を決める。術前に症状を安定させることで、術後のクリーゼの危険を減らすことができる。</p>"""
SJIS = """<html><head><meta charset="Shift_JIS"><title>CQ5 胸腺腫の再発に対する治療</title></head><body>
<h1>CQ5 胸腺腫の再発に対する治療</h1>
<p>① 再発した胸腺腫でも、病変が限られていれば再切除を検討する。胸膜への播種による再発が多く、
切除できる場合の予後は比較的良好である。② 切除が難しい場合は、化学療法や放射線治療を組み合わせる。
再発までの期間が長い患者では、手術の効果が期待できることが臨床研究で報告されている。</p></body></html>"""
EUCJP = """<html><head><title>CQ6 胸腺腫の病期分類</title></head><body>
<h1>CQ6 胸腺腫の病期分類</h1>
<p>胸腺腫の病期は、正岡分類またはTNM分類で判定する。腫瘍が被膜内にとどまるものをI期、被膜を越えて
周囲の脂肪組織に浸潤するものをII期とする。病期は治療方針と予後の判断に用いられ、手術の前後に
画像検査と病理検査の結果をあわせて決定する。再発の危険も病期によって異なる。</p></body></html>"""
SOCIETY = """<h1>日本胸腺研究会について</h1>
<p>本研究会は、胸腺の病気に関わる医師と研究者が集まり、診療と研究の向上を目指して設立されました。
年に一度の学術集会のほか、会員向けのニュースレターを発行しています。入会をご希望の方は、事務局までお問い合わせください。
役員名簿と会則は別のページに掲載しています。学術集会の日程と会場は、決まり次第お知らせします。</p>"""
LINKS = "<h1>関連リンク</h1><ul>" + "".join(
    f'<li><a href="https://org{i}.example.org/">関連団体のウェブサイト{i}</a></li>' for i in range(8)) + "</ul>"


def toc_page(external: str) -> str:
    return f"""<html><head><title>胸腺腫瘍診療ガイドライン 目次</title></head><body>
<nav><a href="/guide/toc.html">ホーム</a></nav>
<h1>胸腺腫瘍診療ガイドライン</h1>
<ul>
<li><a href="cq1.html">CQ1 手術</a></li>
<li><a href="cq1.html#kaisetsu">CQ1 解説</a></li>
<li><a href="./cq2.html?utm_source=toc&amp;utm_medium=web">CQ2 術後放射線治療</a></li>
<li><a href="/guide/cq3/">CQ3 薬物療法</a></li>
<li><a href="old-cq4.html">CQ4 診断（旧アドレス）</a></li>
<li><a href="sjis.html">CQ5 再発</a></li>
<li><a href="eucjp.html">CQ6 病期</a></li>
<li><a href="society.html">研究会について</a></li>
<li><a href="links.html">関連リンク</a></li>
<li><a href="missing.html">CQ7（準備中）</a></li>
<li><a href="slow.html">CQ8</a></li>
<li><a href="busy.html">CQ9 重症筋無力症</a></li>
<li><a href="private/draft.html">改訂案</a></li>
<li><a href="form.pdf">入会申込書</a></li>
<li><a href="big.html">資料集</a></li>
<li><a href="big-stream.html">資料集（続き）</a></li>
<li><a href="redirect-away.html">外部資料</a></li>
<li><a href="/outside/index.html">別のガイドライン</a></li>
<li><a href="{external}/other-guideline.html">海外のガイドライン</a></li>
<li><a href="mailto:office@example.org">お問い合わせ</a></li>
<li><a href="javascript:void(0)">印刷</a></li>
</ul></body></html>"""


def page(body: str, title: str | None = None) -> str:
    return (
        f"<html><head><title>{title or ''}</title></head>"
        f"<body><nav>メニュー</nav>{body}<footer>© 研究会</footer></body></html>"
    )


def guideline_pages(external: str) -> dict[str, SitePage]:
    big = page("<p>" + "胸腺腫の資料。" * 3000 + "</p>", "資料集")
    return {
        "/robots.txt": SitePage.text("User-agent: *\nDisallow: /guide/private/\n"),
        "/guide/toc.html": SitePage.html(toc_page(external)),
        "/guide/cq1.html": SitePage.html(page(CQ1, "CQ1 胸腺腫の手術")),
        "/guide/cq2.html": SitePage.html(page(CQ2, "CQ2 術後放射線治療")),
        "/guide/cq3": SitePage.redirect("/guide/cq3/"),
        "/guide/cq3/": SitePage.html(page(CQ3, "CQ3 進行胸腺がんの薬物療法")),
        "/guide/old-cq4.html": SitePage.redirect("/guide/cq4.html"),
        "/guide/cq4.html": SitePage.html(page(CQ4, "CQ4 重症筋無力症と胸腺腫")),
        "/guide/sjis.html": SitePage.html(SJIS, encoding="cp932", charset_header=False),
        "/guide/eucjp.html": SitePage.html(EUCJP, encoding="euc_jp"),
        "/guide/society.html": SitePage.html(page(SOCIETY, "日本胸腺研究会について")),
        "/guide/links.html": SitePage.html(page(LINKS, "関連リンク")),
        "/guide/slow.html": SitePage.html(page(CQ1, "CQ8"), delay=8.0),
        "/guide/busy.html": SitePage.html(page(CQ4, "CQ9 重症筋無力症"), fail_first=1),
        "/guide/private/draft.html": SitePage.html(page(CQ1, "改訂案")),
        "/guide/form.pdf": SitePage(body=b"%PDF-1.4 form", content_type="application/pdf"),
        "/guide/big.html": SitePage.html(big),
        "/guide/big-stream.html": SitePage.html(big, send_length=False),
        "/guide/redirect-away.html": SitePage.redirect(f"{external}/moved.html", status=302),
        "/outside/index.html": SitePage.html(page(CQ1, "別のガイドライン")),
    }


SETTINGS = FetchSettings(user_agent=UA, delay=0.1, timeout=1.5, retries=1, backoff=0.01, max_bytes=20_000)


@pytest.fixture(scope="module")
def external():
    with SiteServer(
        {"/other-guideline.html": SitePage.html(page(CQ1)), "/moved.html": SitePage.html(page(CQ1))}
    ) as server:
        yield server


@pytest.fixture(scope="module")
def site(external):
    with SiteServer(guideline_pages(external.url)) as server:
        yield server


@pytest.fixture(scope="module")
def crawled(site, external, tmp_path_factory):
    """The site crawled once through the CLI into an .xlsx (and its page cache)."""
    out = tmp_path_factory.mktemp("crawl") / "urls.xlsx"
    result = run_cli("crawl", f"{site.url}/guide/toc.html", "--out", str(out), *cli_settings())
    assert result.exit_code == 0, result.output
    rows = {row["url"].removeprefix(site.url): row for row in read_sheet(out, COLUMNS)}
    return out, rows, result.output, list(site.requests), list(external.requests)


def cli_settings() -> list[str]:
    return ["--user-agent", UA, "--delay", "0.1", "--timeout", "1.5", "--retries", "1", "--backoff", "0.01",
            "--max-bytes", "20000", "--quiet"]


def run_cli(*args: str, host: PluginHost | None = None):
    host = host or PluginHost(strict=True, only={"crawl", "basic", "tfidf", "ja", "bm25", "ollama"})
    return CliRunner().invoke(build_cli(host), list(args), obj={"host": host}, catch_exceptions=False)


# -- the crawl, row by row ---------------------------------------------------------------------------


def test_every_linked_page_gets_one_row_with_its_status(crawled):
    _, rows, _, _, _ = crawled
    status = {url: row["status"] for url, row in rows.items()}
    assert status == {
        "/guide/toc.html": "ok", "/guide/cq1.html": "ok", "/guide/cq2.html": "ok", "/guide/cq3": "ok",
        "/guide/old-cq4.html": "ok", "/guide/sjis.html": "ok", "/guide/eucjp.html": "ok",
        "/guide/society.html": "ok", "/guide/links.html": "ok", "/guide/missing.html": "http-error",
        "/guide/slow.html": "timeout", "/guide/busy.html": "ok", "/guide/private/draft.html": "robots",
        "/guide/form.pdf": "not-html", "/guide/big.html": "too-large", "/guide/big-stream.html": "too-large",
        "/guide/redirect-away.html": "off-site",
        "/outside/index.html": "out-of-scope",
        rows_key_external(rows): "off-site",
    }
    assert rows["/guide/missing.html"]["http_status"] == "404" and "HTTP 404" in rows["/guide/missing.html"]["reason"]
    assert "no answer within 1.5s (2 attempts)" in rows["/guide/slow.html"]["reason"]
    assert (
        "robots.txt" in rows["/guide/private/draft.html"]["reason"]
        and UA in rows["/guide/private/draft.html"]["reason"]
    )
    assert "application/pdf" in rows["/guide/form.pdf"]["reason"]
    assert rows["/guide/big.html"]["reason"] == "63,122 bytes > max 20,000 (Content-Length)"
    assert rows["/guide/big-stream.html"]["reason"] == "more than max 20,000 bytes"  # counted while reading
    assert "outside the scope" in rows["/guide/redirect-away.html"]["reason"]


def rows_key_external(rows) -> str:
    [key] = [url for url in rows if url.endswith("/other-guideline.html")]
    return key


def test_links_are_normalised_and_deduplicated(crawled, site):
    _, rows, output, _, _ = crawled
    assert "/guide/cq1.html" in rows and not any("#" in url for url in rows)  # fragment dropped, one row
    assert "/guide/cq2.html" in rows  # utm_* tracking parameters dropped
    assert rows["/guide/cq3"]["final_url"] == f"{site.url}/guide/cq3/"  # trailing slash dropped, redirect followed
    assert rows["/guide/old-cq4.html"]["final_url"] == f"{site.url}/guide/cq4.html"
    assert rows["/guide/cq1.html"]["link_text"] == "CQ1 手術"
    assert "2 duplicate and 2 non-web links dropped" in output  # cq1#kaisetsu + the nav's TOC link; mailto, javascript


def test_classification_and_reasons(crawled):
    _, rows, _, _, _ = crawled
    medical = {url for url, row in rows.items() if row["category"] == "medical"}
    assert medical == {"/guide/cq1.html", "/guide/cq2.html", "/guide/cq3", "/guide/old-cq4.html", "/guide/sjis.html",
                       "/guide/eucjp.html", "/guide/busy.html"}
    assert rows["/guide/toc.html"]["category"] == "non-medical"
    assert rows["/guide/toc.html"]["reason"].startswith("navigation / link list")
    assert rows["/guide/links.html"]["reason"].startswith("navigation / link list")
    assert rows["/guide/society.html"]["category"] == "non-medical"
    assert rows["/guide/society.html"]["reason"].startswith("about the site or society: URL path word /society/")
    assert rows["/guide/cq1.html"]["reason"].startswith("medical: ") and "胸腺腫" in rows["/guide/cq1.html"]["reason"]
    assert rows["/guide/form.pdf"]["category"] == "non-medical"
    for url in ("/guide/slow.html", "/guide/missing.html", "/guide/private/draft.html", "/outside/index.html"):
        assert rows[url]["category"] == "unknown", url
    cq1 = rows["/guide/cq1.html"]
    assert cq1["title"] == "CQ1 胸腺腫の手術" and int(cq1["text_length"]) > 200 and int(cq1["medical_terms"]) >= 3
    assert cq1["classifier"] == "heuristic" and cq1["keep"] == "" and cq1["reviewer_note"] == ""


def test_shift_jis_and_euc_jp_pages_are_decoded(crawled):
    _, rows, _, _, _ = crawled
    assert rows["/guide/sjis.html"]["charset"] == "cp932"  # from <meta charset="Shift_JIS">, widened
    assert rows["/guide/sjis.html"]["title"] == "CQ5 胸腺腫の再発に対する治療"
    assert rows["/guide/eucjp.html"]["charset"] == "euc_jis_2004"  # from the Content-Type header
    assert rows["/guide/eucjp.html"]["title"] == "CQ6 胸腺腫の病期分類"


def test_politeness_off_site_never_fetched_robots_once_user_agent_retries(crawled):
    _, _, _, requests, external_requests = crawled
    assert external_requests == []  # the external link and the off-site redirect were never followed
    paths = [r.path for r in requests]
    assert paths.count("/robots.txt") == 1
    assert "/guide/private/draft.html" not in paths and "/outside/index.html" not in paths
    assert paths.count("/guide/busy.html") == 2  # 503, then a retry
    assert paths.count("/guide/slow.html") == 2  # timed out twice (retries=1)
    assert paths.count("/guide/cq1.html") == 1  # linked twice, fetched once
    assert "/guide/form.pdf" in paths and paths.count("/guide/redirect-away.html") == 1
    assert {r.headers.get("user-agent") for r in requests} == {UA}


class FakeClock:
    """Time that only moves when the crawler sleeps: request starts are exact, whatever the load."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.starts: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_rate_limit_spaces_every_request_of_a_crawl(external):
    fake = FakeClock()
    limiter = RateLimiter(0.25, clock=fake.clock, sleep=fake.sleep)
    with SiteServer(guideline_pages(external.url)) as site:
        fetcher = Fetcher(SETTINGS, Scope.of(site.url + "/guide/toc.html"), limiter=limiter)
        original_get = fetcher.session.get

        def timed_get(*args, **kwargs):
            fake.starts.append(fake.now)
            return original_get(*args, **kwargs)

        fetcher.session.get = timed_get
        report = crawl(site.url + "/guide/toc.html", fetcher, CrawlOptions(progress=False))
    assert len(fake.starts) == fetcher.requests_made == report.requests == len(site.requests) == 21
    gaps = [b - a for a, b in zip(fake.starts, fake.starts[1:], strict=False)]
    assert min(gaps) >= 0.25  # robots.txt, retries and redirects included
    assert fake.now - 1000.0 >= 20 * 0.25


def test_summary_and_next_step(crawled):
    _, rows, output, requests, _ = crawled
    assert f"{len(rows)} URLs, 10 fetched (7 medical, 3 non-medical)" in output
    assert "off-site 2" in output and "robots 1" in output and "timeout 1" in output
    assert f"{len(requests)} HTTP requests" in output
    assert "criss-rag crawl --reviewed" in output


# -- units: URLs, rate limiter, charset, classifier, language filter ---------------------------------


def test_normalize_url_rule():
    assert normalize_url("HTTP://Example.ORG:80/a/b/?utm_source=x&b=2&a=1#frag") == "http://example.org/a/b?a=1&b=2"
    assert normalize_url("../c.html?fbclid=1", base="https://h.org/g/sub/page.html") == "https://h.org/g/c.html"
    assert normalize_url("https://h.org:443/") == "https://h.org/"
    assert normalize_url("https://h.org:8443/x/") == "https://h.org:8443/x"
    assert normalize_url("?id=3&ref=a", base="https://h.org/q", drop_params=["ref"]) == "https://h.org/q?id=3"
    assert normalize_url("mailto:a@b.org") is None and normalize_url("javascript:void(0)") is None


def test_scope():
    scope = Scope.of("https://h.org/guide/toc.html")
    assert scope.prefix == "https://h.org/guide/"
    assert scope.outside("https://h.org/guide/cq/1") is None and scope.outside("https://h.org/guide") is None
    assert scope.outside("https://h.org/other/x") == "out-of-scope"
    assert (
        scope.outside("https://other.org/guide/x") == "off-site" and scope.outside("http://h.org/guide/x") == "off-site"
    )
    assert Scope.of("https://h.org/guide/toc.html", "https://h.org").prefix == "https://h.org/"


def test_rate_limiter_spaces_request_starts():
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))
        now[0] += seconds

    limiter = RateLimiter(2.0, clock=lambda: now[0], sleep=sleep)
    limiter.wait()          # first request: no wait
    now[0] += 0.5
    limiter.wait()          # 0.5 s later: waits the remaining 1.5 s
    now[0] += 3.0
    limiter.wait()          # 3 s later: no wait
    assert slept == [1.5]


def test_robots_crawl_delay_raises_the_delay_and_blocks_disallowed(tmp_path):
    pages = {"/robots.txt": SitePage.text(f"User-agent: {UA.split('/')[0]}\nCrawl-delay: 3\nDisallow: /g/secret\n"),
             "/g/toc.html": SitePage.html("<a href='a.html'>a</a><a href='secret.html'>s</a>"),
             "/g/a.html": SitePage.html(page(CQ1, "a"))}
    slept: list[float] = []
    with SiteServer(pages) as server:
        limiter = RateLimiter(0.0, sleep=slept.append)
        fetcher = Fetcher(
            SETTINGS.model_copy(update={"delay": 0.0}), Scope.of(server.url + "/g/toc.html"), limiter=limiter
        )
        report = crawl(server.url + "/g/toc.html", fetcher, CrawlOptions(progress=False))
    assert limiter.delay == 3.0
    # robots.txt, then the TOC and a.html each wait; secret.html is refused without a request
    assert len(slept) == 2 and all(s > 2.5 for s in slept)
    assert [row.status for row in report.rows] == ["ok", "ok", "robots"]
    assert not server.requests_to("/g/secret.html")


def test_robots_server_error_means_disallow(tmp_path):
    pages = {"/robots.txt": SitePage.text("oops", status=500), "/g/toc.html": SitePage.html("<a href='a.html'>a</a>")}
    with SiteServer(pages) as server:
        fetcher = Fetcher(
            SETTINGS.model_copy(update={"delay": 0.0, "retries": 0}), Scope.of(server.url + "/g/toc.html")
        )
        with pytest.raises(
            DataError, match=r"may not be crawled: .*robots.txt HTTP 500: everything is treated as disallowed"
        ):
            crawl(server.url + "/g/toc.html", fetcher, CrawlOptions(progress=False))
        assert not server.requests_to("/g/toc.html")


def test_charset_detection_order():
    sjis = "<html><head><meta charset='shift_jis'></head><body>胸腺腫の治療①</body></html>".encode("cp932")
    assert detect_charset(sjis) == "cp932" and "胸腺腫の治療①" in decode_html(sjis)[0]
    # the header wins over the page; a page without any declaration is guessed from its bytes
    assert detect_charset(b"<p>x</p>", "text/html; charset=EUC-JP") == "euc_jis_2004"
    bare = (
        "<html><body><p>" + "胸腺腫は前縦隔に発生する腫瘍で、手術で切除することが多い。" * 5 + "</p></body></html>"
    ).encode("euc_jp")
    assert "胸腺腫は前縦隔" in decode_html(bare, "text/html")[0]
    assert detect_charset(b"\xef\xbb\xbf<p>x</p>", "text/html; charset=latin-1") == "utf-8-sig"


def test_page_text_keeps_inline_links_in_their_sentence():
    parsed = parse_page(page("<p>詳しくは<a href='x'>治療</a>を参照。</p><ul><li>一</li><li>二</li></ul>", "題"))
    assert parsed.text == "詳しくは治療を参照。\n一\n二"  # nav and footer dropped, <title> is not text
    assert parsed.title == "題" and parsed.links == (("x", "治療"),)
    assert parse_page(page("<p>本文</p>"), drop_tags=()).text == "メニュー\n本文\n© 研究会"


def test_heuristic_rules_in_english_and_korean():
    settings = HeuristicSettings()
    en = parse_page(page("<p>" + "Thymoma is a tumor of the thymus. Surgery with complete resection is the main "
                         "treatment; radiotherapy is considered after incomplete resection. " * 3 + "</p>", "Thymoma"))
    assert classify_page("https://h.org/guide/cq/1", en, settings).category == "medical"
    assert classify_page("https://h.org/guide/about/", en, settings).reason.startswith(
        "about the site or society: URL path word /about/"
    )
    society = parse_page(
        page(
            "<p>" + "本学会は胸腺腫の診断と治療の向上を目指し、手術や放射線治療の研究を支援しています。" * 3 + "</p>",
            "学会について",
        )
    )
    verdict = classify_page("https://h.org/guide/info.html", society, settings)
    assert verdict.reason.startswith("about the site or society: title word '学会'") and len(verdict.medical_terms) >= 3
    assert (
        classify_page("https://h.org/guide/cq/7", society, settings).category == "medical"
    )  # a guideline path word wins
    ko = parse_page(
        page(
            "<p>"
            + "흉선종은 종양으로, 수술로 절제하는 것이 치료의 기본입니다. 재발한 환자는 방사선 치료를 고려합니다. " * 3
            + "</p>"
        )
    )
    verdict = classify_page("https://h.org/guide/cq/2", ko, settings)
    assert verdict.category == "medical" and {"종양", "수술", "절제", "치료"} <= set(verdict.medical_terms)
    short = parse_page(page("<p>胸腺腫の手術と治療。</p>"))
    assert classify_page("https://h.org/guide/x", short, settings).reason.startswith("too little text")
    plain = parse_page(page("<p>" + "この文書は、会議の日程と場所を案内するためのものです。" * 10 + "</p>"))
    assert classify_page("https://h.org/guide/x", plain, settings).reason.startswith("too few medical terms: 0 < 3")


def test_parse_llm_reply():
    assert parse_llm_reply("NON-MEDICAL: a society page") == ("non-medical", "a society page")
    assert parse_llm_reply("Medical - clinical question on surgery") == ("medical", "clinical question on surgery")
    assert parse_llm_reply("not medical: news") == ("non-medical", "news")
    assert parse_llm_reply("I cannot tell") is None


def test_language_filter_keeps_the_guideline_script():
    text = "胸腺腫（thymoma）は、CT検査で2cm以上。흉선종\nHER2陽性"
    assert LanguageFilter(keep=["ja"]).apply(text) == "胸腺腫（ ）は、 検査で2 以上。\n2陽性"
    assert LanguageFilter(keep=["ja"], digits=False, punctuation=False).apply(text) == "胸腺腫 は 検査で 以上\n陽性"
    assert LanguageFilter(keep=["ja"]).apply("5年生存率は90±5%") == "5年生存率は90 5%"
    assert LanguageFilter(keep=["ja"], extra="±").apply("5年生存率は90±5%") == "5年生存率は90±5%"
    assert LanguageFilter(keep=["ko"]).apply(text) == "（ ） 、 2 。흉선종\n2"
    assert LanguageFilter().apply(text) == text


# -- the spreadsheet -------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_sheet_round_trip(tmp_path, suffix):
    rows = [Row(url="https://h.org/guide/cq1", status="ok", category="medical", title="CQ1 胸腺腫の手術",
                reason="medical: 9 medical terms", text_length=812, link_ratio=0.031, medical_terms=9, http_status=200),
            Row(url="https://other.org/x", status="off-site", category="unknown", reason="another site",
                link_text="=HYPERLINK(\"https://evil.example\",\"click\")", title="-1+1")]
    path = tmp_path / f"urls{suffix}"
    write_sheet(path, rows)
    back = read_sheet(path, ["url", "keep"])
    assert [r["url"] for r in back] == [r.url for r in rows]
    assert (
        back[0]["title"] == "CQ1 胸腺腫の手術" and back[0]["text_length"] == "812" and back[0]["link_ratio"] == "0.031"
    )
    assert back[1]["status"] == "off-site" and back[1]["keep"] == "" and list(back[0]) == list(COLUMNS)
    # text from web pages that looks like a formula is stored as text and read back unchanged
    assert back[1]["link_text"] == rows[1].link_text and back[1]["title"] == "-1+1"
    if suffix == ".xlsx":
        cell = load_workbook(path)["urls"].cell(3, COLUMNS.index("link_text") + 1)
        assert cell.data_type == "s" and cell.value == rows[1].link_text
    else:
        assert "'=HYPERLINK" in path.read_text(encoding="utf-8-sig")


def test_csv_saved_by_japanese_or_korean_excel_is_read(tmp_path):
    sheet = tmp_path / "urls.csv"
    sheet.write_bytes(
        "url,title,keep,reviewer_note\nhttps://h.org/g/cq1,CQ1 胸腺腫の手術,はい,確認済み①\n".encode("cp932")
    )
    [row] = read_sheet(sheet, ["url", "keep"])
    assert row["title"] == "CQ1 胸腺腫の手術" and row["reviewer_note"] == "確認済み①" and keep_value(row["keep"], "x")
    sheet.write_bytes(
        "url,title,keep\nhttps://h.org/g/1,흉선종의 수술,예\nhttps://h.org/g/2,학회 소개,아니오\n".encode("cp949")
    )
    rows = read_sheet(sheet, ["url", "keep"])  # Korean Excel: CP949
    assert [r["title"] for r in rows] == ["흉선종의 수술", "학회 소개"] and keep_value(rows[1]["keep"], "x") is False


def test_sheet_errors_name_the_file_and_column(tmp_path):
    with pytest.raises(DataError, match=r"unknown spreadsheet extension '\.txt'; use \.xlsx or \.csv"):
        write_sheet(tmp_path / "urls.txt", [])
    bad = tmp_path / "mine.csv"
    bad.write_text("address,keep\nhttps://h.org/a,yes\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{bad}: the spreadsheet has no column 'url' \(header row: address, keep\)"):
        read_sheet(bad, ["url", "keep"])
    with pytest.raises(DataError, match=r"mine.csv, row 3: `keep` is 'maybe'; write yes or no"):
        keep_value("maybe", f"{bad}, row 3")
    assert keep_value("○", "x") is True and keep_value("いいえ", "x") is False and keep_value(" ", "x") is None


# -- errors that teach ---------------------------------------------------------------------------------


def test_crawl_errors(tmp_path, site):
    out = str(tmp_path / "urls.xlsx")
    result = run_cli("crawl", "example.org/guide", "--out", out)
    assert result.exit_code == 2 and "TOC_URL 'example.org/guide' is not a web address" in result.output
    from criss_rag.testing.servers import unused_port

    port = unused_port()
    result = run_cli("crawl", f"http://127.0.0.1:{port}/g/toc.html", "--out", out, "--quiet", "--retries", "0")
    assert (
        result.exit_code == 2
        and f"cannot reach the table of contents http://127.0.0.1:{port}/g/toc.html" in result.output
    )
    result = run_cli("crawl", f"{site.url}/guide/private/draft.html", "--out", out, "--quiet", "--user-agent", UA)
    assert result.exit_code == 2 and "may not be crawled: robots.txt at" in result.output
    result = run_cli("crawl", f"{site.url}/guide/toc.html", "--out", str(tmp_path / "urls.ods"))
    assert result.exit_code == 2 and "unknown spreadsheet extension '.ods'" in result.output
    result = run_cli("crawl", f"{site.url}/guide/toc.html", "--reviewed", out, "--out", out)
    assert result.exit_code == 2 and "give either TOC_URL" in result.output
    result = run_cli("crawl", f"{site.url}/guide/toc.html", "--out", out, "--keep-language", "ja")
    assert result.exit_code == 2 and "--keep-language applies to --reviewed only" in result.output
    assert "Traceback" not in result.output


# -- review: the kept rows become a corpus ------------------------------------------------------------


def mark(sheet: Path, marks: dict[str, str], site_url: str) -> None:
    """Fill the `keep` column of the .xlsx as a reviewer would, with openpyxl."""
    book = load_workbook(sheet)
    rows = book["urls"]
    header = [cell.value for cell in rows[1]]
    url_col, keep_col, note_col = header.index("url") + 1, header.index("keep") + 1, header.index("reviewer_note") + 1
    for r in range(2, rows.max_row + 1):
        path = str(rows.cell(r, url_col).value).removeprefix(site_url)
        if path in marks:
            rows.cell(r, keep_col).value = marks[path]
            rows.cell(r, note_col).value = "checked" if marks[path] == "yes" else "society page"
    book.save(sheet)


@pytest.fixture(scope="module")
def reviewed(crawled, site, tmp_path_factory):
    """A copy of the crawled sheet (and its cache) with the reviewer's marks."""
    out, _, _, _, _ = crawled
    folder = tmp_path_factory.mktemp("reviewed")
    sheet = folder / "urls.xlsx"
    sheet.write_bytes(out.read_bytes())
    (folder / "urls.pages.jsonl").write_bytes(out.with_name("urls.pages.jsonl").read_bytes())
    mark(sheet, {"/guide/cq1.html": "yes", "/guide/cq2.html": "yes", "/guide/cq3": "Y", "/guide/sjis.html": "○",
                 "/guide/society.html": "no", "/guide/slow.html": "yes", "/guide/form.pdf": "yes"}, site.url)
    return sheet


def test_reviewed_rows_become_documents_from_the_cache(reviewed, site, tmp_path):
    before = len(site.requests)
    corpus = tmp_path / "corpus.jsonl"
    result = run_cli("crawl", "--reviewed", str(reviewed), "--out", str(corpus), "--quiet", *cli_settings()[:-1])
    assert result.exit_code == 0, result.output
    docs = {
        d["url"].removeprefix(site.url): d for d in map(json.loads, corpus.read_text(encoding="utf-8").splitlines())
    }
    assert set(docs) == {"/guide/cq1.html", "/guide/cq2.html", "/guide/cq3", "/guide/sjis.html"}
    cq1 = docs["/guide/cq1.html"]
    assert cq1["title"] == "CQ1 胸腺腫の手術" and cq1["category"] == "medical" and cq1["lang"] == "ja"
    assert cq1["text"].startswith("CQ1 胸腺腫の治療で手術は勧められるか\n推奨：") and "メニュー" not in cq1["text"]
    assert "① 再発した胸腺腫" in docs["/guide/sjis.html"]["text"]
    assert cq1["page_source"] == "cache" and cq1["reviewer_note"] == "checked"
    assert "wrote 4 documents" in result.output and "(4 from the page cache, 1 fetched)" in result.output
    # the slow page (8 s, past the 1.5 s timeout) is retried and times out again; nothing else is fetched
    assert [r.path for r in site.requests[before:]] == ["/robots.txt", "/guide/slow.html", "/guide/slow.html"]
    assert "skipped /guide/society.html" not in result.output  # URLs are printed in full
    assert f"skipped {site.url}/guide/society.html: reviewer said no: society page" in result.output
    assert f"skipped {site.url}/guide/form.pdf: kept, but the crawl could not read it: not-html" in result.output
    assert (
        f"rows: not reviewed (`keep` is empty): {site.url}/guide/toc.html, {site.url}/guide/old-cq4.html, "
        in result.output
    )


def test_pages_fetched_for_a_review_are_added_to_the_page_cache(reviewed, site, tmp_path):
    sheet = tmp_path / "urls.xlsx"  # the reviewed sheet without its page cache: kept pages are fetched
    sheet.write_bytes(reviewed.read_bytes())
    first, again = tmp_path / "first.jsonl", tmp_path / "again.jsonl"
    result = run_cli("crawl", "--reviewed", str(sheet), "--out", str(first), "--quiet", *cli_settings()[:-1])
    assert result.exit_code == 0, result.output
    assert "(0 from the page cache, 5 fetched)" in result.output  # 4 pages + the slow one, which fails
    cached = {
        json.loads(line)["url"] for line in (tmp_path / "urls.pages.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert {u.removeprefix(site.url) for u in cached} == {
        "/guide/cq1.html",
        "/guide/cq2.html",
        "/guide/cq3",
        "/guide/sjis.html",
    }
    result = run_cli("crawl", "--reviewed", str(sheet), "--out", str(again), "--offline", "--quiet")
    assert result.exit_code == 0, result.output
    def texts(path):
        return sorted((d["url"], d["text"]) for d in map(json.loads, path.read_text(encoding="utf-8").splitlines()))

    assert texts(again) == texts(first)


def test_reviewed_language_filter_and_offline(reviewed, site, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    result = run_cli("crawl", "--reviewed", str(reviewed), "--out", str(corpus), "--offline", "--quiet",
                     "--keep-language", "ja", "--no-digits")
    assert result.exit_code == 0, result.output
    docs = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    cq1 = next(d for d in docs if d["url"].endswith("/cq1.html"))
    assert cq1["text"].startswith(" 胸腺腫の治療で手術は勧められるか".strip()) and "CQ" not in cq1["text"]
    assert "胸部 検査" in cq1["text"]  # "胸部CT検査": Latin letters removed
    assert "kept, but not in the page cache and offline is set" in result.output


def test_unreviewed_medical_rows_can_be_taken(crawled, tmp_path):
    out, _, _, _, _ = crawled
    pages = ReviewedPages(out, ReviewSettings(unreviewed="medical", offline=True))
    docs = list(pages.records())
    assert len(docs) == 7 and all(d["category"] == "medical" for d in docs)
    reasons = dict(pages.skipped)
    assert any(r.startswith("not reviewed, and classified non-medical") for r in reasons.values())


def test_reviewed_errors(tmp_path, reviewed):
    result = run_cli("crawl", "--reviewed", str(reviewed), "--out", str(tmp_path / "corpus.json"))
    assert result.exit_code == 2 and "name it *.jsonl" in result.output
    sheet = tmp_path / "mine.csv"
    sheet.write_text("url,status\nhttps://h.org/a,ok\n", encoding="utf-8")
    result = run_cli("crawl", "--reviewed", str(sheet), "--out", str(tmp_path / "c.jsonl"))
    assert result.exit_code == 2 and f"{sheet}: the spreadsheet has no column 'keep'" in result.output


def test_page_cache_keeps_the_last_fetch(tmp_path):
    cache = PageCache(tmp_path / "u.pages.jsonl")
    cache.put("https://h.org/a", "https://h.org/a", "utf-8", "<p>old</p>")
    cache.put("https://h.org/a", "https://h.org/a", "utf-8", "<p>new</p>")
    assert len(cache.path.read_text(encoding="utf-8").splitlines()) == 2
    cache.compact()
    again = PageCache(tmp_path / "u.pages.jsonl")
    assert again.get("https://h.org/a")["html"] == "<p>new</p>" and len(again.path.read_text().splitlines()) == 1


# -- the LLM classifier, through a loopback Ollama stub --------------------------------------------------

PIPELINE = """name: crawl-test
index: {{dir: {index}}}
loader: {loader}
chunker: whole-document
{llms}query_transforms:
  - {{name: keywords, analyzer: {{name: mecab, drop_non_japanese: true}}, max_keywords: 2}}
retrievers:
  - {{name: tfidf, analyzer: {{name: mecab, drop_non_japanese: true}}, min_score: 0.2, top_k: 1000}}
refusal: {{name: evidence-threshold, no_evidence_message: {{ja: 参考文献なし}}}}
context: {{name: concatenate, max_chars: 4096, unit: chars, number: false}}
generator: {{name: extractive, analyzer: mecab, max_sentences: 3}}
"""


def pipeline_yaml(tmp_path: Path, loader: str, llms: str = "") -> Path:
    path = tmp_path / "pipeline.yaml"
    path.write_text(PIPELINE.format(index=tmp_path / "index", loader=loader, llms=llms), encoding="utf-8")
    return path


def test_llm_classifier_through_the_pipeline_llms(site, tmp_path):
    def reply(request) -> str:
        if "日本胸腺研究会" in request.prompt:
            return "NON-MEDICAL: about the society"
        return "I am not sure." if "進行胸腺がん" in request.prompt else "MEDICAL: a clinical question"

    with OllamaStubServer(reply=reply) as ollama:
        config = pipeline_yaml(
            tmp_path,
            "{name: jsonl, path: corpus.jsonl}",
            f"llms:\n  sorter: {{name: ollama, model: m, base_url: '{ollama.url}', max_retries: 0}}\n",
        )
        out = tmp_path / "urls.csv"
        result = run_cli("crawl", f"{site.url}/guide/toc.html", "--out", str(out), *cli_settings(),
                         "--config", str(config), "--llm", "sorter", "--max-pages", "4")
        assert result.exit_code == 0, result.output
        prompts = [r.prompt for r in ollama.requests if r.path == "/api/chat"]
    rows = {row["url"].removeprefix(site.url): row for row in read_sheet(out, ["url"])}
    assert len(prompts) == 5  # the TOC and the 4 pages --max-pages allows
    assert rows["/guide/cq1.html"]["classifier"] == "llm:sorter"
    assert rows["/guide/cq1.html"]["reason"].startswith("LLM: a clinical question (heuristic agrees: medical:")
    assert rows["/guide/toc.html"]["category"] == "medical"  # the LLM's word, not the heuristic's ...
    assert "heuristic says non-medical" in rows["/guide/toc.html"]["reason"]  # ... which the reason keeps
    assert rows["/guide/cq3"]["classifier"] == "heuristic" and rows["/guide/cq3"]["reason"].startswith(
        "LLM reply unreadable"
    )
    assert (
        rows["/guide/sjis.html"]["status"] == "not-fetched"
        and "over --max-pages 4" in rows["/guide/sjis.html"]["reason"]
    )
    result = run_cli("crawl", f"{site.url}/guide/toc.html", "--out", str(out), "--llm", "sorter")
    assert result.exit_code == 2 and "--llm KEY and --config PIPELINE.yaml go together" in result.output
    result = run_cli(
        "crawl", f"{site.url}/guide/toc.html", "--out", str(out), "--llm", "judge", "--config", str(config)
    )
    assert result.exit_code == 2 and "uses the LLM 'judge', but `llms:` names only: sorter" in result.output


# -- end to end: crawl -> review in the xlsx -> corpus -> ingest -> a cited answer -------------------------


JLCS = Path(__file__).resolve().parents[1] / "examples" / "jlcs.yaml"


@pytest.mark.parametrize("via", ["jsonl", "reviewed-urls"])
def test_crawl_review_ingest_ask_cites_a_crawled_page(reviewed, site, tmp_path, via):
    """The Japanese preset (examples/jlcs.yaml: MeCab nouns, TF-IDF cosine >= 0.2) over the crawled
    pages, read from the corpus `crawl --reviewed` wrote or from the reviewed sheet directly."""
    if via == "jsonl":
        corpus = tmp_path / "corpus.jsonl"
        result = run_cli("crawl", "--reviewed", str(reviewed), "--out", str(corpus), "--offline", "--quiet",
                         "--keep-language", "ja")
        assert result.exit_code == 0, result.output
        loader = f"loader={{name: jsonl, path: '{corpus}'}}"
    else:
        loader = f"loader={{name: reviewed-urls, path: '{reviewed}', offline: true, language_filter: {{keep: [ja]}}}}"
    overrides = ["--set", loader, "--set", f"index.dir={tmp_path / 'index'}"]
    result = run_cli("ingest", str(JLCS), *overrides)
    assert result.exit_code == 0, result.output
    assert "indexed 4 documents" in result.output
    result = run_cli("ask", str(JLCS), "胸腺腫の術後に放射線治療は必要ですか", "--json", *overrides)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert not answer["refused"] and answer["citations"]
    assert answer["citations"][0]["location"] == f"{site.url}/guide/cq2.html"
    assert answer["citations"][0]["title"] == "CQ2 術後放射線治療"
    result = run_cli("ask", str(JLCS), "小児の神経膠腫の治療について教えてください", "--json", *overrides)
    refused = json.loads(result.output)
    assert refused["refused"] and refused["text"] == "参考文献なし"


def test_reviewed_urls_loader_records_skipped_rows(reviewed, tmp_path):
    from criss_rag.testing import pipeline_from_yaml

    pipeline = pipeline_from_yaml(PIPELINE.format(
        index=tmp_path / "index", llms="",
        loader=f"{{name: reviewed-urls, path: '{reviewed}', offline: true}}"), tmp_path,
        host=PluginHost(strict=True, only={"crawl", "basic", "tfidf", "ja"}))
    loader = pipeline.one("loader")
    fingerprint = loader.fingerprint()
    docs = list(loader.load())
    assert len(docs) == 4 and docs[0].metadata["doc_id"] == docs[0].doc_id and docs[0].metadata["url"]
    skipped = dict(loader.skipped)
    assert len(skipped) == 19 - 4  # every row of the sheet (TOC included) is loaded or skipped
    assert any(reason == "kept, but not in the page cache and offline is set" for reason in skipped.values())
    assert loader.fingerprint() == fingerprint
