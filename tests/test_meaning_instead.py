""""Instead of X" says that X is not done, as "without X" does: a restatement that says "X is not
done" for the passage's "instead of X" (or the reverse) keeps its polarity (instead of / rather
than, 대신, 代わりに)."""

from __future__ import annotations

from claim_fixtures import judge

from criss_rag.lexicon.negation import negation_count

EN_WAIT = "For small slow-growing tumours, doctors may watch the tumour closely instead of treating it straight away."
KO_WAIT = "천천히 자라는 작은 종양은 바로 치료하는 대신 정기적으로 검사하며 지켜볼 수 있습니다."
JA_WAIT = "進行の遅い小さな腫瘍では、すぐに治療する代わりに定期的に検査して経過をみることがあります。"


def test_instead_of_negates():
    assert negation_count("watch it instead of treating it", "en") == 1
    assert negation_count("watch it rather than treat it", "en") == 1
    assert negation_count("바로 치료하는 대신 지켜본다", "ko") == 1
    assert negation_count("すぐに治療する代わりに経過をみる", "ja") == 1


def test_a_negated_restatement_of_instead_of_is_supported():
    ko = judge("천천히 자라는 작은 종양은 바로 치료하지 않고 정기적으로 검사하며 지켜볼 수 있습니다.", KO_WAIT)
    assert ko.supported, ko.why
    ja = judge("進行の遅い小さな腫瘍では、すぐに治療せず、定期的に検査して経過をみることがあります。", JA_WAIT)
    assert ja.supported, ja.why
    en = judge("For small slow-growing tumours, doctors may watch the tumour closely and not treat it straight away.",
               EN_WAIT)
    assert en.supported, en.why


def test_dropping_the_instead_of_is_still_a_negation_edit():
    assert not judge("천천히 자라는 작은 종양은 바로 치료해야 합니다.", KO_WAIT).supported
