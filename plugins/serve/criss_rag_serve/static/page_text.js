// The chat page's own words in the four languages it speaks. The page's frame (buttons, landing)
// follows the reader's language (?lang=ko, else the browser's); an answer's words follow the language
// of the question it answers. Technical details (refusal codes, scores) are never translated here:
// they only appear under "How this answer was made".
"use strict";

const PAGE_TEXT = {
  en: {
    assistant: "Cancer information assistant",
    welcome: "Ask a question about cancer",
    answersFrom: "Answers come only from {corpus}: {documents} documents, last updated {updated}. Every answer shows its sources.",
    notFor: "When its sources do not cover a question, it says so instead of guessing.",
    examplesTitle: "For example",
    newChat: "New conversation",
    placeholder: "Ask a question",
    filters: "Filters",
    cancerType: "Cancer type",
    diagnosisYear: "Diagnosis year",
    token: "Access token",
    ask: "Ask",
    refused: "I could not find this in the sources I have.",
    refusedNext: "Try asking in other words, or ask your doctor or nurse.",
    howMade: "How this answer was made",
    working: "Looking in the sources…",
    sources: "Sources",
    openSource: "open the page",
    sourceN: "Source {n}",
    citedFor: "Cited for: “{s}”",
    unsupported: "{n} sentence(s) not supported by the cited sources (underlined).",
    cached: "This is the answer given earlier to “{q}”.",
    error: "Something went wrong",
    unreachable: "The server could not be reached ({e}).",
  },
  ko: {
    assistant: "암 정보 도우미",
    welcome: "암에 대해 물어보세요",
    answersFrom: "답변은 {corpus}의 자료 {documents}건(최종 업데이트 {updated})에서만 찾으며, 모든 답변에 출처를 보여 드립니다.",
    notFor: "자료에 없는 내용은 추측하지 않고, 찾지 못했다고 말씀드립니다.",
    examplesTitle: "질문 예시",
    newChat: "새 대화",
    placeholder: "질문을 입력하세요",
    filters: "필터",
    cancerType: "암 종류",
    diagnosisYear: "진단 연도",
    token: "접근 토큰",
    ask: "질문하기",
    refused: "가지고 있는 자료에서 이 내용을 찾지 못했습니다.",
    refusedNext: "다른 말로 다시 물어보시거나, 담당 의사나 간호사에게 문의하세요.",
    howMade: "이 답변을 만든 과정",
    working: "자료를 찾는 중…",
    sources: "출처",
    openSource: "원문 보기",
    sourceN: "출처 {n}",
    citedFor: "인용된 문장: “{s}”",
    unsupported: "인용한 자료로 뒷받침되지 않는 문장이 {n}개 있습니다(밑줄).",
    cached: "앞서 “{q}” 질문에 드린 답변입니다.",
    error: "문제가 생겼습니다",
    unreachable: "서버에 연결할 수 없습니다({e}).",
  },
  ja: {
    assistant: "がん情報アシスタント",
    welcome: "がんについて質問してください",
    answersFrom: "回答は{corpus}の資料{documents}件（最終更新 {updated}）だけから探し、すべての回答に出典を示します。",
    notFor: "資料にないことは推測せず、見つからなかったとお伝えします。",
    examplesTitle: "質問の例",
    newChat: "新しい会話",
    placeholder: "質問を入力してください",
    filters: "絞り込み",
    cancerType: "がんの種類",
    diagnosisYear: "診断年",
    token: "アクセストークン",
    ask: "質問する",
    refused: "手元の資料では、このことについての情報が見つかりませんでした。",
    refusedNext: "言い方を変えて質問するか、担当の医師や看護師にご相談ください。",
    howMade: "この回答ができるまで",
    working: "資料を探しています…",
    sources: "出典",
    openSource: "ページを開く",
    sourceN: "出典 {n}",
    citedFor: "引用された文：「{s}」",
    unsupported: "引用した資料で裏づけられない文が{n}つあります（下線）。",
    cached: "以前の質問「{q}」への回答です。",
    error: "問題が発生しました",
    unreachable: "サーバーに接続できません（{e}）。",
  },
  zh: {
    assistant: "癌症信息助手",
    welcome: "请提出关于癌症的问题",
    answersFrom: "回答只来自{corpus}的 {documents} 份资料（最近更新：{updated}），每个回答都注明出处。",
    notFor: "资料中没有的内容，它不会猜测，而会告诉您没有找到。",
    examplesTitle: "示例问题",
    newChat: "新对话",
    placeholder: "请输入问题",
    filters: "筛选",
    cancerType: "癌症类型",
    diagnosisYear: "诊断年份",
    token: "访问令牌",
    ask: "提问",
    refused: "我在现有资料中没有找到这方面的信息。",
    refusedNext: "请换一种说法提问，或咨询您的医生或护士。",
    howMade: "此回答的生成过程",
    working: "正在查找资料…",
    sources: "来源",
    openSource: "打开原文",
    sourceN: "来源 {n}",
    citedFor: "引用的句子：“{s}”",
    unsupported: "有 {n} 个句子没有得到所引资料的支持（带下划线）。",
    cached: "这是之前对“{q}”的回答。",
    error: "出现问题",
    unreachable: "无法连接服务器（{e}）。",
  },
};

// the reader's language: ?lang=xx when the page speaks it, else the first of the browser's it speaks
function readerLanguage() {
  const asked = new URLSearchParams(window.location.search).get("lang");
  const wanted = [asked, ...(navigator.languages || [navigator.language])].filter(Boolean);
  for (const tag of wanted) {
    const base = tag.toLowerCase().split("-")[0];
    if (PAGE_TEXT[base]) return base;
  }
  return "en";
}

function pageText(lang, key, values = {}) {
  const text = (PAGE_TEXT[lang] || PAGE_TEXT.en)[key] || PAGE_TEXT.en[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}
