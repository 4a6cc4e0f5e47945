"""The sentence check on paraphrases that reword a passage's words by their morphology rather than
by a synonym: a Japanese verb or adjective written with one kanji and okurigana (続く, 治る) holds
the character of the passage's Sino-Japanese compound (持続, 治癒)."""

from __future__ import annotations

from claim_fixtures import judge

from criss_rag.answering.meaning_check import _soft_coverage

JA_SKIN = "放射線治療による皮膚炎は、治療終了後も数週間持続することがあります。多くの患者さんは数か月以内に治癒します。"
JA_HPV = "子宮頸がんのほとんどは、HPVの持続感染が原因です。検診は2年に1回行われます。"


def test_a_single_kanji_stem_counts_in_the_passage_compound_holding_it():
    assert _soft_coverage(frozenset({"続", "吐"}), frozenset({"持続", "吐"})) == 1.0
    assert _soft_coverage(frozenset({"続", "吐"}), frozenset({"相談", "担当"})) == 0.0


def test_a_japanese_clause_reworded_with_okurigana_verbs_is_supported():
    healed = judge("皮膚炎が出ても、ほとんどの人は数か月のうちに治ります。", JA_SKIN)
    assert healed.supported, healed.why
    lasting = judge("子宮頸がんは、ほとんどがHPVの感染が長く続くことで起こります。", JA_HPV)
    assert lasting.supported, lasting.why


def test_what_the_passage_does_not_say_stays_unsupported_with_okurigana_verbs():
    assert not judge("子宮頸がんは、ほとんどが喫煙の習慣が長く続くことで起こります。", JA_HPV).supported
    assert not judge("皮膚炎が出ても、ほとんどの人は数か月のうちに肺に転移します。", JA_SKIN).supported
