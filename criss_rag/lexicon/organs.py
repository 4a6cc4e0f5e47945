"""Organs in everyday, anatomical and described words, per language: one table for every reader.

:mod:`criss_rag.lexicon.facets` reads the **names** as the ``site`` facet (허파 and 폐 are both the
lung, 腸 and 大腸 the colon), so the relevance check covers a question's 허파에 by evidence that
says 폐, and the semantic cache gives 허파암 and 폐암 one site. The domain plugin reads the names and
the **descriptions** (what the organ does or where it lies: 인슐린을 만드는, 解毒をしている, "the organ
that makes insulin") to tell which cancer a question asks about when a cancer word is near.

Patterns are regular expressions. Korean names match at the start of a word only (간장 in 간장에,
not in 된장), Latin ones as whole words; a word that is the organ in one sense and something else in
another (이자 is also interest on money, 가슴 and 胸 the chest, 위 also "above") counts as the organ
only when a cancer or tumour word follows within a few characters (``near_cancer``). Chinese
patterns are written in Simplified characters; the readers compare Traditional text in its
Simplified form.
"""

from __future__ import annotations

_KO_START = "(?<![가-힣])"


#: a cancer named in everyday words, as a bad thing that grew: 나쁜 혹, 안 좋은 덩어리, 悪いできもの,
#: 不好的东西 (the evaluative word and the growth noun are both needed), or as something that grew
#: there: 뭐가 생긴, 何かできて, 长了东西
EUPHEMISM = (r"(?:나쁜|안\s*좋은|몹쓸)\s*(?:병|혹|거|것|게|덩어리|종기|세포)|뭐(?:가|라도)?\s*(?:생긴|생겼|생기|자라)"
             r"|悪い(?:病気|もの|できもの|しこり|腫れ物)|何か(?:が)?(?:でき|育っ)"
             r"|(?:不好的|坏|壞)(?:东西|東西|病)|[长長]了?(?:个|個|一个|一個)?(?:东西|東西)")
#: taking an organ out (surgery on it): 가슴을 도려내다, 胸を全部とる, 切除乳房 — a chest cannot be
#: taken out, so an ambiguous organ word before one is the organ
REMOVAL = r"도려|잘라|떼어|떼내|들어내|절제|全部と|取り除|切り取|切除|摘出|切掉|拿掉"


def near_cancer(word: str, reach: int = 14) -> str:
    """``word`` as the organ only when a cancer, tumour or lump word (or one in everyday words:
    ``EUPHEMISM``), the word organ itself, or a word for taking it out (``REMOVAL``) follows within
    ``reach`` characters (이자에 생긴 암, 이자라는 장기, 胸にできたしこり, 胸部的肿瘤, 가슴을 다 도려내야)."""
    return (rf"{word}(?=[^?？!！。.]{{0,{reach}}}"
            r"(?:암|종양|혹(?![시은])|멍울|장기|がん|ガン|癌|腫瘍|しこり|臓器|肿瘤|肿块|器官|cancer|tumou?r|malignan|organ"
            rf"|{EUPHEMISM}|{REMOVAL}))")


#: site -> language -> names (regular expressions): read as that site wherever they occur
ORGAN_NAMES: dict[str, dict[str, list[str]]] = {
    "liver": {
        "ko": [f"{_KO_START}간장(?!약|게)", f"{_KO_START}간\\s*(?:세포|조직)"],
        "ja": ["肝の臓"],
        "zh": ["肝脏"],
        "en": [],
    },
    "colon": {
        "ko": [f"{_KO_START}큰\\s*창자", f"{_KO_START}잘록\\s*창자", _KO_START + near_cancer("창자")],
        "ja": ["(?<![小指盲胃])腸(?![閉炎])", "はらわた"],
        "zh": ["(?<![小指盲胃])肠(?![胃道炎梗])"],
        "en": [r"large\s+intestines?", "colorectum"],
    },
    "rectum": {
        "ko": [f"{_KO_START}곧\\s*창자"],
        "ja": [],
        "zh": [],
        "en": [],
    },
    "stomach": {
        "ko": [f"{_KO_START}위장(?!약)", f"{_KO_START}밥통", f"{_KO_START}위\\s*(?:점막|벽)",
               f"{_KO_START}위(?=암)", _KO_START + near_cancer("위(?=에|의|\\s*(?:점막|벽|속))", 8)],
        "ja": ["胃袋"],
        "zh": ["胃部"],
        "en": [],
    },
    "breast": {
        "ko": [f"{_KO_START}젖\\s*가슴", f"{_KO_START}젖\\s*꼭지", f"{_KO_START}젖샘",
               _KO_START + near_cancer("가슴")],
        "ja": ["おっぱい", "乳首", "お乳", near_cancer("(?<![お])胸(?![やけ焼])")],
        "zh": ["乳头", near_cancer("胸部?")],
        "en": [r"nipples?", r"milk\s+ducts?"],
    },
    "pancreas": {
        "ko": [_KO_START + near_cancer("이자(?!율|를\\s*(?:내|받|갚))"), f"{_KO_START}이자액"],
        "ja": ["すい臓", "すいぞう", "膵液"],
        "zh": ["胰脏"],
        "en": [],
    },
    "lung": {
        "ko": [f"{_KO_START}허파", f"{_KO_START}폐장"],
        "ja": ["肺臓"],
        "zh": ["肺部"],
        "en": [],
    },
    "gallbladder": {"ko": [f"{_KO_START}쓸개(?!즙)", f"{_KO_START}담낭"], "ja": ["胆嚢", "胆のう"], "zh": ["胆囊"],
                    "en": []},
    "small-intestine": {"ko": [f"{_KO_START}작은\\s*창자", f"{_KO_START}소장"], "ja": ["小腸"], "zh": ["小肠"],
                        "en": []},
    "duodenum": {"ko": [f"{_KO_START}샘\\s*창자", f"{_KO_START}십이지장"], "ja": ["十二指腸"], "zh": ["十二指肠"],
                 "en": [r"duoden\w*"]},
}

#: site -> language -> descriptions: what the organ does or where it lies (read as the organ only
#: with a cancer word, by the domain plugin)
ORGAN_DESCRIPTIONS: dict[str, dict[str, list[str]]] = {
    "liver": {
        "ko": ["해독", "쓸개즙을 만드", "담즙을 만드", "오른쪽 갈비뼈", "침묵의 장기"],
        "ja": ["解毒", "胆汁をつく", "右のあばら", "右上腹部", "沈黙の臓器"],
        "zh": ["解毒", "分泌胆汁", "右上腹", "沉默的器官"],
        "en": [r"detoxif\w*", r"makes?\s+bile"],
    },
    "colon": {
        "ko": ["대변을 만드", "변을 만드", "수분을 흡수", "항문"],
        "ja": ["便をつく", "水分を吸収", "肛門", "お尻の出口"],
        "zh": ["肛门", "吸收水分"],
        "en": [r"absorbs?\s+water", "anus"],
    },
    "stomach": {
        "ko": ["음식을 담", "음식을 소화", "위산", "명치", "소화\\s*주머니"],
        "ja": ["食べ物をため", "胃酸", "みぞおち", "袋状の臓器", "袋のような臓器"],
        "zh": ["胃酸", "储存食物"],
        "en": [r"stores?\s+food", r"stomach\s+acid"],
    },
    "breast": {
        "ko": ["젖을 만드", "모유", "젖이 지나", "유선", "유관"],
        "ja": ["母乳", "お乳をつく", "乳管"],
        "zh": ["母乳", "乳汁"],
        "en": [r"makes?\s+milk"],
    },
    "pancreas": {
        # what it makes, and where it lies: behind the stomach (위 뒤쪽, 胃の裏側, 胃后面)
        "ko": ["인슐린", "췌액", "소화액을 만드", "소화 효소를 만드", "혈당을 조절", "위 뒤", "위의 뒤"],
        "ja": ["インスリン", "消化液をつく", "消化酵素をつく", "血糖を調節", "胃の裏", "胃の後ろ", "胃のうしろ"],
        "zh": ["胰岛素", "胰液", "消化液", "消化酶", "调节血糖", "胃的?后面", "胃的?后方", "胃的?背后"],
        "en": ["insulin", r"digestive\s+(?:juices?|enzymes?)", r"behind\s+the\s+stomach"],
    },
    "lung": {
        "ko": ["숨\\s*쉬", "호흡", "기관지", "폐포", "산소를"],
        "ja": ["呼吸", "息をする", "気管支", "酸素を取り込"],
        "zh": ["呼吸", "支气管", "吸入氧气"],
        "en": [r"breath\w*", r"bronch\w*"],
    },
}
