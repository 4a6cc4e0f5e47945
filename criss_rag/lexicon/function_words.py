"""Words that carry no content of a question, per language: articles, auxiliaries, pronouns,
question frames, Korean particles and endings, Japanese particles and auxiliaries, Chinese
function words. :mod:`criss_rag.lexicon.equivalence` drops them; every other word is content.

Negations are never function words (a test checks each list against
:data:`criss_rag.lexicon.facet_words.NEGATION`), and neither are the words that say *which*
question is asked: when, where, why, who (time, place, reason, person), modal verbs (can, should,
must), comparison words (more, than, over), and, or. Only the frame of a question (what, which,
how) is dropped. This is not the stopword list of retrieval and sentence alignment, which drops
when, where, can, more and the like: :mod:`criss_rag.lexicon.stopwords`.
"""

from __future__ import annotations

from collections.abc import Iterable

#: English: articles, be/do/have, pronouns, the frame question words, plain prepositions. Not:
#: relational words that bind the next word (than, from, to, versus), timing words (before, after).
EN = frozenset("""
a an the this that these those it its itself there here
is are was were be been being am do does did doing done have has had having get gets got getting
i me my mine we us our you your he him his she her they them their someone somebody one ones
what which how whats hows please
of for in on at by about with as within among per via
please tell explain know wonder wondering want like would
""".split())

#: English frames removed as a whole before words are read ("can you tell me what ...").
EN_FRAMES = (
    "can you tell me", "could you tell me", "would you tell me", "can you explain", "could you explain",
    "please tell me", "please explain", "tell me", "i want to know", "i would like to know", "i'd like to know",
    "i wonder", "i'm wondering", "do you know", "is it true that", "what is known about", "what do we know about",
)

#: Question frames of Korean, Japanese and Chinese, removed as a whole before words are read
#: (regular expressions: "could you tell me", "I want to know", "please").
FRAMES = {
    "ko": (
        r"알려\s*주(?:실\s*수\s*있(?:을까요|나요|습니까|으신가요)|시겠어요|시겠습니까|세요|십시오|실래요)",
        r"알고\s*싶(?:어요|습니다|은데요|다)",
        r"궁금(?:해요|합니다|한데요|하다)",
        r"(?<![가-힣])혹시(?![가-힣])",
    ),
    "ja": (
        r"(?:について)?教えて(?:ください|下さい|くれますか|もらえますか|いただけますか|いただけますでしょうか|ほしい)?",
        r"を?知りたい(?:です)?",
        r"について",
    ),
    "zh": (
        r"请问",
        r"請問",
        r"麻烦您?告诉我",
        r"麻煩您?告訴我",
        r"请?告诉我",
        r"請?告訴我",
        r"我想(?:知道|了解)",
        r"介绍一下",
        r"介紹一下",
    ),
}

def longest_first(words: Iterable[str]) -> tuple[str, ...]:
    """``words`` once each, longest first and alphabetically within a length: the same order in
    every run (a set's order changes with the interpreter's hash seed, and which of two endings of
    one length is cut first decides a word's key)."""
    return tuple(sorted(set(words), key=lambda w: (-len(w), w)))


#: Korean particles and endings cut from the end of a word (longest first, repeatedly). A leading
#: ``ㅂ``/``ㄴ``/``ㄹ`` means the ending starts in the final consonant of the syllable before it
#: (입니까 = 이 + ㅂ니까).
KO_ENDINGS = longest_first("""
은 는 이 가 을 를 의 에 에서 에게 께 께서 한테 으로 로 와 과 랑 이랑 도 만 까지 부터 처럼 이나 나 란 이란 이라 라
에는 에서는 으로는 로는 에도 으로도 로도 와는 과는 이라도 라도 인지 지
요 죠 나요 까요 가요 ㄴ가요 ㄹ까요 ㅂ니까 ㅂ니다 습니까 습니다 니까 세요 으세요 ㄴ지 는지 은지 ㄹ지
인가요 인가 인데 ㄴ데 는데 은데 예요 이에요 에요 야 이야 여요 어요 아요 해요 해
하나요 한가요 할까요 합니까 합니다 하는 하며 하면 하고 하는지 하게 해야 하여 하기
되나요 됩니까 됩니다 되는 되며 되면 되고 되는지 되어 돼 돼요 된 될
있나요 있습니까 있어요 있는 있을까요 있는지 있을 있다
이다 하다 되다 이며 며 고 면 으면 는가 ㄴ가 ㄹ까 하 되 하지 되지 하기 되기 시키 시키나요 시킵니까
""".split())

#: Korean words that are all frame (question words of the frame, light verbs, pronouns).
KO = frozenset(
    """
무엇 무엇이 무엇인가 뭐 뭔가 뭘 어떻게 어떤 어느 어떠 얼마 알려 주세요 주 알 알고 싶 싶어요 싶습니다
궁금 궁금해 궁금합니다
하 되 돼 있 이 그 저 제 저의 나 우리 제가 저는 저도 내가 나는
돼요 되나요 되요 됩니까 됩니다 되죠 하나요 해요 합니까 합니다 할까요 하죠 있나요 있어요 있습니까 있을까요 있죠
인가요 입니까 입니다 이에요 예요 뭔가요 뭐예요 뭐죠 것 거 수 등 대해 대한 관해 관한 위해 위한 통해 경우 때 좀
혹시 정말 과연
""".split()
)

#: Japanese particles, auxiliaries and endings, cut out of hiragana runs (longest first). Those
#: marked okurigana only where a hiragana run follows a kanji run (治り, 高い, 上げる).
JA = frozenset("""
の は が を に で と も へ や か ね よ な から まで について による により における にとって として ための ため など
という とは って では には でも とも へは での からの までの との への
です ですか でしょう でしょうか でした だろう だろうか のか のですか んですか なのですか なのか なんですか
ます ますか ました ましょう ましたか あります ありますか ある あるか あるの いる いますか います いるか いるの
する します しますか しました した して している しています される されます されますか された されている
れる られる れます られます なる なります なりますか なった なって なるか ている ています ていますか ておく
どの どのような どのように どんな どう どうやって どういう なに なん 何 何か 誰か
教えて 教えてください ください 下さい 知りたい 知りたいです 私 わたし 第
""".split())

#: Hiragana endings dropped only right after kanji: the okurigana of verbs and adjectives.
JA_OKURIGANA = frozenset("""
る り れ ら ろ い く け か き こ し す せ さ そ た ち つ て と っ ん げ ぐ が ぎ め む み も ぶ び べ う え わ
った って いる える める げる ける せる てる れる ります ります か う
""".split())

#: Japanese negations, read as content before any function word can take their kana.
JA_NEGATIONS = ("なかった", "なかっ", "なくて", "なく", "ない", "ません", "なし", "ず", "ぬ")

#: Chinese function words and question frames, in both scripts (the single characters are
#: grammatical particles only).
ZH = frozenset("""
的 了 吗 呢 吧 啊 么 着 过 地 得 之 所
什么 怎么 怎样 怎么样 如何 哪些 哪个 哪种 请问 一下 可以 能否 是否 有什么 有哪些 什么样
我 你 他 她 它 我们 你们 他们 她们 这 那 这些 那些 这种 那种 这个 那个 是 有 请 告诉 告诉我 想知道 我想知道 关于 对于 第
麼 什麼 怎麼 怎樣 怎麼樣 哪個 哪種 嗎 們 你們 我們 他們 這 這些 那些 這種 這個 那個 請 告訴 告訴我 關於 對於 什麼樣
""".split())
