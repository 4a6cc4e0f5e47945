"""Evaluation: retrieval scoring (``eval retrieval``) and experiments (``eval run`` / ``eval report``).

- :mod:`~criss_rag.evaluation.experiment`: the experiment YAML, validated;
- :mod:`~criss_rag.evaluation.runner`: one durable record per (question, variant), resumable;
- :mod:`~criss_rag.evaluation.records`: the record model and its append-only JSONL file;
- :mod:`~criss_rag.evaluation.judging`: several judges' verdicts combined, and their agreement;
- :mod:`~criss_rag.evaluation.stats`: paired Wilcoxon, bootstrap CI, Holm;
- :mod:`~criss_rag.evaluation.report`: writes the report (Markdown, HTML, JSON and box plots) from
  :mod:`~criss_rag.evaluation.report_inputs` (options, the run, the values a record is scored on),
  :mod:`~criss_rag.evaluation.report_numbers` (every number), :mod:`~criss_rag.evaluation.report_plots`
  (box plots) and :mod:`~criss_rag.evaluation.report_rendering` (Markdown and HTML);
- :mod:`~criss_rag.evaluation.review`: the expert-review sheet, out and back in.
"""
