"""Which tests are in which tier: the marks `slow`, `integration` and `browser` (declared in
pyproject.toml, where `--strict-markers` makes a misspelt mark an error). `make test-fast` runs
every test with none of them: fakes and loopback stub servers, in under a minute; `make test`
runs everything.

tests/conftest.py gives each collected test its mark from the two tables below, so a test file
needs no decorator and a tier can be read in one place:

- ``TIER_BY_FILE``: files whose every test starts a real server or cluster (``integration``),
  drives Chromium (``browser``), or loads a real model or builds an index with real embeddings
  in a module fixture that every test shares (``slow``).
- ``SLOW_TESTS``: single tests of other files that take more than about 1 s. Measured with
  ``pytest --durations=0`` one file at a time on the shared 2-core development machine (the
  figure beside each name is that run's setup + call seconds, load average 8 to 17); a test that
  loads a real model, starts a subprocess interpreter or builds a real index is among them.

tests/test_tiers.py checks that every file and test named here exists, so a rename cannot leave a
slow test in the fast tier unnoticed. A new test that takes more than about a second belongs in
``SLOW_TESTS`` (or in a file of ``TIER_BY_FILE``).
"""

from __future__ import annotations

#: file -> the mark every test in it gets, and why
TIER_BY_FILE: dict[str, str] = {
    "test_default_pipeline.py": "slow",  # the default pipeline: MiniLM and e5 indexes of the example corpus
    "test_llamacpp.py": "slow",  # loads SmolLM2 into llama.cpp
    "test_llamacpp_server.py": "integration",  # starts llama.cpp's OpenAI-compatible server with SmolLM2
    "test_local_llm_pipeline.py": "slow",  # answers with SmolLM2 through examples/local-llm.yaml
    "test_milvus.py": "slow",  # Milvus Lite collections (a server process per test module)
    "test_milvus_server.py": "integration",  # starts the standalone Milvus server
    "test_multilingual_embeddings.py": "slow",  # e5 and USE embedding models
    "test_plugin_template.py": "slow",  # generates plugins with cookiecutter and runs their tests in a subprocess
    "test_ray.py": "slow",  # starts Ray in the test process
    "test_ray_cluster.py": "integration",  # starts a Ray cluster of `ray start` nodes
    "test_serve_browser.py": "browser",  # drives Debian's headless Chromium
}

#: file -> tests (function names; every parametrized case of one) marked ``slow``
SLOW_TESTS: dict[str, set[str]] = {
    "test_analyzers_cjk.py": {
        "test_kiwi_keeps_nouns",  # 9.0 s
        "test_kiwi_model_is_loaded_lazily_once_per_process",  # 8.1 s
        "test_jieba_words_without_punctuation_and_stopwords",  # 3.3 s
        "test_jieba_cache_dir_is_a_param_and_logging_is_silent",  # 3.0 s
        "test_plugins_register_their_analyzers",  # 1.7 s
    },
    "test_api.py": {
        "test_the_done_when_one_liner_runs_after_make_demo",  # 295.0 s
    },
    "test_basic_plugin.py": {
        "test_long_sections_are_split_into_numbered_pieces",  # 6.2 s
        "test_basic_plugin_registers_its_components",  # 1.1 s
    },
    "test_cache.py": {
        "test_a_paraphrase_hits_and_the_hit_is_marked_in_answer_and_trace",  # 37.1 s
        "test_near_misses_that_embed_alike_miss_and_the_trace_shows_the_facets",  # 18.6 s
        "test_the_size_is_bounded_and_the_least_recently_used_goes_first",  # 7.0 s
        "test_similarity_is_never_the_decision_an_unmatched_word_blocks_and_is_named",  # 6.6 s
        "test_a_question_that_only_sounds_alike_misses",  # 6.4 s
        "test_the_cache_persists_across_restarts",  # 5.6 s
        "test_a_reingested_changed_corpus_invalidates",  # 5.1 s
        "test_korean_and_japanese_questions_are_cached_within_their_language",  # 3.5 s
        "test_another_cancer_filter_or_diagnosis_year_misses",  # 1.8 s
    },
    "test_chat.py": {
        "test_cli_chat_with_piped_messages_prints_each_answer_on_its_own_line",  # 13.6 s
        "test_condensing_with_the_llm_the_config_names",  # 4.4 s
        "test_session_condenses_follow_ups_and_cites_every_turn",  # 1.8 s
    },
    "test_cli.py": {
        "test_real_cli_subprocess_validates_and_explains_the_default_pipeline",  # 42.7 s
        "test_eval_retrieval_with_a_corpus_override_picks_the_loader_by_suffix",  # 4.5 s
        "test_ingest_then_ask_text_and_json",  # 1.7 s
    },
    "test_config_labels.py": {
        "test_the_bundled_example_configs_name_only_what_they_have",  # 4.3 s
        "test_when_signal_missing_skip_is_reported_in_the_trace_every_time_it_skips",  # 2.0 s
    },
    "test_config_limits.py": {
        "test_an_alias_bomb_fails_in_seconds_with_a_short_error",  # 18.2 s
        "test_a_large_wrong_typed_value_gives_a_short_error",  # 1.0 s
    },
    "test_crawl.py": {
        "test_crawl_review_ingest_ask_cites_a_crawled_page",  # 10.2 s
        "test_every_linked_page_gets_one_row_with_its_status",  # 6.0 s
        "test_pages_fetched_for_a_review_are_added_to_the_page_cache",  # 4.1 s
        "test_llm_classifier_through_the_pipeline_llms",  # 3.9 s
        "test_rate_limit_spaces_every_request_of_a_crawl",  # 3.7 s
        "test_reviewed_rows_become_documents_from_the_cache",  # 3.2 s
    },
    "test_crawl_depth.py": {
        "test_a_traditional_chinese_question_is_answered_from_the_crawled_side_effects_page",  # 90.0 s
    },
    "test_crawl_limits.py": {
        "test_a_trickling_page_is_cut_off_at_its_deadline_with_status_timeout",  # 1.6 s
        "test_the_crawl_budget_leaves_the_rest_not_fetched",  # 1.1 s
    },
    "test_cross_lingual_terms.py": {
        "test_a_korean_question_finds_the_english_passage_end_to_end",  # 7.5 s
        "test_the_english_terms_name_the_population_the_cancer_type_and_the_intent",  # 5.0 s
    },
    "test_declined_refusal.py": {
        "test_a_declined_answer_streams_nothing_and_shows_the_fixed_message",  # 44.0 s
    },
}


def tier_of(file_name: str, test_name: str) -> str | None:
    """The mark of the test function ``test_name`` of ``tests/<file_name>``, or None (the fast tier)."""
    if file_name in TIER_BY_FILE:
        return TIER_BY_FILE[file_name]
    if test_name in SLOW_TESTS.get(file_name, ()):
        return "slow"
    return None
