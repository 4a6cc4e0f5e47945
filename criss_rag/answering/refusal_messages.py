"""The fixed refusal messages, one table per kind of refusal, in the four question languages
(Chinese in both scripts: ``zh`` Simplified, ``zh-Hant`` Traditional).

A refusal shows one of these (or a message the config writes), never text a model wrote: a model's
own "insufficient evidence" reply is not checked against the evidence, so it goes to the trace.
"""

from __future__ import annotations

from collections.abc import Mapping

from criss_rag.language.chinese_script import message_for
from criss_rag.language.text import detect_language

#: The evidence does not answer the question (the refusal policy's default, and a model's decline).
INSUFFICIENT_EVIDENCE = {
    "en": "Insufficient evidence: the sources available to me do not answer this question.",
    "ko": "근거 부족: 제공된 자료에서 이 질문에 대한 답을 찾을 수 없습니다.",
    "ja": "根拠が不十分です：参照できる資料にはこの質問への答えがありません。",
    "zh": "证据不足：现有资料无法回答这个问题。",
    "zh-Hant": "證據不足：現有資料無法回答這個問題。",
}
#: An answer none of whose sentences the evidence supports (or, with ``unsupported: withhold``,
#: one with an unsupported sentence).
UNSUPPORTED = {
    "en": "Insufficient evidence: the answer was checked against the sources and they do not support it, so it is "
          "withheld.",
    "ko": "근거 부족: 답변을 자료와 대조한 결과 자료가 뒷받침하지 않아 보여 드리지 않습니다.",
    "ja": "根拠が不十分です：回答を資料と照合した結果、資料が裏付けていないため、表示しません。",
    "zh": "证据不足：该回答经与资料核对，资料并不支持其内容，因此不予显示。",
    "zh-Hant": "證據不足：該回答經與資料核對，資料並不支持其內容，因此不予顯示。",
}
#: The evidence (or the answer) does not cover what the question asks.
OFF_TOPIC = {
    "en": "Insufficient evidence: the sources available to me do not address this question.",
    "ko": "근거 부족: 제공된 자료는 이 질문의 내용을 다루지 않습니다.",
    "ja": "根拠が不十分です：参照できる資料はこの質問の内容を扱っていません。",
    "zh": "证据不足：现有资料没有涉及这个问题的内容。",
    "zh-Hant": "證據不足：現有資料沒有涉及這個問題的內容。",
}


def in_language(messages: Mapping[str, str], question: str) -> str:
    """The message of ``messages`` in the language (and, for Chinese, the script) of ``question``
    (English when it has none)."""
    return message_for(messages, detect_language(question), question)
