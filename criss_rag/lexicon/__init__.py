"""Shared multilingual medical vocabulary: what the sentence check, the answer cache and the domain
plugins read from questions and sentences in English, Korean, Japanese and Chinese.

- :mod:`criss_rag.lexicon.normalize`: one normal form for text that is compared (NFKC, dashes,
  apostrophes).
- :mod:`criss_rag.lexicon.stopwords`: the English stopword list (retrieval's analyzers) and the
  sentence alignment's variant of it; :mod:`criss_rag.lexicon.cancer_names`: the head words of
  cancer names per language (the chat's topic finder).
- :mod:`criss_rag.lexicon.facet_words`: the word lists per language, joined from
  :mod:`~criss_rag.lexicon.cancer_kind_words` (subtypes, biomarkers, disease state, tissue families),
  :mod:`~criss_rag.lexicon.population_words`, :mod:`~criss_rag.lexicon.treatment_words` (lines of
  therapy, treatments, tests, drugs), :mod:`~criss_rag.lexicon.aspect_words` (directions, timing, what
  is asked) and :mod:`~criss_rag.lexicon.site_words`; the negation cues.
- :mod:`criss_rag.lexicon.facets`: :func:`~criss_rag.lexicon.facets.extract` reads a question or
  sentence into its medically decisive :class:`~criss_rag.lexicon.facets.Facets`.
- for the sentence check (:mod:`criss_rag.answering.meaning_check`): :mod:`~criss_rag.lexicon.claims` (a sentence's
  decisive items), :mod:`~criss_rag.lexicon.quantities` (numbers in any notation, compared by
  value), :mod:`~criss_rag.lexicon.negation` (cues and scope),
  :mod:`~criss_rag.lexicon.directions` (scales, comparison standards, stronger claims),
  :mod:`~criss_rag.lexicon.terms` (paraphrase-tolerant content terms),
  :mod:`~criss_rag.lexicon.edits` (one changed span or two exchanged spans in a near copy); Traditional Chinese
  is folded to Simplified by :func:`criss_rag.language.chinese_script.simplified_chars` (OpenCC's character table).
- :mod:`criss_rag.lexicon.equivalence`: :func:`~criss_rag.lexicon.equivalence.compare` decides
  whether two questions ask the same thing, every content word of each matched in the other
  (the semantic cache's decision), reading each script with :mod:`~criss_rag.lexicon.latin_units`,
  :mod:`~criss_rag.lexicon.korean_units` and :mod:`~criss_rag.lexicon.japanese_chinese_units`
  (shared pieces: :mod:`~criss_rag.lexicon.content_unit`); :mod:`criss_rag.lexicon.synonyms` and
  :mod:`criss_rag.lexicon.function_words` are its word lists.

Plugins import these (they are part of the plugin surface) instead of keeping copies.
"""
