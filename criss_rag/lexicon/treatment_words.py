"""What is done, in the facet word lists (:mod:`criss_rag.lexicon.facet_words`): the line of therapy,
treatments, tests and drugs (by name or by the suffix of their class), per language.

Within a table the more specific pattern comes first ("neoadjuvant" before "adjuvant", "stem cell
transplant" before the other transplants, colonoscopy before endoscopy): each is blanked from the
text once read. A drug entry's value ``None`` keeps the matched text as the value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from criss_rag.lexicon.facet_entries import Word

_EN_DRUG_SUFFIX = (r"[a-z]{3,}(?:mab|tinib|nib|lisib|ciclib|parib|platin|taxel|rubicin|mustine|zomib|tecan|citabine|"
                   r"trexate|phosphamide|relin|lutamide|rozole|strant|lidomide|zolomide|poside|blastine|cristine|"
                   r"orelbine|terone|mycin|sertib|rafenib)")
_EN_DRUGS = ("tamoxifen|exemestane|fluorouracil|5-fu|5-fluorouracil|leucovorin|aspirin|metformin|interferon|"
             "interleukin-2|interleukin|bcg|folfox|folfiri|folfirinox|r-chop|abvd|leuprolide|raloxifene|"
             "everolimus|sirolimus|temsirolimus|hydroxyurea|arsenic trioxide|tretinoin|thalidomide|"
             "prednisone|dexamethasone|morphine|opioids?|goserelin|denosumab|zoledronic acid|bisphosphonates?")


#: the line of therapy and its intent (blanked once read)
THERAPY_LINES: dict[str, list[Word]] = {
    "en": [
        (r"(?:first|1st|front)[\s-]*line|initial\s+treatment", "line", "first-line", True),
        (r"(?:second|2nd)[\s-]*line", "line", "second-line", True),
        (r"(?:third|3rd|later|fourth|4th)[\s-]*line", "line", "third-line", True),
        (r"neo[\s-]*adjuvant|pre[\s-]*operative|before\s+surgery", "line", "neoadjuvant", True),
        (r"adjuvant|post[\s-]*operative|after\s+surgery", "line", "adjuvant", True),
        (r"maintenance", "line", "maintenance", True),
        (r"palliative|comfort\s+care|hospice", "line", "palliative", True),
        (r"salvage", "line", "salvage", True),
        (r"induction", "line", "induction", True),
        (r"consolidation", "line", "consolidation", True),
    ],
    "ko": [
        (r"(?:1|일)\s*차(?:\s*치료)?", "line", "first-line", True),
        (r"(?:2|이)\s*차(?:\s*치료)?", "line", "second-line", True),
        (r"(?:3|삼)\s*차(?:\s*치료)?", "line", "third-line", True),
        (r"선행\s*보조|수술\s*전", "line", "neoadjuvant", True),
        (r"보조|수술\s*후", "line", "adjuvant", True),
        (r"유지", "line", "maintenance", True),
        (r"완화", "line", "palliative", True),
        (r"구제", "line", "salvage", True),
    ],
    "ja": [
        (r"一次治療|ファーストライン|1次治療|一次", "line", "first-line", True),
        (r"二次治療|セカンドライン|2次治療|二次", "line", "second-line", True),
        (r"三次治療|3次治療|三次", "line", "third-line", True),
        (r"術前(?:補助)?", "line", "neoadjuvant", True),
        (r"術後(?:補助)?|補助", "line", "adjuvant", True),
        (r"維持", "line", "maintenance", True),
        (r"緩和", "line", "palliative", True),
        (r"救援|サルベージ", "line", "salvage", True),
    ],
    "zh": [
        (r"一线", "line", "first-line", True),
        (r"二线", "line", "second-line", True),
        (r"三线", "line", "third-line", True),
        (r"新辅助|术前", "line", "neoadjuvant", True),
        (r"辅助|术后", "line", "adjuvant", True),
        (r"维持", "line", "maintenance", True),
        (r"姑息", "line", "palliative", True),
        (r"挽救", "line", "salvage", True),
    ],
}

#: treatments, the more specific first (blanked once read)
TREATMENTS: dict[str, list[Word]] = {
    "en": [
        (r"(?:stem[\s-]*cell|bone[\s-]*marrow)\s+transplant\w*", "treatment", "stem-cell-transplant", True),
        (r"(?:liver|organ)\s+transplant\w*", "treatment", "organ-transplant", True),
        (r"brachytherapy", "treatment", "brachytherapy", True),
        (r"proton\s+therapy", "treatment", "proton-therapy", True),
        (r"radiation(?:\s+therapy)?|radiotherapy|irradiation|radiosurgery", "treatment", "radiotherapy", True),
        (r"chemo\w*", "treatment", "chemotherapy", True),
        (r"immuno\s*therapy|checkpoint\s+inhibitors?", "treatment", "immunotherapy", True),
        (r"targeted\s+(?:therapy|therapies|drugs?|treatment)", "treatment", "targeted-therapy", True),
        (r"(?:hormone|hormonal|endocrine)\s+(?:therapy|therapies|treatment)", "treatment", "hormone-therapy", True),
        (r"car[\s-]*t", "treatment", "car-t", True),
        (r"mastectomy", "treatment", "mastectomy", True),
        (r"lumpectomy|breast[\s-]+conserving", "treatment", "lumpectomy", True),
        (r"lobectomy", "treatment", "lobectomy", True),
        (r"pneumonectomy", "treatment", "pneumonectomy", True),
        (r"prostatectomy", "treatment", "prostatectomy", True),
        (r"hysterectomy", "treatment", "hysterectomy", True),
        (r"colectomy", "treatment", "colectomy", True),
        (r"gastrectomy", "treatment", "gastrectomy", True),
        (r"whipple", "treatment", "whipple", True),
        (r"(?:radiofrequency\s+)?ablation", "treatment", "ablation", True),
        (r"(?:chemo)?embolization|tace", "treatment", "embolization", True),
        (r"surgery|surgical\w*|operations?|resections?|operated", "treatment", "surgery", True),
        (r"watchful\s+waiting|active\s+surveillance", "treatment", "surveillance", True),
    ],
    "ko": [
        (r"조혈모세포\s*이식|골수\s*이식", "treatment", "stem-cell-transplant", True),
        (r"간\s*이식", "treatment", "organ-transplant", True),
        (r"면역\s*(?:항암)?\s*(?:치료|요법|제)?", "treatment", "immunotherapy", True),
        (r"표적\s*(?:치료|항암제|요법)?", "treatment", "targeted-therapy", True),
        (r"호르몬\s*(?:치료|요법)", "treatment", "hormone-therapy", True),
        (r"방사선\s*(?:치료|요법)?", "treatment", "radiotherapy", True),
        (r"(?:항암\s*)?화학\s*요법|항암\s*(?:치료|제|요법)?", "treatment", "chemotherapy", True),
        (r"유방\s*(?:전\s*)?절제", "treatment", "mastectomy", True),
        (r"유방\s*보존|부분\s*절제", "treatment", "lumpectomy", True),
        (r"고주파\s*열?치료|고주파|소작", "treatment", "ablation", True),
        (r"색전술", "treatment", "embolization", True),
        # taking it out in everyday words (없앨 수 있나요, 떼어내다, 들어낸) is surgery too
        (r"수술|절제|제거|없애|없앨|떼어\s*내|떼어\s*낼|떼어\s*낸|잘라\s*내|잘라\s*낼|잘라\s*낸|들어\s*내|들어\s*낸",
         "treatment", "surgery", True),
    ],
    "ja": [
        (r"造血幹細胞移植|骨髄移植", "treatment", "stem-cell-transplant", True),
        (r"肝移植", "treatment", "organ-transplant", True),
        (r"免疫(?:チェックポイント阻害薬|チェックポイント阻害剤|療法|治療)?", "treatment", "immunotherapy", True),
        (r"分子標的(?:薬|治療)?", "treatment", "targeted-therapy", True),
        (r"ホルモン(?:療法|治療)", "treatment", "hormone-therapy", True),
        (r"放射線(?:治療|療法)?", "treatment", "radiotherapy", True),
        (r"化学療法|抗がん剤|抗癌剤|抗がん薬", "treatment", "chemotherapy", True),
        (r"乳房切除|全摘", "treatment", "mastectomy", True),
        (r"乳房温存", "treatment", "lumpectomy", True),
        (r"ラジオ波|焼灼", "treatment", "ablation", True),
        (r"塞栓", "treatment", "embolization", True),
        (r"手術|切除|外科|取り除|取り去|切り取|摘出|取り出", "treatment", "surgery", True),
    ],
    "zh": [
        (r"造血干细胞移植|骨髓移植", "treatment", "stem-cell-transplant", True),
        (r"肝(?:脏)?移植|器官移植", "treatment", "organ-transplant", True),
        (r"免疫(?:治疗|疗法|检查点抑制剂)", "treatment", "immunotherapy", True),
        (r"靶向(?:治疗|药物|药)?", "treatment", "targeted-therapy", True),
        (r"内分泌治疗|激素治疗|激素疗法", "treatment", "hormone-therapy", True),
        (r"放疗|放射治疗|放射疗法", "treatment", "radiotherapy", True),
        (r"化疗|化学治疗|化学疗法", "treatment", "chemotherapy", True),
        (r"乳房切除", "treatment", "mastectomy", True),
        (r"保乳", "treatment", "lumpectomy", True),
        (r"射频消融|消融", "treatment", "ablation", True),
        (r"栓塞", "treatment", "embolization", True),
        (r"手术|切除|切掉|割掉|拿掉|去除|开刀", "treatment", "surgery", True),
    ],
}

#: tests and examinations (blanked once read)
TESTS: dict[str, list[Word]] = {
    "en": [
        (r"colonoscop\w*", "test", "colonoscopy", True),
        (r"endoscop\w*", "test", "endoscopy", True),
        (r"mammogra\w*", "test", "mammography", True),
        (r"ct(?:\s+scans?)?|cat\s+scans?", "test", "ct", True),
        (r"mri(?:\s+scans?)?", "test", "mri", True),
        (r"pet(?:[\s-]+ct)?\s+scans?|pet", "test", "pet", True),
        (r"biops\w*", "test", "biopsy", True),
        (r"laparoscop\w*", "test", "laparoscopy", True),
        (r"ultrasound|sonogra\w*", "test", "ultrasound", True),
        (r"pap\s+(?:smear|test)s?", "test", "pap", True),
        (r"x[\s-]*rays?", "test", "x-ray", True),
        (r"blood\s+tests?", "test", "blood-test", True),
    ],
    "ko": [
        (r"대장\s*내시경", "test", "colonoscopy", True),
        (r"내시경", "test", "endoscopy", True),
        (r"유방\s*촬영|맘모그램", "test", "mammography", True),
        (r"CT|씨티", "test", "ct", True),
        (r"MRI|자기\s*공명", "test", "mri", True),
        (r"PET", "test", "pet", True),
        (r"조직\s*검사", "test", "biopsy", True),
        (r"복강경", "test", "laparoscopy", True),
        (r"초음파", "test", "ultrasound", True),
        (r"혈액\s*검사", "test", "blood-test", True),
    ],
    "ja": [
        (r"大腸内視鏡", "test", "colonoscopy", True),
        (r"内視鏡|胃カメラ", "test", "endoscopy", True),
        (r"マンモグラフィ(?:ー)?", "test", "mammography", True),
        (r"CT", "test", "ct", True),
        (r"MRI", "test", "mri", True),
        (r"PET", "test", "pet", True),
        (r"生検|生体検査", "test", "biopsy", True),
        (r"腹腔鏡", "test", "laparoscopy", True),
        (r"超音波|エコー", "test", "ultrasound", True),
        (r"血液検査", "test", "blood-test", True),
    ],
    "zh": [
        (r"肠镜|结肠镜", "test", "colonoscopy", True),
        (r"胃镜|内镜|内窥镜|内视镜", "test", "endoscopy", True),
        (r"腹腔镜", "test", "laparoscopy", True),
        (r"钼靶|乳腺X线", "test", "mammography", True),
        (r"CT|电脑断层|断层扫描", "test", "ct", True),
        (r"磁共振|核磁|MRI", "test", "mri", True),
        (r"PET", "test", "pet", True),
        (r"活检|活组织检查|穿刺|切片", "test", "biopsy", True),
        (r"B超|超声|超音波", "test", "ultrasound", True),
        (r"验血|血液检查", "test", "blood-test", True),
    ],
}

#: drugs by name, then by the suffix of their class (blanked once read; the matched name is the value)
DRUGS: dict[str, list[Word]] = {
    "en": [
        (_EN_DRUGS, "drug", None, True),
        (_EN_DRUG_SUFFIX, "drug", None, True),
    ],
    "ko": [
        (
            r"타목시펜|레트로졸|아나스트로졸|아스피린|메트포르민|허셉틴|키트루다|옵디보|글리벡|타쎄바|이레사|타그리소",
            "drug",
            None,
            True,
        ),
        (r"[가-힣]{2,}(?:맙|닙|플라틴|탁셀|루비신|시타빈|파립|시클립)", "drug", None, True),
    ],
    "ja": [
        (
            r"タモキシフェン|レトロゾール|アナストロゾール|アスピリン|メトホルミン|ハーセプチン|キイトルーダ|オプジーボ|グリベック|タグリッソ|イレッサ",
            "drug",
            None,
            True,
        ),
        (r"[ァ-ヶー]{2,}(?:マブ|ニブ|プラチン|タキセル|ルビシン|シタビン|パリブ|シクリブ)", "drug", None, True),
    ],
    "zh": [
        (
            r"他莫昔芬|来曲唑|阿那曲唑|阿司匹林|二甲双胍|赫赛汀|可瑞达|欧狄沃|格列卫|泰瑞沙|易瑞沙",
            "drug",
            None,
            True,
        ),
        (r"[一-龥]{2,4}(?:单抗|替尼|铂|他赛|比星|他滨|帕利|西利)", "drug", None, True),
    ],
}
