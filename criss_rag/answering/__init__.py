"""Answering a question: the engine's steps after retrieval, and what they use.

The steps themselves (``steps``: refusal policy, numbered evidence, generation, checks), the
answer's citations (``citations``), a generator's stream turned into events (``streaming``), the
trace's stage records (``tracing``), the sentence checks (``sentence_check``;
``meaning_check`` with ``meaning_clauses`` and ``meaning_items``),
the generator's grounding policy (``grounding_policy``), the relevance verdict (``relevance``),
reasoning-model thinking (``thinking``), the ``cache:`` stage (``answer_cache``), multi-turn chat
(``chat``), the fixed refusal messages (``refusal_messages``) and the titles that tell sources apart
(``source_titles``). Internal: the public names are in :mod:`criss_rag` and
:mod:`criss_rag.plugin_utils`.
"""
