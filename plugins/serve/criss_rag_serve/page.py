"""What the chat page says before the first question: what the assistant answers from (the corpus's
name, its document count, when the index was last built), what it is not (a notice a medical
deployer sets, in each reader's language), and example questions in the reader's language.

``criss-rag serve CONFIG --page PAGE.yaml`` reads these settings; without a file the page names the
pipeline as its corpus, shows the built-in notice and no example questions. ``GET /page.json``
serves them to the page.

Example ``PAGE.yaml``::

    corpus: {en: "the national cancer information centre's pages", ko: "국가암정보센터 자료"}
    notice:
      en: "This is not medical advice. Talk to your doctor about your care."
      ko: "의료 상담을 대신하지 않습니다. 치료는 담당 의사와 상의하세요."
    examples:
      en: ["How is thyroid cancer treated?"]
      ko: ["갑상선암은 어떻게 치료하나요?"]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import read_yaml_file

#: the languages the page speaks (its own words, the notice and the example questions)
LANGUAGES = ("en", "ko", "ja", "zh")
#: shown when the deployer sets no notice: what the assistant is not, in each language
DEFAULT_NOTICE = {
    "en": "This assistant gives general information from the sources it names. It is not a doctor and not "
    "medical advice: it cannot diagnose you or choose a treatment. For decisions about your care, talk to "
    "your doctor or nurse. In an emergency, call your local emergency number.",
    "ko": "이 도우미는 안내된 자료에 있는 일반적인 정보만 알려 드립니다. 의사가 아니며 의료 상담을 대신하지 "
    "않습니다. 진단이나 치료 결정은 담당 의사나 간호사와 상의하세요. 응급 상황이면 바로 응급 번호로 연락하세요.",
    "ja": "このアシスタントは、示した資料にある一般的な情報だけをお伝えします。"
    "医師ではなく、医療相談の代わりにはなりません。"
    "診断や治療の判断は、担当の医師や看護師にご相談ください。緊急のときは、すぐに救急の番号に連絡してください。",
    "zh": "本助手只提供所列资料中的一般信息。它不是医生，不能代替医疗建议，也不能诊断或选择治疗。"
    "有关您的治疗，请咨询您的医生或护士。紧急情况请拨打当地急救电话。",
}


class PageSettings(BaseModel):
    """What the chat page shows before the first question (``--page PAGE.yaml``)."""

    model_config = ConfigDict(extra="forbid")
    corpus: str | dict[str, str] | None = Field(
        None, description="the name of the sources the assistant answers from, one name or language -> name; "
                          "default: the pipeline's name")
    notice: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_NOTICE),
                                   description="language -> the medical notice (what the assistant is not); "
                                               "a language left out shows the built-in notice")
    examples: dict[str, list[str]] = Field(default_factory=dict, description="language -> example questions "
                                           "the reader can click (a few, short)")

    @field_validator("corpus", "notice", "examples")
    @classmethod
    def _languages(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        unknown = [key for key in value if key not in LANGUAGES]
        if unknown:
            raise ValueError(f"language {unknown[0]!r} is not one the page speaks ({', '.join(LANGUAGES)})")
        return value


def read_page_settings(path: Path) -> PageSettings:
    """``PageSettings`` from a YAML file; an error names the file and the key."""
    data = read_yaml_file(path) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with corpus, notice, examples")
    try:
        return PageSettings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise ConfigError(f"{path}: {where}: {first['msg']} (keys: corpus, notice, examples)") from None


def page_info(settings: PageSettings, pipeline: str, documents: int, built: str) -> dict[str, Any]:
    """The landing state as ``GET /page.json`` serves it; ``updated`` is the index's build date."""
    names = settings.corpus if isinstance(settings.corpus, dict) else {"en": settings.corpus or pipeline}
    corpus = {lang: names.get(lang) or names.get("en") or next(iter(names.values()), pipeline) for lang in LANGUAGES}
    return {"corpus": corpus, "documents": documents, "updated": built[:10],
            "notice": {**DEFAULT_NOTICE, **settings.notice}, "examples": settings.examples}
