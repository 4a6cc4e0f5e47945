"""What is asked and how an effect goes, in the facet word lists (:mod:`criss_rag.lexicon.facet_words`):
the direction of an effect (raises / lowers), its timing (before / after / during) and the aspect of
the cancer a question asks about (treatment, symptoms, outlook, causes, ...), per language.

These words are kept (not blanked), so the words read after them still see them: "lower than" is a
direction and also gives a comparison, "prevent" is a direction down and the prevention aspect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from criss_rag.lexicon.facet_entries import Word

#: the direction of an effect (kept: "lower than" also gives a comparison)
DIRECTIONS: dict[str, list[Word]] = {
    "en": [
        (r"rais\w*|increas\w*|higher|boost\w*|elevat\w*|worsen\w*", "direction", "up", False),
        (
            r"lower\w*|reduc\w*|decreas\w*|cut(?:s|ting)?\s+(?:down|the)|prevent\w*|less\s+likely",
            "direction",
            "down",
            False,
        ),
    ],
    "ko": [
        (r"높이|높아|높은|증가|올리|늘리|상승|악화", "direction", "up", False),
        (r"낮추|낮아|낮은|감소|줄이|줄어|저하|예방", "direction", "down", False),
    ],
    "ja": [
        (r"高め|高く|上げ|増や|増加|上昇|悪化", "direction", "up", False),
        (r"下げ|減ら|低下|減少|低く|予防", "direction", "down", False),
    ],
    "zh": [
        (r"增加|提高|升高|增高|加重", "direction", "up", False),
        (r"降低|减少|下降|减低|预防", "direction", "down", False),
    ],
}

#: when, relative to something else (kept)
TIMING: dict[str, list[Word]] = {
    "en": [
        (r"before|prior\s+to|ahead\s+of", "timing", "before", False),
        (r"after|following|afterwards", "timing", "after", False),
        (r"during|while\s+on|while\s+having", "timing", "during", False),
    ],
    "ko": [
        (r"(?<=\s)전(?=[에의은는도]?(?:\s|$|[?.,]))", "timing", "before", False),
        (r"(?<=\s)후(?=[에의은는도]?(?:\s|$|[?.,]))|이후", "timing", "after", False),
        (r"(?<=\s)중(?=[에의은는도]?(?:\s|$|[?.,]))|동안", "timing", "during", False),
    ],
    "ja": [
        (r"(?<![立])前(?!立)", "timing", "before", False),
        (r"(?<![予])後", "timing", "after", False),
        # 治療中に, 妊娠中: a suffix; 中 that begins a compound (中央, 中心, 中止, 中期) is no time
        (r"中(?![\u4e00-\u9fff])|間に", "timing", "during", False),
    ],
    "zh": [
        (r"之前|以前|前(?!列)", "timing", "before", False),
        (r"之后|以后|(?<![预])后", "timing", "after", False),
        (r"期间|过程中", "timing", "during", False),
    ],
}

#: what is asked about care, one person or the life beside the illness rather than about the cancer:
#: no page on a cancer answers it unless it speaks of it (what care costs, which hospital, one
#: patient's time left, work, having a child, sex, travel)
OUTSIDE_CARE = frozenset({"cost", "provider", "lifespan", "work", "pregnancy", "sex", "travel"})

#: what is asked about the cancer (kept)
ASPECTS: dict[str, list[Word]] = {
    "en": [
        (r"side[\s-]+effects?|adverse\s+effects?|toxicit\w*", "aspect", "side-effects", False),
        (
            r"treat\w*|therap\w*|manag\w*|cur(?:e|es|ed|able)|options?|drugs?|medicines?|medications?",
            "aspect",
            "treatment",
            False,
        ),
        (r"symptoms?|signs?|warning", "aspect", "symptoms", False),
        (r"diagnos\w*|detect\w*|find|found|identif\w*|tests?", "aspect", "diagnosis", False),
        (r"outlook|prognos\w*|survival|surviv\w*|life\s+expectancy|chances?", "aspect", "outlook", False),
        (r"caus\w*|risks?|factors?", "aspect", "cause", False),
        (r"stages?|staging", "aspect", "stages", False),
        (r"prevent\w*", "aspect", "prevention", False),
        (r"screen\w*", "aspect", "screening", False),
        (r"research|clinical\s+trials?|trials?|studies", "aspect", "research", False),
        # money: what care costs, who pays (a page on a treatment does not say what it costs)
        (r"costs?|costly|pric(?:e|es|ey|ing)|expensive|cheap(?:er|est)?|afford\w*|payments?|insur\w*|reimburs\w*|"
         r"out[\s-]of[\s-]pocket|co-?pays?|fees?|medical\s+bills?", "aspect", "cost", False),
        # who treats: which hospital or doctor (no page says which one is best)
        (r"(?:best|which|recommend\w*|top)\s+(?:\w+\s+){0,2}?(?:hospitals?|clinics?|doctors?|surgeons?|oncologists?)|"
         r"(?:hospitals?|clinics?|doctors?|surgeons?)\s+(?:near|in)\s+[A-Z]", "aspect", "provider", False),
        # one person's time left (no page can say how long a given patient will live)
        (r"how\s+long\s+(?:\w+\s+){0,4}?(?:left|to\s+live|(?:will|would|can|could)\s+(?:\w+\s+)?(?:live|survive))|"
         r"(?:time|months?|years?)\s+(?:\w+\s+)?left\s+to\s+live|how\s+much\s+time\s+(?:\w+\s+){0,3}left",
         "aspect", "lifespan", False),
        # life beside the illness: work, having a child, sex, travel (pages on a cancer's medicine do
        # not say when one may go back to work, get pregnant or fly)
        (r"(?:back|return\w*|go|going|went)\s+to\s+work|at\s+work|my\s+job|sick\s+leave|employer|time\s+off\s+work",
         "aspect", "work", False),
        (r"pregnan\w*|fertil\w*|conceiv\w*|(?:have|having)\s+(?:a\s+)?(?:baby|babies|children|kids)", "aspect",
         "pregnancy", False),
        (r"sex|sexual\w*|intercourse|intimacy", "aspect", "sex", False),
        (r"travel\w*|fly|flying|flight|plane|vacation|holiday", "aspect", "travel", False),
    ],
    "ko": [
        (r"부작용", "aspect", "side-effects", False),
        (r"치료|완치|낫", "aspect", "treatment", False),
        (r"증상|징후", "aspect", "symptoms", False),
        (r"진단|검사", "aspect", "diagnosis", False),
        (r"예후|생존", "aspect", "outlook", False),
        (r"원인|위험|요인|왜\s*생기", "aspect", "cause", False),
        (r"병기", "aspect", "stages", False),
        (r"예방", "aspect", "prevention", False),
        (r"검진", "aspect", "screening", False),
        (r"임상\s*시험|연구(?!소|센터|원)", "aspect", "research", False),  # not a 연구소: an institution
        (r"비용|가격|보험|실비|진단금|본인\s*부담|치료비|수술비|검사비|진료비|병원비|입원비|약값|(?<![가-힣])돈[이은을도]|"
         r"얼마(?:예요|에요|인가요|일까요|나\s*들)", "aspect", "cost", False),
        (r"(?:어느|어디|좋은|잘하는|유명한|추천)\s*(?:\S+\s*){0,2}?(?:병원|의사|교수님?|선생님|명의)|"
         r"(?:병원|의사|교수님?|명의)\s*(?:추천|순위|잘하)|명의", "aspect", "provider", False),
        (r"얼마나\s*(?:더\s*)?(?:살\s*수|살까|살아|사실|버티|버틸)|남은\s*(?:시간|기간|수명)|몇\s*(?:개월|달|년)\s*(?:더\s*)?(?:남|살|사실)|"
         r"여명|시한부", "aspect", "lifespan", False),
        (r"출근|퇴근|복직|휴직|병가|직장\s*(?:생활|복귀|다니)|회사\s*(?:다니|생활|복귀|출근|를?\s*쉬)|일\s*(?:을|를)?\s*(?:계속|다시)\s*(?:하|다니)",
         "aspect", "work", False),
        (r"임신|출산|가임|난임|불임|(?:아기|아이)를?\s*(?:갖|가지|가져|가질|낳)", "aspect", "pregnancy", False),
        (r"성관계|성생활|부부\s*관계|잠자리", "aspect", "sex", False),
        (r"여행|비행기", "aspect", "travel", False),
    ],
    "ja": [
        (r"副作用", "aspect", "side-effects", False),
        (r"治療|治り|治る|治せ", "aspect", "treatment", False),
        (r"症状|兆候|徴候", "aspect", "symptoms", False),
        (r"診断|検査", "aspect", "diagnosis", False),
        (r"予後|生存|見通し", "aspect", "outlook", False),
        (r"原因|リスク|危険因子|要因", "aspect", "cause", False),
        (r"病期", "aspect", "stages", False),
        (r"予防", "aspect", "prevention", False),
        (r"検診", "aspect", "screening", False),
        (r"臨床試験|研究(?!センター|所)", "aspect", "research", False),  # not a 研究所: an institution
        (r"費用|値段|価格|お金|保険|自己負担|高額療養費|医療費|治療費|手術代|薬代|検査代|入院費|負担額|"
         r"いくら(?=[？?]|$|ぐらい|くらい|位|かか|です|でしょう|必要)", "aspect", "cost", False),
        (r"(?:どこの|どの|おすすめ|評判|有名な|上手な?)\S{0,6}?(?:病院|医者|医師|先生|名医)|(?:病院|医者|医師|先生)"
         r"(?:は|が)?(?:どこ|おすすめ|評判|上手)|評判|名医", "aspect", "provider", False),
        (r"余命|あと(?:何|どれ|どの)\S{0,4}?(?:生き|もつ|持つ)|生きられる", "aspect", "lifespan", False),
        # 仕事 of a person, not of an organ (肝臓はどんな仕事をしている: what the liver does)
        (r"仕事(?:を|に|へ|は|と)?(?:続け|休|復帰|戻|行|辞め|探|両立)|仕事中|仕事しながら|職場|復職|休職|出勤|"
         r"会社(?:に|を|へ)?(?:行|通|勤|休|戻)", "aspect", "work", False),
        (r"妊娠|出産|妊活|不妊|子(?:ども|供)(?:を|が)?(?:作|産|欲し|授か)", "aspect", "pregnancy", False),
        (r"性生活|夫婦生活|セックス|性行為", "aspect", "sex", False),
        (r"旅行|飛行機", "aspect", "travel", False),
    ],
    "zh": [
        (r"副作用", "aspect", "side-effects", False),
        (r"治疗|治好|治愈", "aspect", "treatment", False),
        (r"症状|征兆", "aspect", "symptoms", False),
        (r"诊断|检查", "aspect", "diagnosis", False),
        (r"预后|生存", "aspect", "outlook", False),
        (r"病因|原因|风险|危险因素|引起", "aspect", "cause", False),
        (r"分期", "aspect", "stages", False),
        (r"预防", "aspect", "prevention", False),
        (r"筛查", "aspect", "screening", False),
        (r"临床试验|研究(?!中心|所|院)", "aspect", "research", False),  # not a 研究所: an institution
        (r"费用|价格|价钱|多少钱|几多钱|保险|医保|报销|自费|医药费|治疗费|手术费|花费|贵不贵|索偿|理赔|钱",
         "aspect", "cost", False),
        (r"(?:哪家|哪个|哪间|推荐|有名|出名|最好的?|好的)\S{0,4}?(?:医院|医生|大夫|专家|名医)|"
         r"(?:医院|医生|专家)(?:推荐|排名)|名医", "aspect", "provider", False),
        (r"(?:还|仲)?能?活多久|活得了多久|剩下多少时间|还有多少时间|余命|几耐命|(?:还|仲)有(?:多久|几耐)",
         "aspect", "lifespan", False),
        (r"上班|复工|返工|请假|病假|工作", "aspect", "work", False),
        (r"怀孕|生育|备孕|不孕|生孩子|生小孩|生仔|怀孩子", "aspect", "pregnancy", False),
        (r"性生活|同房|房事|夫妻生活|性行为", "aspect", "sex", False),
        (r"旅行|旅游|坐飞机|搭飞机|出国", "aspect", "travel", False),
    ],
}
