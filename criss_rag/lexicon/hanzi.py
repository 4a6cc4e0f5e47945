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
    "門门桿杆菸烟聽听隻只鬆松條条項项錢钱團团圖图畫画簡简難难歸归爾尔個个來来們们麼么兒儿義义習习書书"
    "買买賣卖車车軍军農农廣广見见貝贝負负貨货質质購购親亲讀读語语話话談谈調调誰谁請请論论識识謝谢"
    "氣气汽汽電电顧顾飛飞養养餘余館馆驅驱驚惊髮发鬥斗魚鱼鳥鸟麥麦黃黄齒齿齣出龍龙龜龟鈣钙鐵铁銅铜鋅锌鉀钾鈉钠"
    "針针鉛铅錠锭鍋锅鏈链閉闭問问間间閱阅闊阔陣阵陳陈陸陆隊队階阶際际雜杂雞鸡離离雲云靈灵韓韩頁页頂顶項项順顺"
    "須须頓顿頗颇領领頻频顆颗題题額额顏颜願愿類类顧顾風风飯饭飽饱餅饼養养餵喂駐驻騎骑驗验體体髒脏鬱郁魯鲁鮮鲜"
    "鹼碱鹽盐麗丽黨党點点齊齐濕湿燒烧爛烂營营獨独獲获環环瑪玛產产畢毕異异療疗癢痒癥症發发盡尽監监盤盘瞭了礎础"
    "確确礙碍禮礼穩稳窮穷競竞筆笔節节範范築筑簽签糧粮紅红紋纹純纯紙纸級级紛纷納纳紐纽線线練练組组細细終终絡络"
    "給给統统絲丝經经綜综綠绿維维網网緊紧緒绪線线緣缘編编緩缓縮缩總总織织繞绕繼继續续缺缺罰罚羅罗聯联聲声職职"
    "膚肤臉脸興兴舉举艱艰莖茎華华萬万葉叶著着蓋盖蘇苏藍蓝處处虛虚號号蟲虫補补製制複复襯衬規规視视覺觉觸触"
    "訊讯託托記记設设許许診诊詞词詢询試试詳详認认誘诱說说課课請请調调諮咨講讲謂谓證证識识警警譯译護护變变"
    "讓让豐丰貓猫貧贫資资賴赖趕赶趨趋跡迹踐践蹤踪輔辅輕轻載载輸输辦办農农這这遞递遠远適适遲迟遷迁選选遺遗"
    "邊边郵邮鄰邻醫医釋释鑑鉴長长門门閃闪開开閒闲間间關关阻阻陰阴隨随險险隱隐雖虽雙双電电需需響响頭头頸颈"
    "塊块額额顯显飲饮騰腾髖髋鬚须麼么嘔呕囑嘱噁恶嚥咽嚨咙聾聋瘻瘘癱瘫瘀瘀臟脏膽胆腫肿腎肾膠胶"
)
TRADITIONAL_TO_SIMPLIFIED = str.maketrans({_PAIRS[i]: _PAIRS[i + 1] for i in range(0, len(_PAIRS), 2)})


def simplified(text: str) -> str:
    """``text`` with the listed Traditional characters replaced by their Simplified forms."""
    return text.translate(TRADITIONAL_TO_SIMPLIFIED)
