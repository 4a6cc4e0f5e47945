"""The README's pipeline YAML, followed literally on a team-written corpus whose overview page also
talks about treatment: "How is thyroid cancer treated?" is answered from the treatment passage."""

from __future__ import annotations

import json
import re
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost

ROOT = Path(__file__).resolve().parents[1]
CORPUS = [
    {"doc_id": "thyroid-overview", "title": "Thyroid cancer: overview", "section": "overview",
     "text": "Thyroid cancer is a cancer that starts in the thyroid gland at the front of the neck. Most thyroid "
             "cancers grow slowly, and thyroid cancer is usually treated successfully. Thyroid cancer is more common "
             "in women than in men, and it is often found during a neck scan done for another reason."},
    {"doc_id": "thyroid-treatment", "title": "Thyroid cancer: treatment", "section": "treatment",
     "text": "Surgery to remove all or part of the thyroid gland is the main treatment. After surgery, some people "
             "are given radioactive iodine to destroy any thyroid tissue that is left. People whose whole thyroid "
             "has been removed take hormone tablets every day for life."},
    {"doc_id": "lung-symptoms", "title": "Lung cancer: symptoms", "section": "symptoms",
     "text": "A cough that does not go away is the most common symptom of lung cancer. Coughing up blood, chest pain "
             "and breathlessness can also be signs of lung cancer."},
    {"doc_id": "breast-screening", "title": "Breast cancer: screening", "section": "screening",
     "text": "Mammography is an X-ray of the breast. Regular mammograms can find breast cancer before it causes "
             "symptoms."},
]


def readme_pipeline() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r"## A pipeline in YAML\n\n```yaml\n(.*?)```", readme, re.S).group(1)


def test_the_readme_pipeline_answers_a_treatment_question_from_the_treatment_passage(tmp_path):
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in CORPUS) + "\n", encoding="utf-8")
    (tmp_path / "my.yaml").write_text(readme_pipeline() + "index: {dir: index}\n", encoding="utf-8")
    engine = Engine.open(Pipeline.from_file(tmp_path / "my.yaml", PluginHost(strict=True)), build_if_missing=True)
    answer = engine.ask("How is thyroid cancer treated?")
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == "thyroid-treatment"
    assert answer.sentences[0].text.startswith("Surgery to remove all or part of the thyroid gland")
    assert engine.ask("What is the capital of France?").refused
