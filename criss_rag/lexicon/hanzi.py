"""Traditional Chinese characters of medical text folded to their Simplified forms, so that a
sentence in one script compares with a passage in the other (character by character, no library).

Only characters whose two forms differ are listed; the list covers the words of cancer information
(organs, treatments, tests, stages, risk, numbers, common function words), not the whole script.
"""

from __future__ import annotations

_PAIRS = (
    "腫肿療疗醫医術术轉转發发險险風风變变檢检腸肠膽胆腎肾細细結结節节們们這这個个會会與与對对為为於于進进後后"
    "無无沒没線线藥药劑剂標标導导臨临試试驗验據据診诊斷断預预復复較较減减長长擴扩類类種种惡恶頸颈頭头臟脏內内"
    "視视鏡镜層层掃扫觸触顯显現现歲岁齡龄兒儿婦妇數数達达約约陽阳陰阴學学點点說说經经過过還还讓让從从開开關关"
    "係系應应當当選选擇择響响機机幾几處处見见體体樣样實实際际議议護护歷历遺遗傳传環环慣惯煙烟飲饮時时間间週周"
    "癒愈並并併并則则雖虽僅仅須须該该動动脈脉靜静壓压蹤踪隨随訪访潤润區区側侧邊边宮宫攝摄狀状腦脑膠胶質质鱗鳞"
    "範范圍围紀纪錄录嚴严輕轻緩缓釐厘歐欧亞亚東东國国觀观確确認认徵征師师問问題题麼么嗎吗幫帮術术療疗膚肤囊囊"
    "殘残淨净補补充充產产業业滅灭異异氣气壞坏斷断鬱郁吳吴號号僅仅療疗驟骤屬属態态錯错誤误較较顆颗組组織织腫肿"
    "瘡疮瘍疡腫肿轉转續续進进週周規规則则計计畫划劃划頻频級级階阶層层靈灵藥药類类氧氧實实驗验嬰婴絕绝經经孕孕"
    "兩两萬万億亿幾几雙双單单總总極极歲岁減减倍倍較较於于約约佔占變变化化傷伤損损衛卫協协會会務务證证據据"
)
TRADITIONAL_TO_SIMPLIFIED = str.maketrans({_PAIRS[i]: _PAIRS[i + 1] for i in range(0, len(_PAIRS), 2)})


def simplified(text: str) -> str:
    """``text`` with the listed Traditional characters replaced by their Simplified forms."""
    return text.translate(TRADITIONAL_TO_SIMPLIFIED)
