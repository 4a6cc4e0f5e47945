"""The answer as shown to a reader: markers renumbered 1..n in order of first appearance, readable
source titles, links only for web addresses, and the sources block in the answer's language."""

from __future__ import annotations

from criss_rag.types import Answer, Citation, Trace
from criss_rag_serve.sources import shown_answer, sources_block, web_address, without_sources_block


def citation(number: int, title: str, location: str = "") -> Citation:
    return Citation(number=number, doc_id=f"d{number}", node_id=f"n{number}", title=title, source_title=title,
                    location=location, score=1.0, text="passage")


def answer(text: str, *citations: Citation, refused: bool = False) -> Answer:
    return Answer(question="q", text=text, citations=list(citations), refused=refused, trace=Trace(config_hash="h"))


def test_markers_are_renumbered_in_the_order_they_first_appear():
    shown, sources = shown_answer(answer("Surgery helps [3]. Ablation too [1, 3]. Also [9].",
                                         citation(1, "Ablation"), citation(3, "Surgery")))
    assert shown == "Surgery helps [1]. Ablation too [2, 1]. Also ."
    assert [(s.number, s.evidence, s.title) for s in sources] == [(1, 3, "Surgery"), (2, 1, "Ablation")]


def test_only_web_addresses_become_links():
    assert web_address("https://example.org/a?b=1") == "https://example.org/a?b=1"
    for location in ("ncc_example.json#cancer=5&menu=2&lang=en", "javascript:alert(1)", "file:///etc/passwd", ""):
        assert web_address(location) is None


def test_the_block_speaks_the_answers_language_and_a_refusal_has_none():
    _, sources = shown_answer(answer("x [1]", citation(1, "간암 - 개요", "https://example.org/ko"),))
    assert sources_block(sources, "간암은 간에서 시작됩니다 [1]") == "\n\n출처:\n1. 간암 - 개요 — https://example.org/ko"
    assert sources_block(sources, "肝臓がんは [1]").startswith("\n\n出典:\n")
    assert sources_block(sources, "肝癌是 [1]").startswith("\n\n来源:\n")
    assert shown_answer(answer("I could not find this.", refused=True)) == ("I could not find this.", [])
    assert sources_block([], "x") == ""


def test_a_block_sent_back_as_history_is_taken_off_and_nothing_else_is():
    text, sources = shown_answer(answer("Surgery helps [1].", citation(1, "Surgery", "https://e.org/s")))
    assert without_sources_block(text + sources_block(sources, text)) == text
    kept = "Steps:\n\nSources:\nnot a numbered list"
    assert without_sources_block(kept) == kept
