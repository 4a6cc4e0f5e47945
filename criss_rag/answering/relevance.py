"""The relevance verdict: does the answer (or, before generation, the evidence) speak about what
the question asks, not just about cancer?

Support (:mod:`criss_rag.answering.sentence_check`) asks whether the evidence states a sentence; a sentence quoted
from a staging passage is always supported, even when the question was whether cancer spreads by
sharing a razor. Relevance asks something else: the question's content words (its terms, minus
stopwords, filler words and the generic cancer words every passage shares) must be *covered*.

- Before generation, by the evidence: the titles and sections of the numbered passages plus the
  ``max_sentences`` evidence sentences that together cover most of the question. A word that only
  occurs somewhere in a long chunk but in no sentence that could be quoted does not count as more
  than one sentence's worth.
- After generation, by the answer: a term counts when a shown sentence says it *and* the passage
  supporting that sentence contains it (a model repeating the question's words does not cover
  them), or when it is in the title or section of a cited passage (which names the cancer and
  the topic the sentences leave implicit).

The verdict is relevant when the covered share reaches ``min_coverage`` (one value, or one per
question language) *and* at least one word of the question's **focus** is covered: its content
words other than the name of the cancer it asks about. "Is liver cancer contagious?" is about
contagion; evidence that only names liver cancer covers half its words but none of its point, and
is off topic.

When no evidence is in the question's language (a Korean question over an English corpus) words
cannot be compared, so the question and the evidence are compared through the shared multilingual
lexicon (:mod:`criss_rag.lexicon.facets`: sites, cancer subtypes, what is asked, treatments, tests,
drugs, populations, disease state, ...), which names the same thing alike in every language. Such
a question is relevant only when the lexicon recognises what it asks and the evidence names it:
a question none of whose words the lexicon knows (a heart question over a cancer corpus) cannot be
shown relevant, and is not. It is configured with the engine key ``relevance`` of the generator
stage (see :class:`RelevancePolicy`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.answering.sentence_check import basic_terms
from criss_rag.answering.subjects import SUBJECT, cancer_subjects, same_subject, subjects
from criss_rag.language.chinese_script import simplified_chars
from criss_rag.language.text import HAN, HANGUL, detect_language, split_sentences
from criss_rag.lexicon.concepts import concepts_named, concepts_of
from criss_rag.lexicon.facets import extract, named_spans
from criss_rag.types import Context, Evidence, RelevanceVerdict, SentenceSupport

Language = Literal["en", "ko", "ja", "zh"]
LANGUAGES = ("en", "ko", "ja", "zh")

#: Words of a question that name no topic (besides the analyzer's stopwords), and the generic words
#: for cancer that every passage of a cancer corpus shares. Compared after the analyzer.
FILLER_WORDS = (
    "know tell please get got thing things really ok okay just much many any some someone anyone anything "
    "something people person possible true normal good bad best need want like one make go going question "
    "worry worried should my me am mine us ever still too very lot bit actually also even way mean means "
    "again soon now later often always never usually instead away afterwards afterward else "
    "father mother dad mum mom husband wife brother sister friend friends family "
    "cancer cancers tumor tumors tumour tumours malignant malignancy malignancies"
).split() + ["암", "がん", "ガン", "癌", "癌症", "肿瘤", "腫瘍", "종양", "何", "무엇", "什么", "怎么", "如何",
             # "a malignant tumour" names cancer in general, as 암/がん/癌 do
             "악성", "악성종양", "悪性", "悪性腫瘍", "恶性", "恶性肿瘤", "혹"] + (
    # Korean and Japanese question grammar: possibility, time, manner, "what kind of", "I"
    "수 있나요 있을까요 있습니까 있어요 중 중에 경우 경우에 때 후 후에 전 어떤 어떻게 언제 얼마나 왜 어디 "
    "좋을까요 좋나요 되나요 하나요 해야 받을 받으면 할 하면 등 정말 같이 그냥 저 제 우리 "
    "場合 時 方法 本当 私 家族"
).split() + (
    # words that place or frame the topic without naming it: where (inside, behind, below), why
    # (because of), what kind, whether it is related, true, how much; a person, the body, these days;
    # "the organ" of a question that describes the organ it means
    "때문 쪽 안 속 밖 뒤 앞 옆 밑 아래 사이 거기 여기 일 종류 형태 사실 관련 부분 정도 요즘 사람 몸 곳 장기 "
    "上 下 横 裏 外 内 側 方 種類 関係 特 必要 仲間 部分 場所 今 最近 心配 一番 意味 "
    "医生 大夫 适合 注意 主要 不同 甚至 开始 的话 有人 一次 代表 分别 怀疑 担心 看起来 听到 常 常见 区别"
).split() + (
    # the same classes as the English words above, completed in Korean, Japanese and Chinese: who
    # asks for whom (a family member), when (these days, yesterday, usually), where (right, left,
    # inside), what is heard or known (word, talk, hear, say, think, know: Japanese verb stems as
    # the analyzer reads them, 聞いた -> 聞), ordinary or different (what a thing is compared
    # with). Not "a person" or "is it all right": "人にうつりますか" (contagious to people) and
    # "温泉に入っても大丈夫ですか" ask exactly that; nor "the organ" (臓器, 器官), which evidence on
    # what the organ does says too
    "아버지 아빠 어머니 엄마 남편 아내 부인 아들 딸 형 누나 언니 오빠 동생 할머니 할아버지 친구 가족 "
    "최근 어제 오늘 평소 오른쪽 왼쪽 뒤쪽 앞쪽 위쪽 아래쪽 안쪽 바깥쪽 말 보통 일반 걱정 의심 "
    "父 母 父親 母親 夫 妻 息子 娘 祖母 祖父 友人 友達 中 右 左 日 週 昨日 今日 普段 話 普通 一般 聞 言 思 知 違 "
    "爸 妈 爸爸 妈妈 父亲 母亲 老公 老婆 丈夫 妻子 儿子 女儿 奶奶 爷爷 阿姨 朋友 家人 家里 "
    "阿爸 阿妈 老豆 阿公 阿婆 嫲嫲 公公 婆婆 屋企 "
    "最近 昨天 今天 天天 平时 平常 从来 右边 左边 里面 上面 下面 后面 听说 普通 一般"
).split()

_META_FIELDS = ("title", "heading", "section", "menu_name")


class RelevancePolicy(BaseModel):
    """The ``relevance`` engine key of the generator stage (null: no relevance verdict)."""

    model_config = ConfigDict(extra="forbid")
    min_coverage: float | dict[Language, float] = Field(
        0.5, description="share of the question's content words the answer (before generation: the evidence) must "
                         "cover, and of its focus (the words besides the cancer's name); one value, or one per "
                         "question language (en, ko, ja, zh all named)")
    before_generation: bool = Field(True, description="also check the evidence before the generator runs: a "
                                                      "question it cannot cover is refused without calling the model")
    max_sentences: int = Field(3, ge=1, description="how many evidence sentences the check before generation may use")
    on_fail: Literal["refuse", "mark"] = Field("refuse", description="refuse an off-topic answer, or show it with "
                                                                    "`relevance.relevant: false`")
    analyzer: str | dict[str, Any] | None = Field(
        "standard", description="a registered analyzer for the terms, a name or {name: ..., <params>} (standard: "
                                "English stems, Korean without particles, Japanese content runs; or kiwi, mecab, "
                                "auto with per-language analyzers); null: the engine's built-in terms")
    ignore: list[str] = Field(default_factory=lambda: list(FILLER_WORDS),
                              description="words that never need covering (question filler, the generic cancer words)")


    @field_validator("min_coverage")
    @classmethod
    def _every_language(cls, value: float | dict[str, float]) -> float | dict[str, float]:
        if isinstance(value, dict) and set(value) != set(LANGUAGES):
            raise ValueError(f"a per-language min_coverage names {', '.join(LANGUAGES)} (missing: "
                             f"{', '.join(sorted(set(LANGUAGES) - set(value)))})")
        for share in (value.values() if isinstance(value, dict) else [value]):
            if not 0 <= share <= 1:
                raise ValueError(f"min_coverage is a share between 0 and 1, got {share}")
        return value

    def threshold(self, language: str) -> float:
        return self.min_coverage.get(language, self.min_coverage["en"]) if isinstance(self.min_coverage, dict) \
            else self.min_coverage


class RelevanceCheck:
    """Computes :class:`~criss_rag.types.RelevanceVerdict` s for one policy."""

    def __init__(self, policy: RelevancePolicy, analyze: Callable[[str], list[str]] | None = None,
                 analyzer_for: Callable[[str], Any] | None = None) -> None:
        self.policy = policy
        self.analyze = analyze or _builtin_terms
        # an analyzer per language (`auto`): the question and the evidence are both read the way the
        # question's language is read (a kanji-only Japanese line is not read as Chinese, nor the reverse)
        self.analyzer_for = analyzer_for
        self._ignored: dict[str, set[str]] = {}  # language -> terms of the `ignore` words written in it

    def ignored(self, text: str) -> set[str]:
        """The terms of the ``ignore`` words written in the languages of ``text``'s words, and the
        words themselves. Read per language on first use: an English question loads no Korean or
        Chinese analyzer for the Korean and Chinese ``ignore`` words."""
        ignored = set(self.policy.ignore)
        for language in languages_of(text):
            if language not in self._ignored:
                self._ignored[language] = {term for word in self.policy.ignore if detect_language(word) == language
                                           for term in self.analyze(word)}
            ignored |= self._ignored[language]
        return ignored

    def warm_up(self) -> None:
        """Read the ``ignore`` words of every language now, loading each language's analyzer
        (``Engine.warm_up``; a one-shot question reads only its own languages)."""
        self.ignored(" ".join(self.policy.ignore))

    def question_words(self, question: str) -> list[tuple[str, set[str]]]:
        """The question's content words with their terms. A word is a Latin word, a Hangul word
        (particles are the analyzer's business) or a run of kanji/katakana or of Han characters, so
        that a long word the analyzer cuts into several bigrams still counts once."""
        words: dict[str, set[str]] = {}
        analyze = self._terms_for(question)
        ignored = self.ignored(question)
        if detect_language(question) == "zh":  # no word boundaries: each term is a word
            return _chinese_words([(simplified_chars(clause), [t for t in analyze(clause) if t not in ignored])
                                   for clause in _CLAUSE_BREAK.split(question) if clause.strip()])
        # a Korean word is read in its sentence too: 수도 of 잘라 낼 수도 is 수 (may), not the capital;
        # the name of the cancer asked about is kept when the word alone reads otherwise (방광암일 alone
        # is 방광 + 암 + 일, in its sentence 방광암): the question's subject is never lost
        in_context = set(analyze(question)) if detect_language(question) == "ko" else None
        cancers = extract(question).cancer if in_context is not None else ()
        for word in _without_counts(question):
            terms = {t for t in analyze(word) if t not in ignored and (in_context is None or t in in_context)}
            if in_context is not None and not terms:
                terms = {t for t in in_context if t in word and t not in ignored and t in cancers}
            if terms and word.lower() not in ignored:
                words.setdefault(word, set()).update(terms)
        return list(words.items())

    def _terms_for(self, question: str) -> Callable[[str], list[str]]:
        """How the word checks read text for ``question``: its language's analyzer when there is one."""
        if self.analyzer_for is None:
            return self.analyze
        analyze: Callable[[str], list[str]] = self.analyzer_for(detect_language(question)).analyze
        return analyze

    def _meta_terms(self, evidence: Evidence, analyze: Callable[[str], list[str]]) -> set[str]:
        return set(analyze(self._meta_text(evidence)))

    def _focus(self, question: str, words: list[tuple[str, set[str]]]) -> list[str]:
        """The question's words besides those naming the cancer it asks about (its point)."""
        cancers = [c.lower() for c in extract(question).cancer]
        return [w for w, _ in words if not _names_cancer(w.lower(), cancers)]

    def across_languages(self, question: str, evidence: Sequence[Evidence]) -> bool:
        """True when none of ``evidence`` is in the question's language (words cannot be compared)."""
        language = detect_language(question)
        return bool(evidence) and all(detect_language(e.text) != language for e in evidence)

    def before(self, question: str, context: Context) -> RelevanceVerdict:
        """Can the numbered evidence cover the question? (titles + the best few sentences)"""
        texts = [f"{self._meta_text(e)}\n{e.text}" for e in context.evidence]
        verdict = self._before(question, context, texts)
        return same_subject(question, texts, [self._meta_text(e) for e in context.evidence], verdict)

    def _before(self, question: str, context: Context, texts: list[str]) -> RelevanceVerdict:
        if self.across_languages(question, context.evidence):
            return self._concept_verdict(question, texts, "evidence")
        analyze = self._terms_for(question)
        words = self.question_words(question)
        wanted = set().union(*(terms for _, terms in words))
        covered: set[str] = set()
        for evidence in context.evidence:
            covered |= self._meta_terms(evidence, analyze)
        sentences = [set(analyze(s)) for e in context.evidence for s in split_sentences(e.text)]
        for _ in range(self.policy.max_sentences):  # greedy: the sentence adding most uncovered terms
            gains = [len((terms - covered) & wanted) for terms in sentences]
            if not gains or max(gains) == 0:
                break
            covered |= sentences[gains.index(max(gains))]
        covered |= _topics_titled(words, [self._meta_text(e) for e in context.evidence])
        concepts = word_concepts(question, words)
        named = self._named(words, covered, texts, concepts)
        about = frozenset().union(*(self._about(e) for e in context.evidence))
        return self._verdict(question, words, covered, "evidence", named, concepts, about)

    def after(self, question: str, sentences: Sequence[SentenceSupport], context: Context) -> RelevanceVerdict:
        """Does the shown answer cover the question? (said by a sentence and in its evidence, or in a
        cited passage's title/section)"""
        shown = [(s, [e for n in _numbers(s) if (e := context.by_number(n)) is not None])
                 for s in sentences if s.supported]
        texts = [text for s, cited in shown if cited for text in (s.text, *map(self._meta_text, cited))]
        verdict = self._after(question, shown, context, texts)
        return same_subject(question, texts, [self._meta_text(e) for _, cited in shown for e in cited], verdict)

    def _after(self, question: str, shown: list[tuple[SentenceSupport, list[Evidence]]], context: Context,
               texts: list[str]) -> RelevanceVerdict:
        # an answer quoted from passages in another language only (a Korean question answered from the
        # English staging page, its language having none) is checked as one, whatever else the context held
        if self.across_languages(question, [e for _, cited in shown for e in cited] or context.evidence):
            return self._concept_verdict(question, texts, "answer")
        analyze = self._terms_for(question)
        words = self.question_words(question)
        covered: set[str] = set()
        for sentence, cited in shown:
            said = set(analyze(sentence.text))
            for evidence in cited:
                meta = self._meta_terms(evidence, analyze)
                covered |= meta | (said & (set(analyze(evidence.text)) | meta))
        covered |= _topics_titled(words, [self._meta_text(e) for _, cited in shown for e in cited])
        concepts = word_concepts(question, words)
        named = self._named(words, covered, texts, concepts)
        about = frozenset().union(*(self._about(e) for _, cited in shown for e in cited))
        return self._verdict(question, words, covered, "answer", named, concepts, about)

    def _named(self, words: list[tuple[str, set[str]]], covered: set[str], texts: list[str],
               concepts: dict[str, set[str]]) -> set[str]:
        """The lexicon concepts ``texts`` name, when a question word the terms leave uncovered names
        one (read only then: the lexicon is slower than the terms)."""
        if all(_terms_covered(terms, covered) or not concepts.get(word) for word, terms in words):
            return set()
        named: set[str] = set()
        for text in texts:
            named |= concepts_of(extract(text))
        return named

    def _about(self, evidence: Evidence) -> frozenset[str]:
        """What a passage is about: the sites and subtypes its title and section name, or, for a passage
        without either, those its text names."""
        return subjects(self._meta_text(evidence).strip() or evidence.text)

    def _meta_text(self, evidence: Evidence) -> str:
        return " ".join(str(evidence.hit.metadata.get(f) or "") for f in _META_FIELDS)

    def _verdict(self, question: str, words: list[tuple[str, set[str]]], covered: set[str], checked: str,
                 named: set[str], concepts: dict[str, set[str]], about: frozenset[str]) -> RelevanceVerdict:
        # a word is covered by its terms, or by a concept of the shared lexicon it names that the
        # evidence names too, in any words or language (허파/폐 aside: 第三期 by "stage III", 钼靶 by
        # "mammography", 可切除 by "surgery")
        def is_covered(word: str, terms: set[str]) -> bool:
            return _terms_covered(terms, covered) or bool(named and concepts.get(word, set()) & named)

        hit = [w for w, terms in words if is_covered(w, terms)]
        missing = [w for w, terms in words if not is_covered(w, terms)]
        focus = self._focus(question, words)
        asked = cancer_subjects(question)
        if asked and not asked & about:
            # the words of the cancer's name may be said (the mouth of "mouth sores"); the evidence is
            # about another cancer
            subject = [w for w in hit if w not in focus]
            hit = [w for w in hit if w in focus]
            missing = [*missing, *subject] if subject else [*missing, *extract(question).cancer]
        return self._decide(question, hit, missing, focus, checked)

    def _decide(self, question: str, hit: list[str], missing: list[str], focus: list[str],
                checked: str) -> RelevanceVerdict:
        """Relevant when the covered share of the question's items reaches the threshold, at least
        one item of its focus is covered (the cancer's name alone is not the question's point), and
        the covered share of the items naming its cancer (the rest) reaches the threshold too:
        evidence about the symptoms of other cancers does not answer a question about the symptoms
        of this one."""
        total = len(hit) + len(missing)
        score = len(hit) / total if total else 1.0
        focus_hit = sum(w in hit for w in focus)
        subject = [w for w in (*hit, *missing) if w not in focus]
        subject_score = sum(w in hit for w in subject) / len(subject) if subject else 1.0
        threshold = self.policy.threshold(detect_language(question))
        relevant = score >= threshold and (focus_hit > 0 or not focus) and subject_score >= threshold
        return RelevanceVerdict(relevant=relevant, score=round(score, 4), covered=hit, missing=missing, focus=focus,
                                focus_score=round(focus_hit / len(focus), 4) if focus else 1.0, checked=checked,
                                threshold=threshold)

    def _concept_verdict(self, question: str, texts: list[str], checked: str) -> RelevanceVerdict:
        """Across languages: what the lexicon recognises in the question must be named by ``texts``
        (the evidence, or the shown sentences and their sources); words it does not recognise cannot
        be shown covered, and a question whose point is all such words is not relevant."""
        question_facets = extract(question)
        asked = concepts_of(question_facets)
        named: set[str] = set()
        for text in texts:
            named |= concepts_of(extract(text))
        subject = sorted(c for c in asked if c.startswith(SUBJECT))
        question_words = self.question_words(question)
        words = [w for w, _ in question_words]
        cancers = [c.lower() for c in question_facets.cancer]
        in_spans = word_concepts(question, question_words)  # "4" and "기" of 4기 are stage IV
        # the point is the question's other words, each counted once (수술 names surgery and treatment:
        # one word), covered when the evidence names a concept of it; a word the lexicon cannot read is
        # never shown covered (deny by default: the cost of "what does robotic prostate surgery cost?",
        # the time left of "stage IV: how long?"; evidence on the cancer and its surgery answers neither)
        point: dict[str, set[str]] = {}
        for word in words:
            concepts = concepts_of(extract(word)) | in_spans.get(word, set())
            if not _names_cancer(word.lower(), cancers) and not (concepts and concepts in point.values()):
                point[word] = concepts  # the words of one phrase (4 and 기 of 4기) count once
        unattached = sorted(asked - set(subject) - set().union(*point.values()))
        focus = [*point, *unattached]
        # each item with the concepts that cover it: the cancer's, the point's words, the rest of what is asked
        items = [*((c, {c}) for c in subject), *point.items(), *((c, {c}) for c in unattached)]
        hit = [item for item, concepts in items if concepts & named]
        missing = [item for item, concepts in items if not concepts & named]
        verdict = self._decide(question, hit, missing, focus, f"{checked} (across languages, by the lexicon)")
        if not asked:  # nothing the lexicon knows: relevance cannot be shown
            verdict.relevant, verdict.score, verdict.missing = False, 0.0, words
        elif not subject and (unplaced := [c for c in cancers if c not in FILLER_WORDS]):
            # a cancer named that the lexicon cannot place cannot be shown to be the evidence's cancer
            verdict.relevant, verdict.missing = False, [*verdict.missing, *unplaced]
        elif verdict.focus_score < verdict.threshold:
            # the point itself must be shown covered, not one of its words: across languages nothing
            # vouches for a word the lexicon cannot read (surgery, and its cost)
            verdict.relevant = False
        return verdict


def _topics_titled(words: list[tuple[str, set[str]]], titles: list[str]) -> set[str]:
    """The terms of the question words that only name a topic (staging, symptoms, treatment:
    분기, 分期, ステージ) which a passage's title or section names, in any language: a page titled
    "Stomach cancer: staging" is about 分期 though its text never writes the word. A word naming a
    thing as well (陽子線治療, proton therapy: 陽子線 names no topic) is not covered by the topic its
    page is filed under."""
    titled = {c for title in titles for c in concepts_named(title) if c.startswith("aspect:")}
    if not titled:
        return set()
    return {t for _, terms in words if terms and all(_topic_only(term) & titled for term in terms) for t in terms}


def _topic_only(term: str) -> set[str]:
    """The topics (aspects) a term names, when it names nothing else."""
    concepts = concepts_named(term)
    return set(concepts) if all(c.startswith("aspect:") for c in concepts) else set()


def _terms_covered(terms: set[str], covered: set[str]) -> bool:
    """At least half of a word's terms are covered (a Korean word's bigrams, a kanji run's); a
    CJK term is also covered by a covered compound built on it (``_inside``). A word
    read as single characters (a Chinese word the segmenter does not know, 造口) needs every one:
    half of 猫吃 is 吃, which any text about eating has."""
    found = sum(t in covered or (not t.isascii() and any(_inside(t, c) for c in covered)) for t in terms)
    if len(terms) > 1 and all(len(t) == 1 and not t.isascii() for t in terms):
        return found == len(terms)
    return found * 2 >= len(terms)


def _inside(term: str, covered: str) -> bool:
    """A CJK term found in a covered one: one character anywhere in it (肺 of 肺がん), a longer
    term at its start (당뇨 of 당뇨병, 大肠 of 大肠癌): a compound built on the word says it."""
    return term in covered if len(term) == 1 else covered.startswith(term) and len(covered) > len(term)


def word_concepts(question: str, words: list[tuple[str, set[str]]]) -> dict[str, set[str]]:
    """The things of the shared lexicon each question word names (a site, stage, test, drug, ...),
    read in the question, where the words around it tell which sense it has (이자 in 이자에 생긴 암 is
    the pancreas), and in the word alone; not what is asked (aspect: diagnosis, treatment), a
    direction or a time: evidence on the asked cancer names those whatever the question's point is
    ("진단을 받으면 보험금은?" is about insurance, not diagnosis). A phrase names the word only when
    it holds at least half of the word's terms: 手術 in 手術費用 (surgery cost) leaves the cost
    unnamed, 허파 in 허파에서 names it."""
    language = detect_language(question)
    plain = simplified_chars(question) if language == "zh" else question
    found: dict[str, set[str]] = {}
    for word, terms in words:
        concepts: set[str] = set()
        for form in dict.fromkeys((word, question, plain)):
            spans = named_spans(form, language)
            start = form.find(word)
            while start >= 0:
                end = start + len(word)
                concepts |= {c for s, e, c in spans if s < end and start < e and not c.startswith(_NOT_THINGS)
                             and _holds_terms(form[s:e], terms)}
                start = form.find(word, end)
        found[word] = concepts
    return found


def _holds_terms(phrase: str, terms: set[str]) -> bool:
    """At least half of ``terms`` lie in ``phrase``, or are mostly it (三期 of the term 第三期)."""
    phrase = simplified_chars(phrase).lower()

    def held(term: str) -> bool:
        return term in phrase or (phrase in term and 2 * len(phrase) > len(term))

    return not terms or sum(held(simplified_chars(term).lower()) for term in terms) * 2 >= len(terms)


_NOT_THINGS = ("aspect:", "direction:", "timing:")


def _chinese_words(clauses: list[tuple[str, list[str]]]) -> list[tuple[str, set[str]]]:
    """A Chinese question's words from the analyzer terms of each clause (its text in Simplified
    characters, its terms), in order: one-character terms written next to each other are one word
    (a segmenter splits a word its dictionary lacks, 造口 or 钼靶, into characters); a word dropped
    between two of them (了 of 瘦了快, 了个 of 长了个瘤) separates them."""
    words: list[tuple[str, set[str]]] = []
    for text, terms in clauses:
        run: list[str] = []
        for term in [*terms, ""]:
            single = len(term) == 1 and bool(_HAN_CHAR.fullmatch(term))
            if single and (not run or "".join(run) + term in text):
                run.append(term)
                continue
            if run:
                words.append(("".join(run), set(run)))
            run = [term] if single else []
            if term and not single:
                words.append((term, {term}))
    seen: set[str] = set()
    return [(w, t) for w, t in words if not (w in seen or seen.add(w))]


def _names_cancer(word: str, cancers: list[str]) -> bool:
    """Whether a question word is part of the name of a cancer it asks about ("liver" of "liver
    cancer", "간암은" containing "간암")."""
    if word.isascii():
        return any(word in cancer.split() for cancer in cancers)
    return any(word in cancer or cancer in word for cancer in cancers)


def _builtin_terms(text: str) -> list[str]:
    """The engine's built-in terms without the bigrams written in hiragana alone (Japanese
    particles and verb endings: の, です, ます), which name no topic."""
    return [t for t in basic_terms(text) if not _HIRAGANA.fullmatch(t)]


_HIRAGANA = re.compile("[\u3040-\u309f]+")
_HAN_CHAR = re.compile(f"[{HAN}]")
_CLAUSE_BREAK = re.compile(r"[\s\u3000-\u303f\uff00-\uff0f\uff1a-\uff20.,;:!?()\[\]\"'、，。；：！？（）「」『』]+")
# Latin words; Hangul words; kanji/katakana runs (hiragana between them is grammar, except one
# kana of a verb's own, in its joining form, inside a compound: 取り除く, 通り道, 切り取る are one word each); Han runs
_OKURIGANA = "[いきぎしじちびみりけげせてねべめれえ]"  # not に: a particle (臓器に悪い is two words)
_WORD = re.compile(f"[A-Za-z0-9\u00c0-\u024f'’-]+|[{HANGUL}]+|[{HAN}\u30a0-\u30ffー]+(?:{_OKURIGANA}[{HAN}]+)*")


def _without_counts(question: str) -> list[str]:
    """The words (``_WORD``) of a Korean or Japanese question without its counts: a number, and the
    unit of time, age, weight or size counted with it (30대, 두 달, 28歳, 数週間, 5kg): how old, how
    long or how much, not what is asked (the Chinese analyzer drops counts itself). A number the
    lexicon reads as a stage (3기, ステージ4) is kept, and so is a count asked for (몇 개월, 何年)."""
    language = detect_language(question)
    if language not in ("ko", "ja"):
        return _WORD.findall(question)
    staged = [(s, e) for s, e, c in named_spans(question, language) if c.startswith("stage:")]
    words: list[str] = []
    counted = False
    for match in _WORD.finditer(question):
        word = match.group(0)
        in_stage = any(s < match.end() and match.start() < e for s, e in staged)
        if not in_stage and (_COUNT.fullmatch(word.lower()) or (counted and _UNIT.fullmatch(word.lower()))):
            counted = True
            continue
        counted = False
        words.append(word)
    return words


#: a number (digits, Korean native numerals, 数 of 数週間), optionally with its unit in the same
#: word; and the units of time, age, weight and size that follow one
_UNITS = (r"(?:대|살|세|년|개월|달|주|주일|일|시간|번|회|kg|킬로|키로|cm|mm|센치|미리|"
          r"歳|才|年|年間|か月|ヶ月|カ月|月|週|週間|日|日間|時間|回|キロ|センチ|ミリ|代)")
_COUNT = re.compile(r"\d+(?:[.,]\d+)?%?(?:" + _UNITS + r")?(?:째|간|전|만에|동안|[이가은는을를에도]|부터|이나)*"
                    r"|한|두|세|네|석|넉|다섯|여섯|일곱|여덟|아홉|여러|수십|数" + _UNITS + r"?")
_UNIT = re.compile(_UNITS + r"(?:째|간|전|만에|동안|[이가은는을를에도]|부터|이나)*")


def languages_of(text: str) -> set[str]:
    """The languages of ``text`` and of each of its words (``detect_language``): which analyzers
    its words can be read with. A word list in another language shares no terms with it."""
    return {detect_language(word) for word in _WORD.findall(text)} | {detect_language(text)}


def _numbers(sentence: SentenceSupport) -> Iterable[int]:
    numbers = list(sentence.cited)
    if sentence.evidence is not None and sentence.evidence not in numbers:
        numbers.append(sentence.evidence)
    return numbers
