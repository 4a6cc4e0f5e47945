"""Direction and comparison: words that place something on a scale (more / less, higher / lower,
increase / decrease, common / rare, usually / rarely, faster / slower, earlier / later, before /
after, better / worse, larger / smaller), and the standard of a comparison ("than men", "남성보다",
"男性より", "比男性").

Each cue gives ``dimension:+`` or ``dimension:-``; two sentences contradict each other on a
dimension when one says ``+`` and the other only ``-``. Comparisons are read for their standard (the
side after "than", before 보다 / より, after 比 / 于): "higher in women than in men" and "higher in
men than in women" name the same things but swap the standard.
"""

from __future__ import annotations

import re

_Table = list[tuple[str, str, str]]  # (pattern, dimension, sign)

_EN: _Table = [
    (r"more|most|greater|greatest|majority|many|much", "amount", "+"),
    (r"less|least|fewer|fewest|minority|few", "amount", "-"),
    (r"higher|highest|high|elevated", "level", "+"),
    (r"lower|lowest|low", "level", "-"),
    (r"increas\w*|rais(?:e|es|ed|ing)|rises?|rising|rose|boost\w*|worsen\w*|grow(?:s|ing)?\s+more", "change", "+"),
    (
        r"decreas\w*|reduc\w*|lowers|lowered|lowering|cuts?|drops?|dropped|falls?|fell|declin\w*|shrink\w*|prevent\w*",
        "change",
        "-",
    ),
    (r"usually|often|frequently|always|commonly|typically|mostly|generally|regularly|routinely", "frequency", "+"),
    (r"rarely|seldom|hardly\s+ever|infrequently|occasionally|sometimes", "frequency", "-"),
    (r"common|commoner|commonest|frequent|widespread|prevalent|usual", "commonness", "+"),
    (r"rare|rarer|rarest|uncommon|unusual|infrequent", "commonness", "-"),
    (r"likely|probable|probably", "likelihood", "+"),
    (r"unlikely|improbable", "likelihood", "-"),
    (r"fast|faster|fastest|quick\w*|rapid\w*", "speed", "+"),
    (r"slow\w*|gradual\w*", "speed", "-"),
    (r"large|larger|largest|big|bigger|biggest", "size", "+"),
    (r"small|smaller|smallest|tiny", "size", "-"),
    (r"before|prior\s+to|earlier|previously|preceding|ahead\s+of", "time", "-"),
    (r"after|following|later|afterwards|subsequently", "time", "+"),
    (r"longer|long|prolong\w*", "duration", "+"),
    (r"shorter|short|shorten\w*", "duration", "-"),
    (r"better|improv\w*|best", "outcome", "+"),
    (r"worse|poorer|worst|poor", "outcome", "-"),
    (r"easy|easier|easily|simple", "ease", "+"),
    (r"hard|harder|difficult|difficulty", "ease", "-"),
    (r"first|1st|primary|initial", "order", "1"),
    (r"second|2nd", "order", "2"),
    (r"third|3rd", "order", "3"),
    (r"left", "side", "left"),
    (r"right", "side", "right"),
    (r"arter\w*", "vessel", "artery"),
    (r"vein\w*|venous", "vessel", "vein"),
    (r"upper", "position", "upper"),
    (r"lower\s+(?=part|end|half|section|portion|abdomen|back|leg|body)", "position", "lower"),
    (r"inner", "depth", "inner"),
    (r"outer", "depth", "outer"),
]
_KO: _Table = [
    (r"많|다수|대부분", "amount", "+"),
    (r"적(?:은|게|다|습)|소수", "amount", "-"),
    (r"높", "level", "+"),
    (r"낮", "level", "-"),
    (r"증가|늘어|늘리|늘|상승|올라|올리|악화", "change", "+"),
    (r"감소|줄어|줄이|저하|떨어|낮추|예방", "change", "-"),
    (r"흔히|주로|보통|대개|자주|일반적으로|항상|늘", "frequency", "+"),
    (r"드물게|거의\s*없|가끔|때때로", "frequency", "-"),
    (r"흔한|흔하|흔히\s*발생|일반적", "commonness", "+"),
    (r"드문|드물|희귀|희소", "commonness", "-"),
    (r"빠르|빨리|급속|급격", "speed", "+"),
    (r"느리|천천히|서서히|느린", "speed", "-"),
    (r"크|큰|커", "size", "+"),
    (r"작", "size", "-"),
    (r"(?<![가-힣])전(?=[에의은는도]?(?:\s|$|[?.,]))|이전|먼저|앞서|전에", "time", "-"),
    (r"(?<![가-힣])후(?=[에의은는도]?(?:\s|$|[?.,]))|이후|다음|나중|뒤에|늦[어게은는다추]|늦춰", "time", "+"),
    (r"일찍|이른|앞당", "time", "-"),
    (r"길|긴|오래", "duration", "+"),
    (r"짧", "duration", "-"),
    (r"좋|개선|나아", "outcome", "+"),
    (r"나쁘|나쁜|불량", "outcome", "-"),
    (r"쉽|쉬운|쉬워", "ease", "+"),
    (r"어렵|어려|힘들", "ease", "-"),
    (r"왼쪽|좌측", "side", "left"),
    (r"오른쪽|우측", "side", "right"),
    (r"동맥", "vessel", "artery"),
    (r"정맥", "vessel", "vein"),
]
_JA: _Table = [
    (r"多(?!発)|大半|大部分", "amount", "+"),
    (r"少な|わずか|僅か", "amount", "-"),
    (r"高", "level", "+"),
    (r"低(?!下)", "level", "-"),
    (r"増|上昇|上が|上げ|悪化", "change", "+"),
    (r"減|低下|下が|下げ|予防|防", "change", "-"),
    (r"よく|しばしば|通常|一般に|たいてい|主に|常に|いつも", "frequency", "+"),
    (r"まれに|稀に|めったに|ときどき|時々|時に", "frequency", "-"),
    (r"よくある|一般的|頻度が高", "commonness", "+"),
    (r"まれ|稀|珍し|頻度が低", "commonness", "-"),
    (r"速|早(?!期)|急速", "speed", "+"),
    (r"遅|ゆっくり|緩やか", "speed", "-"),
    (r"大き", "size", "+"),
    (r"小さ", "size", "-"),
    (r"前(?!立)|以前|先に|まで", "time", "-"),
    (r"(?<![予術])後(?!期)|以降|以後|あと|のち", "time", "+"),
    (r"長", "duration", "+"),
    (r"短", "duration", "-"),
    (r"良|改善", "outcome", "+"),
    (r"悪(?!性)", "outcome", "-"),
    (r"やす[いくかけ]|容易", "ease", "+"),
    (r"にく[いくかけ]|難し|困難", "ease", "-"),
    (r"左", "side", "left"),
    (r"右", "side", "right"),
    (r"動脈", "vessel", "artery"),
    (r"静脈", "vessel", "vein"),
]
_ZH: _Table = [
    (r"多(?!种|数人)|大多数|大部分|多数", "amount", "+"), (r"少(?!数民族)|少数", "amount", "-"),
    (r"高", "level", "+"), (r"低", "level", "-"),
    (r"增|升|提高|加重|恶化", "change", "+"), (r"减|降|下降|预防|防止", "change", "-"),
    (r"通常|经常|常常|一般|往往|总是|大多", "frequency", "+"), (r"很少|偶尔|极少|有时", "frequency", "-"),
    (r"常见|多见|普遍", "commonness", "+"), (r"罕见|少见|罕有|较少见", "commonness", "-"),
    (r"快|迅速|急速", "speed", "+"), (r"慢|缓慢|缓", "speed", "-"),
    (r"大(?!肠)", "size", "+"), (r"小(?!细胞|儿|孩)", "size", "-"),
    (r"之前|以前|前(?!列)|提前|提早", "time", "-"), (r"之后|以后|(?<![预术])后|推迟|延迟|延后|晚于|较晚", "time", "+"),
    (r"长", "duration", "+"), (r"短", "duration", "-"),
    (r"好|改善", "outcome", "+"), (r"差|恶化|不如", "outcome", "-"),
    (r"容易|易于", "ease", "+"), (r"困难|难以|不易", "ease", "-"),
    (r"左", "side", "left"), (r"右", "side", "right"), (r"动脉", "vessel", "artery"), (r"静脉", "vessel", "vein"),
]


def _compile(table: _Table, english: bool) -> list[tuple[re.Pattern, str]]:
    wrap = (lambda p: rf"\b(?:{p})\b") if english else (lambda p: p)
    return [(re.compile(wrap(p)), f"{d}:{s}") for p, d, s in table]


CUES = {"en": _compile(_EN, True), "ko": _compile(_KO, False), "ja": _compile(_JA, False), "zh": _compile(_ZH, False)}


_EN_GRADED = re.compile(r"\b(more|most|less|least)\s+([a-z]+)\b")


def _graded(text: str, found: set[str]) -> str:
    """English "less often", "more rarely", "least common": one direction, the sign of the word
    times that of its degree ("less often" is ``frequency:-``), added to ``found``; the pair is
    blanked so that neither word is read alone."""

    def one(match: re.Match) -> str:
        word = match.group(2)
        for pattern, value in CUES["en"]:
            dimension, _, sign = value.partition(":")
            if dimension != "amount" and sign in "+-" and pattern.fullmatch(word):
                flip = match.group(1) in ("less", "least")
                found.add(f"{dimension}:{({'+': '-', '-': '+'}[sign]) if flip else sign}")
                return " " * len(match.group(0))
        return match.group(0)

    return _EN_GRADED.sub(one, text)


def directions(text: str, language: str) -> set[str]:
    """The ``dimension:sign`` values ``text`` states (English lower-cased)."""
    found: set[str] = set()
    if language == "en":
        text = _graded(text, found)
    for pattern, value in CUES.get(language, CUES["en"]):
        if pattern.search(text):
            found.add(value)
    return found


def contradicted(claim: set[str], evidence: set[str]) -> list[tuple[str, str]]:
    """``(claim value, evidence value)`` for each dimension on which the evidence says only the other sign."""
    out = []
    theirs = {_one_scale(v) for v in evidence}
    for value in sorted(claim):
        dimension = _one_scale(value).split(":")[0]
        if value in evidence or _one_scale(value) in theirs:
            continue
        others = sorted(v for v in evidence if _one_scale(v).split(":")[0] == dimension)
        if others:
            out.append((value, others[0]))
    return out


def _one_scale(value: str) -> str:
    """A change and a level compare on one scale: "raises their risk" is not "lowers their risk"
    (a change) nor "a lower risk" (a level)."""
    dimension, _, sign = value.partition(":")
    return f"{_SCALE.get(dimension, dimension)}:{sign}"


#: dimensions said with different words that place one thing on one scale
_SCALE = {"change": "level", "size": "level", "amount": "commonness", "frequency": "commonness"}


# -- the standard of a comparison -------------------------------------------------------------------

_EN_SKIP = {"in", "the", "a", "an", "for", "among", "with", "of", "to", "at", "that", "those", "it", "is", "does", "do",
            "people", "patients"}
_STANDARD = {
    "ko": re.compile(r"([가-힣A-Za-z0-9]{1,8}?)(?:에서|에게|의\s*경우)?보다"),
    "ja": re.compile(r"([一-龥々ァ-ヶーA-Za-z0-9]{1,8})(?:で|に|の場合)?(?:より|に比べ|と比べ|と比較)"),
    "zh": re.compile(
        r"(?:比|(?<=[高低多少大小快慢长短好差早晚])于|不如)([一-龥A-Za-z0-9]{1,4}?)(?=更|高|低|多|少|大|小|快|慢|长|短|常|好|差|容易|$|[，。、])"
        r"|(?:为|是)([一-龥A-Za-z0-9]{1,4}?)的[\d一二三四五六七八九十两]+倍"
    ),
}


def standard(text: str, language: str) -> str | None:
    """What ``text`` compares against ("men" in "higher in women than in men"), or ``None``."""
    if language in _STANDARD:
        match = _STANDARD[language].search(text)
        return next((g for g in match.groups() if g), None) if match else None
    match = re.search(r"\bthan\b((?:\s+[a-z0-9-]+){1,4})", text)
    if not match:
        return None
    words = [w for w in match.group(1).split() if w not in _EN_SKIP]
    return words[0] if words else None


# -- claims stronger than a passage's: universal quantifiers, certainty, correlation -----------------

_STRONGER = {
    "en": re.compile(
        r"\b(?:always|every(?!\s+\d)|everyone|all\s+(?:patients|people|cases|types|forms|kinds)|completely|entirely|"
        r"guarantee[sd]?|certainly|definitely|invariably|without\s+exception)\b"
        r"|\bthe\s+(?:more|higher|greater|larger|longer|earlier|stronger)\b.{1,60}\bthe\s+(?:more|higher|"
        r"greater|less|lower|better|worse|stronger|larger)\b"
    ),
    "ko": re.compile(r"항상|언제나|모든|반드시|완전히|예외\s*없이|확실히|[을를]?수록"),
    "ja": re.compile(r"必ず|常に|いつも|すべての|全ての|完全に|確実に|例外なく|(?<![日年月間分度人回個割歳台])ほど"),
    "zh": re.compile(r"所有|一定|总是|完全|彻底|必定|肯定|毫无例外|越.{1,8}越"),
}


#: a passage's gradual change ("as years pass", につれて, とともに, 随着, 에 따라): the ground a
#: correlation in an answer sentence ("the longer ..., the lower", ほど, -수록, 越...越) may stand on
_GRADUAL = {
    "en": re.compile(r"\b(?:with\s+(?:age|time)|over\s+time|as\s+\w+(?:\s+\w+)?\s+(?:increases?|rises?|grows?|"
                     r"goes\s+up|pass(?:es)?|gets?\s+older)|the\s+(?:more|longer|higher|greater))\b"),
    "ko": re.compile(r"에\s*따라|수록|할수록|와\s*함께|과\s*함께"),
    "ja": re.compile(r"につれ|とともに|に伴い|に従い|ほど"),
    "zh": re.compile(r"随着|越.{1,8}越|逐渐"),
}


def gradual(text: str, language: str) -> bool:
    """Whether ``text`` says something changes with something else (:data:`_GRADUAL`)."""
    return bool(_GRADUAL.get(language, _GRADUAL["en"]).search(text))


def stronger(text: str, language: str) -> list[str]:
    """The words of ``text`` that make a claim universal or certain ("always", 모든, 必ず, 所有) or
    a correlation ("the more ... the more", -수록, ほど, 越...越)."""
    pattern = _STRONGER.get(language, _STRONGER["en"])
    return [m.group(0) for m in pattern.finditer(text)]
