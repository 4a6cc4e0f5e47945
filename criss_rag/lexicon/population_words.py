"""Who the question or sentence is about, in the facet word lists (:mod:`criss_rag.lexicon.facet_words`):
age groups, sex, pregnancy and breastfeeding, menopause and smoking, per language.

Within a table the more specific pattern comes first ("young adults" before "adults", "non-smokers"
before "smokers", 남성 before 성인): each is blanked from the text once read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from criss_rag.lexicon.facet_entries import Word

#: the population named (blanked once read)
POPULATIONS: dict[str, list[Word]] = {
    "en": [
        (
            r"children|child|kids?|childhood|p(?:a)?ediatric|infants?|babies|baby|toddlers?",
            "population",
            "child",
            True,
        ),
        (r"teenagers?|teens?|adolescents?|adolescence", "population", "adolescent", True),
        (r"young\s+adults?", "population", "young-adult", True),
        (
            r"elderly|older\s+(?:adults?|people|persons?|patients?|men|women)|seniors?|geriatric|aged\s+people",
            "population",
            "elderly",
            True,
        ),
        (r"adults?|grown[\s-]*ups?", "population", "adult", True),
        (r"men|man|males?|boys?", "population", "male", True),
        (r"women|woman|females?|girls?", "population", "female", True),
        (r"pregnan\w*|expecting\s+a\s+baby", "population", "pregnant", True),
        (r"breast[\s-]*feeding|nursing\s+mothers?", "population", "breastfeeding", True),
        (r"post[\s-]*menopausal|after\s+menopause", "population", "postmenopausal", True),
        (r"pre[\s-]*menopausal|before\s+menopause", "population", "premenopausal", True),
        (r"non[\s-]*smokers?|never[\s-]+smokers?", "population", "non-smoker", True),
        (r"smokers?", "population", "smoker", True),
        (r"pets?(?![\s/-]*(?:scans?|ct|imaging))|cats?|kittens?|dogs?|pupp(?:y|ies)|canine|feline|veterinar\w*|vets?",
         "population", "animal", True),
    ],
    "ko": [
        (r"남성|남자|남편", "population", "male", True),
        (r"여성|여자|(?<![가-힣])아내", "population", "female", True),
        (r"소아|어린이|아이들?|아동|유아|영아", "population", "child", True),
        (r"청소년", "population", "adolescent", True),
        (r"젊은\s*(?:성인|사람|층)", "population", "young-adult", True),
        (r"노인|고령자?|어르신|노년", "population", "elderly", True),
        (r"성인|어른", "population", "adult", True),
        (r"임신|임산부|임부", "population", "pregnant", True),
        (r"수유", "population", "breastfeeding", True),
        (r"폐경\s*후", "population", "postmenopausal", True),
        (r"폐경\s*전", "population", "premenopausal", True),
        (r"비흡연자", "population", "non-smoker", True),
        (r"흡연자", "population", "smoker", True),
        (r"반려\s*(?:동물|견|묘)|애완\s*(?:동물|견|묘)?|강아지|고양이|수의사|동물\s*병원",
         "population", "animal", True),
    ],
    "ja": [
        (r"小児|子ども|子供|こども|児童|乳児|幼児", "population", "child", True),
        (r"AYA世代|若年成人", "population", "young-adult", True),
        (r"思春期|青年", "population", "adolescent", True),
        (r"高齢(?:者)?|お年寄り|老人", "population", "elderly", True),
        (r"成人|大人", "population", "adult", True),
        (r"男性|男", "population", "male", True),
        (r"女性|女", "population", "female", True),
        (r"妊娠(?:中)?|妊婦", "population", "pregnant", True),
        (r"授乳(?:中)?", "population", "breastfeeding", True),
        (r"閉経後", "population", "postmenopausal", True),
        (r"閉経前", "population", "premenopausal", True),
        (r"非喫煙者", "population", "non-smoker", True),
        (r"喫煙者", "population", "smoker", True),
        (r"ペット|愛犬|愛猫|飼い(?:犬|猫)|子犬|子猫|犬|猫|獣医|動物病院", "population", "animal", True),
    ],
    "zh": [
        (r"儿童|小儿|孩子|小孩|婴儿|幼儿", "population", "child", True),
        (r"青少年", "population", "adolescent", True),
        (r"年轻人", "population", "young-adult", True),
        (r"老年人?|老人|高龄", "population", "elderly", True),
        (r"成年人|成人", "population", "adult", True),
        (r"男性|男人|男子", "population", "male", True),
        (r"女性|女人|妇女", "population", "female", True),
        (r"孕妇|怀孕|妊娠", "population", "pregnant", True),
        (r"哺乳(?:期)?", "population", "breastfeeding", True),
        (r"绝经后", "population", "postmenopausal", True),
        (r"绝经前", "population", "premenopausal", True),
        (r"不吸烟者|非吸烟者", "population", "non-smoker", True),
        (r"吸烟者", "population", "smoker", True),
        (r"宠物|狗狗?|小猫|猫咪?|犬|兽医|动物医院", "population", "animal", True),
    ],
}
