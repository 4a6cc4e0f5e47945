"""The crawler cannot be led out of its scope (dot segments, percent-encoded dots, redirects) nor
held by a slow server (a deadline per page, a total budget), against the loopback fixture site."""

from __future__ import annotations

import pytest

from criss_rag_crawl.crawler import CrawlOptions, crawl
from criss_rag_crawl.fetch import Fetcher, FetchSettings
from criss_rag_crawl.testing import SitePage, SiteServer
from criss_rag_crawl.urls import Scope, clean_path, normalize_url, remove_dot_segments

SETTINGS = FetchSettings(user_agent="criss-rag-test/1.0", delay=0.0, timeout=1.0, retries=0, backoff=0.0)
BODY = ("<h1>胸腺腫の治療</h1><p>胸腺腫の手術と放射線治療について、病期ごとの推奨を説明します。再発の危険と予後、"
        "化学療法の適応、術後の経過観察について、診療ガイドラインの推奨をまとめました。</p>")


def _page(title: str) -> SitePage:
    return SitePage.html(f"<html><head><title>{title}</title></head><body>{BODY}</body></html>")


ESCAPES = ["/guide/../outside.html", "/guide/%2e%2e/outside2.html", "sub/%2E%2E/%2e%2e/outside3.html",
           "/guide/.%2e/outside4.html", "/guide/..%2foutside5.html", "/guide/..\\outside6.html"]


def _site_pages() -> dict[str, SitePage]:
    links = "".join(
        f"<a href='{href}'>link {i}</a>" for i, href in enumerate([*ESCAPES, "r1.html", "r2.html", "ok.html"])
    )
    pages = {"/guide/toc.html": SitePage.html(f"<html><body>{links}</body></html>"),
             "/guide/ok.html": _page("ok"),
             "/guide/r1.html": SitePage.redirect("/guide/../outside.html"),
             "/guide/r2.html": SitePage.redirect("/guide/%2e%2e/outside2.html")}
    for n in ("", "2", "3", "4", "5", "6"):
        pages[f"/outside{n}.html"] = _page("outside")
    # a server that resolves the escapes itself would serve these raw paths from outside the guideline
    for raw in ("/guide/%2e%2e/outside2.html", "/guide/sub/%2E%2E/%2e%2e/outside3.html", "/guide/.%2e/outside4.html",
                "/guide/..%2foutside5.html", "/guide/..%5Coutside6.html"):
        pages[raw] = _page("outside (raw)")
    return pages


def test_dot_segment_links_and_redirects_never_leave_the_scope():
    with SiteServer(_site_pages()) as site:
        fetcher = Fetcher(SETTINGS, Scope.of(site.url + "/guide/toc.html"))
        report = crawl(site.url + "/guide/toc.html", fetcher, CrawlOptions(progress=False))
        paths = [r.path for r in site.requests]
    outside = [p for p in paths if p != "/robots.txt" and not p.startswith("/guide/")]
    assert not outside, outside
    assert not any("%2e" in p.lower() or ".." in p or "%2f" in p.lower() or "%5c" in p.lower() for p in paths), paths
    rows = {row.url.removeprefix(site.url): row for row in report.rows}
    assert rows["/guide/ok.html"].status == "ok"
    assert rows["/outside.html"].status == "out-of-scope" and rows["/outside2.html"].status == "out-of-scope"
    assert sum(row.status == "out-of-scope" for row in report.rows) == 8  # the six escaping links, the two redirects
    for redirect in ("/guide/r1.html", "/guide/r2.html"):
        assert rows[redirect].status == "out-of-scope" and "redirects to" in rows[redirect].reason, rows[redirect]
    assert not any(row.status == "ok" and "outside" in (row.title or "") for row in report.rows)


def test_the_path_rules():
    assert remove_dot_segments("/a/b/c/./../../g") == "/a/g"  # RFC 3986 5.2.4's example
    assert remove_dot_segments("/../../x") == "/x" and remove_dot_segments("/a/..") == "/"
    assert clean_path("/guide/%2e%2E/x%7e/%41") == "/x~/A"
    assert clean_path("/a/%2f/%c3%a9") == "/a/%2F/%C3%A9"  # reserved and non-ASCII escapes stay escaped
    assert normalize_url("/guide/%2e%2e/outside.html", base="https://h.org/guide/toc.html") == "https://h.org/outside.html"
    scope = Scope.of("https://h.org/guide/toc.html")
    assert scope.outside("https://h.org/guide/a/../b.html") is None
    assert scope.outside("https://h.org/guide/../b.html") == "out-of-scope"
    assert scope.outside("https://h.org/guide/..%2Fb.html") == "out-of-scope"  # a server may decode %2F first
    assert scope.outside("https://H.ORG:443/guide/x") is None


def test_a_trickling_page_is_cut_off_at_its_deadline_with_status_timeout():
    slow = _page("slow")
    slow.trickle = 0.25  # one byte every 0.25 s: each read arrives within --timeout, the page would take minutes
    pages = {"/guide/toc.html": SitePage.html("<a href='slow.html'>slow</a><a href='ok.html'>ok</a>"),
             "/guide/slow.html": slow, "/guide/ok.html": _page("ok")}
    with SiteServer(pages) as site:
        fetcher = Fetcher(SETTINGS.model_copy(update={"page_timeout": 1.5}), Scope.of(site.url + "/guide/toc.html"))
        report = crawl(site.url + "/guide/toc.html", fetcher, CrawlOptions(progress=False))
        sent, total = slow.bytes_sent, len(slow.body)
    rows = {row.url.removeprefix(site.url): row for row in report.rows}
    assert rows["/guide/slow.html"].status == "timeout", rows["/guide/slow.html"]
    assert "--page-timeout 1.5s" in rows["/guide/slow.html"].reason
    assert sent < total // 4  # the client left long before the body was sent
    assert rows["/guide/ok.html"].status == "ok"  # the crawl went on


def test_the_crawl_budget_leaves_the_rest_not_fetched():
    pages = {"/guide/toc.html": SitePage.html("".join(f"<a href='p{i}.html'>p{i}</a>" for i in range(4)))}
    for i in range(4):
        pages[f"/guide/p{i}.html"] = SitePage.html(f"<title>p{i}</title>{BODY}", delay=0.6)
    with SiteServer(pages) as site:
        fetcher = Fetcher(SETTINGS, Scope.of(site.url + "/guide/toc.html"))
        report = crawl(site.url + "/guide/toc.html", fetcher, CrawlOptions(progress=False, max_seconds=1.0))
        asked = [r.path for r in site.requests if r.path.startswith("/guide/p")]
    statuses = [row.status for row in report.rows[1:]]
    assert "not-fetched" in statuses, statuses
    assert len(asked) < 4
    assert all("--max-seconds 1" in row.reason for row in report.rows if row.status == "not-fetched")


@pytest.mark.parametrize("flag", ["--page-timeout", "--max-seconds"])
def test_the_cli_has_the_deadline_options(flag):
    from click.testing import CliRunner

    from criss_rag.cli.main import build_cli
    from criss_rag.plugins import PluginHost

    host = PluginHost(strict=True, only={"crawl"})
    result = CliRunner().invoke(build_cli(host), ["crawl", "--help"], obj={"host": host})
    assert flag in result.output


# -- the classifier: script-aware length, medical terms weigh against shortness ------------------------


def _classify(text: str, title: str = ""):
    from criss_rag_crawl.classify import HeuristicSettings, classify_page
    from criss_rag_crawl.page import parse_page

    page = parse_page(f"<html><head><title>{title}</title></head><body><p>{text}</p></body></html>")
    return classify_page("https://h.org/guide/cq7.html", page, HeuristicSettings())


def test_a_short_japanese_clinical_question_page_is_medical():
    # 58 non-space characters, 8 medical terms: the "< 100 chars" rule used to make it non-medical
    text = (
        "CQ7 胸腺腫の術後再発に再切除は勧められるか。"
        "推奨：再発が限局していれば手術を検討する。化学療法や放射線治療も選ぶ。"
    )
    assert 55 <= len(text.replace(" ", "")) <= 80
    verdict = _classify(text)
    assert verdict.category == "medical", verdict.reason
    assert len(verdict.medical_terms) >= 6


def test_a_short_chinese_or_korean_page_with_medical_terms_counts_its_script():
    from criss_rag_crawl.classify import weighted_length

    assert (
        weighted_length("胸腺瘤手术") == 15 and weighted_length("흉선종 수술") == 10 and weighted_length("tumor") == 5
    )
    korean = "흉선종 수술 후 재발하면 재절제를 검토합니다. 항암 치료와 방사선 치료도 선택지입니다."
    assert _classify(korean).category == "medical", _classify(korean).reason
    chinese = "胸腺瘤术后复发时，如病灶局限可考虑再次手术切除，也可选择化疗或放疗。"
    assert _classify(chinese).category == "medical", _classify(chinese).reason


def test_short_pages_without_medical_evidence_stay_non_medical():
    assert _classify("お問い合わせは事務局までご連絡ください。").category == "non-medical"
    english = "Cancer treatment: surgery or chemotherapy."  # 5 terms, but 38 chars of English
    verdict = _classify(english)
    assert verdict.category == "non-medical" and "too little text" in verdict.reason
    assert _classify("胸腺腫の治療").category == "non-medical"  # 6 characters: too short even with terms
