"""Which tests are in which tier: the marks `slow`, `integration` and `browser` (declared in
pyproject.toml, where `--strict-markers` makes a misspelt mark an error). `make test-fast` runs
every test with none of them: fakes and loopback stub servers; `make test`
runs everything.

tests/conftest.py gives each collected test its mark from the two tables below, so a test file
needs no decorator and a tier can be read in one place:

- ``TIER_BY_FILE``: files whose every test starts a real server or cluster (``integration``),
  drives Chromium (``browser``), or loads a real model or builds an index with real embeddings
  in a module fixture that every test shares (``slow``).
- ``SLOW_TESTS``: single tests of other files that take more than about 1 s. Measured with
  ``pytest --durations=0`` on the shared 2-core development machine, load average 8 to 17: one
  file at a time for the first files, then one run of everything left unmarked, in which a
  watchdog stopped any test past 20 s (the figure beside each name is the larger setup + call
  seconds seen). A test that loads a real model, starts a subprocess interpreter or builds a real
  index is among them.

tests/test_tiers.py checks that every file and test named here exists, so a rename cannot leave a
slow test in the fast tier unnoticed. A new test that takes more than about a second belongs in
``SLOW_TESTS`` (or in a file of ``TIER_BY_FILE``).
"""

from __future__ import annotations

#: file -> the mark every test in it gets, and why
TIER_BY_FILE: dict[str, str] = {
    "test_default_pipeline.py": "slow",  # the default pipeline: an e5 index of the example corpus
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
        "test_kiwi_sends_latin_runs_to_the_english_analysis",  # 3.9 s
        "test_jieba_function_words_are_not_content_words",  # 1.4 s
        "test_kiwi_pos_content_adds_stems_and_adverbs",  # 36.8 s
        "test_jieba_reads_both_scripts_alike_and_drops_question_words",  # 12.4 s
        "test_kiwi_keeps_nouns",  # 9.0 s
        "test_kiwi_model_is_loaded_lazily_once_per_process",  # 8.1 s
        "test_jieba_words_without_punctuation_and_stopwords",  # 3.3 s
        "test_jieba_cache_dir_is_a_param_and_logging_is_silent",  # 3.0 s
        "test_plugins_register_their_analyzers",  # 1.7 s
        "test_rrf_fusion_of_two_bm25_analyzers",  # 1.4 s
    },
    "test_api.py": {
        "test_the_done_when_one_liner_runs_after_make_demo",  # 295.0 s
    },
    "test_basic_plugin.py": {
        "test_long_sections_are_split_into_numbered_pieces",  # 6.2 s
        "test_basic_plugin_registers_its_components",  # 1.1 s
    },
    "test_cache.py": {
        "test_a_paraphrase_hits_and_the_hit_is_marked_in_answer_and_trace",  # 35.2 s
        "test_near_misses_that_embed_alike_miss_and_the_trace_shows_the_facets",  # 18.6 s
        "test_the_size_is_bounded_and_the_least_recently_used_goes_first",  # 7.0 s
        "test_similarity_is_never_the_decision_an_unmatched_word_blocks_and_is_named",  # 6.6 s
        "test_a_question_that_only_sounds_alike_misses",  # 6.4 s
        "test_the_cache_persists_across_restarts",  # 5.6 s
        "test_a_reingested_changed_corpus_invalidates",  # 5.1 s
        "test_korean_and_japanese_questions_are_cached_within_their_language",  # 3.5 s
        "test_another_cancer_filter_or_diagnosis_year_misses",  # 1.8 s
        "test_the_cache_and_the_dense_retriever_embed_each_question_once",  # 1.5 s
    },
    "test_chat.py": {
        "test_cli_chat_with_piped_messages_prints_each_answer_on_its_own_line",  # 13.6 s
        "test_streaming_a_follow_up",  # 7.2 s
        "test_condensing_with_the_llm_the_config_names",  # 4.4 s
        "test_session_condenses_follow_ups_and_cites_every_turn",  # 1.2 s
    },
    "test_cli.py": {
        "test_real_cli_subprocess_validates_and_explains_the_default_pipeline",  # 42.7 s
        "test_eval_retrieval_with_a_corpus_override_picks_the_loader_by_suffix",  # 4.5 s
        "test_ingest_then_ask_text_and_json",  # 1.7 s
    },
    "test_config_errors.py": {
        "test_errors_about_a_set_value_name_the_set",  # 3.3 s
    },
    "test_config_labels.py": {
        "test_the_bundled_example_configs_name_only_what_they_have",  # 4.0 s
        "test_when_signal_missing_skip_is_reported_in_the_trace_every_time_it_skips",  # 2.0 s
    },
    "test_config_limits.py": {
        "test_an_alias_bomb_fails_in_seconds_with_a_short_error",  # 18.2 s
        "test_a_large_wrong_typed_value_gives_a_short_error",  # 1.0 s
    },
    "test_crawl.py": {
        "test_classification_and_reasons",  # 4.9 s (setup)
        "test_crawl_review_ingest_ask_cites_a_crawled_page",  # 10.2 s
        "test_links_are_normalised_and_deduplicated",  # 6.2 s
        "test_every_linked_page_gets_one_row_with_its_status",  # 6.0 s
        "test_pages_fetched_for_a_review_are_added_to_the_page_cache",  # 4.1 s
        "test_llm_classifier_through_the_pipeline_llms",  # 3.9 s
        "test_rate_limit_spaces_every_request_of_a_crawl",  # 3.7 s
        "test_reviewed_rows_become_documents_from_the_cache",  # 3.2 s
        "test_crawl_errors",  # 1.5 s
    },
    "test_crawl_depth.py": {
        "test_a_traditional_chinese_question_is_answered_from_the_crawled_side_effects_page",  # 90.0 s
        "test_cli_depth_writes_depth_and_linking_page_columns",  # 1.0 s
    },
    "test_crawl_limits.py": {
        "test_a_trickling_page_is_cut_off_at_its_deadline_with_status_timeout",  # 1.6 s
        "test_the_crawl_budget_leaves_the_rest_not_fetched",  # 1.1 s
    },
    "test_cross_lingual_terms.py": {
        "test_a_korean_question_finds_the_english_passage_end_to_end",  # 5.3 s
        "test_the_english_terms_name_the_population_the_cancer_type_and_the_intent",  # 5.0 s
    },
    "test_declined_refusal.py": {
        "test_a_declined_answer_streams_nothing_and_shows_the_fixed_message",  # 38.5 s
    },
    "test_docs.py": {
        "test_every_python_block_runs",  # 20.1 s
        "test_every_bundled_component_is_in_the_yaml_reference",  # 1.9 s
        "test_yaml_reference_params_tables_are_generated_and_fresh",  # 1.9 s
        "test_names_on_lines_about_refusals_exist_in_the_code",  # 1.2 s
    },
    "test_domain_asked.py": {
        "test_cancer_name_terms_names_a_described_cancer_in_the_questions_language",  # 1.1 s
    },
    "test_embedding_steps.py": {
        "test_a_kill_during_the_embedding_of_a_small_corpus_keeps_the_finished_steps",  # 20.0 s
    },
    "test_evaluation.py": {
        "test_refused_questions_count_only_in_the_metrics_about_refusals",  # 6.5 s
        "test_report_metric_selection_forms_the_holm_family",  # 23.2 s
        "test_report_json_schema_tables_and_box_plots",  # 20.0 s
        "test_cli_eval_run_and_report",  # over 20 s (stopped)
        "test_expert_review_sheet_round_trip",  # 13.1 s
        "test_run_writes_one_complete_record_per_question_and_variant",  # 8.6 s
        "test_wilcoxon_matches_scipy_and_handles_ties_at_zero",  # 5.2 s
        "test_holm_matches_the_textbook_example",  # 4.6 s
        "test_concurrency_gives_the_same_records",  # 2.5 s
        "test_a_failing_question_is_recorded_and_retried_by_the_next_run",  # 2.4 s
        "test_a_crash_loses_at_most_the_record_in_flight_and_a_rerun_completes_without_duplicates",  # 2.2 s
    },
    "test_evaluation_runs.py": {
        "test_the_overview_plot_shows_every_compared_metric",  # over 20 s (stopped)
    },
    "test_example_plugin.py": {
        "test_the_plugins_own_tests_pass",  # 20.1 s
        "test_examples_pii_yaml_validates_and_is_the_default_pipeline_plus_the_filter",  # 1.2 s
    },
    "test_faiss.py": {
        "test_ivf_pq_uses_half_the_dimension_as_sub_quantizers_by_default",  # 13.7 s
        "test_search_time_settings_do_not_change_the_index",  # 1.4 s
    },
    "test_generation.py": {
        "test_configured_refusal_phrases_and_partial_answers",  # 1.4 s
        "test_a_stalled_server_is_a_timeout_error",  # 1.1 s
        "test_ollama_busy_then_success",  # 1.1 s
        "test_answer_cites_evidence_and_records_model_and_usage",  # 1.0 s
        "test_a_malformed_reply_says_what_to_check",  # 1.0 s
    },
    "test_grounding.py": {
        "test_cli_ask_shows_added_markers_and_the_removed_sentences_apart",  # 1.3 s
        "test_the_gated_stream_asks_the_verifier_once_per_sentence",  # 1.2 s
        "test_a_looping_model_says_each_sentence_once",  # 1.1 s
    },
    "test_import_graph.py": {
        "test_no_import_circles_in_criss_rag_and_plugins",  # 15.2 s
        "test_the_graph_covers_core_and_every_bundled_plugin",  # 9.1 s
    },
    "test_incremental_ingest.py": {
        "test_an_ingest_killed_half_way_keeps_the_previous_index_and_the_next_one_completes",  # 20.0 s
        "test_incremental_index_answers_like_a_whole_rebuild",  # 1.6 s
        "test_every_faiss_index_type_forgets_deleted_documents",  # 1.5 s
    },
    "test_ingest_limits.py": {
        "test_pathological_documents_among_normal_ones_are_chunked_and_the_rest_indexed",  # 193.1 s
    },
    "test_ingest_lock.py": {
        "test_a_lock_left_by_a_killed_ingest_is_recovered",  # 1.3 s
        "test_a_second_ingest_waits_for_the_first_and_does_no_work_twice",  # 1.2 s
        "test_orphan_versions_are_removed_by_the_next_ingest_even_when_up_to_date",  # 1.2 s
    },
    "test_jlcs.py": {
        "test_preset_names_the_japanese_systems_components",  # 1.0 s
    },
    "test_judges.py": {
        "test_criss_models_example_runs_against_loopback_servers",  # 20.1 s
        "test_two_disagreeing_judges_in_a_run",  # 6.2 s
        "test_malformed_twice_is_a_parse_failure_never_a_zero",  # 1.4 s
        "test_a_malformed_reply_is_retried_with_the_reason",  # 1.3 s
    },
    "test_lazy_imports.py": {
        "test_default_pipeline_question_loads_only_what_its_language_needs",  # 17.1 s (cold ask in a subprocess)
        "test_validate_and_explain_load_no_model",  # 4.3 s
        "test_a_configured_analyzer_is_imported_when_used",  # 20.1 s
        "test_bm25_only_pipeline_imports_no_model_or_cjk_analyzer",  # 20.1 s
        "test_listing_plugins_imports_no_heavy_library",  # 20.1 s
        "test_help_loads_every_plugin_but_not_llama_index_nor_a_component_module",  # 8.0 s
    },
    "test_metrics.py": {
        "test_bertscore_names_its_model_and_ranks_a_paraphrase_above_an_unrelated_text",  # over 20 s (stopped)
        "test_embedding_cosine",  # over 20 s (stopped)
    },
    "test_plain_corpus.py": {
        "test_default_pipeline_ingests_and_answers_a_corpus_without_section_metadata",  # over 20 s (stopped)
    },
    "test_plugin_surface.py": {
        "test_every_plugin_file_imports_only_public_modules",  # 2.8 s
    },
    "test_plugin_switches.py": {
        "test_load_plugins_selects_and_all_lists_the_rest",  # 20.1 s
        "test_hook_filter",  # 10.6 s
        "test_trace_plugins_logs_each_hook_call_with_timing",  # 6.0 s
        "test_strict_switch_from_the_shell",  # 2.5 s
    },
    "test_plugins.py": {
        "test_installed_example_plugin_is_found_through_its_entry_point",  # 19.6 s
        "test_plugin_raising_on_import_is_reported_and_skipped",  # 6.2 s
        "test_plugin_raising_on_import_is_fatal_in_strict_mode",  # 2.6 s
    },
    "test_quickstart.py": {
        "test_the_readme_pipeline_answers_a_treatment_question_from_the_treatment_passage",  # over 20 s (stopped)
    },
    "test_remote_backends.py": {
        "test_faiss_end_to_end_through_the_ollama_embedding_server",  # 6.1 s
        "test_stub_server_scripting_and_routes",  # 2.9 s
        "test_ollama_embedding_errors_and_retries",  # 1.9 s
        "test_ollama_stub_routes",  # 1.5 s
    },
    "test_rerankers.py": {
        "test_cross_encoder_scores_with_the_model_and_reorders",  # over 20 s (stopped)
        "test_cross_encoder_rescores_only_the_top_candidates_and_can_prefix_titles",  # over 20 s (stopped)
        "test_cross_encoder_from_yaml",  # over 20 s (stopped)
        "test_cross_encoder_broken_model_folder_is_a_config_error",  # over 20 s (stopped)
    },
    "test_sentence_check_engine.py": {
        "test_the_cli_shows_why_a_sentence_was_not_shown",  # 1.8 s
        "test_meaning_is_named_in_yaml_and_lexical_stays_available",  # 1.3 s
        "test_the_built_in_check_reads_meaning_and_says_why",  # 1.2 s
    },
    "test_serve.py": {
        "test_a_hanging_llm_times_out_its_request_while_others_are_answered",  # 6.1 s
        "test_health_reports_index_components_and_corpus_version",  # 2.8 s
        "test_a_failing_llm_is_a_502_without_internals_and_the_log_has_the_details",  # 2.1 s
        "test_an_llm_streams_korean_token_by_token_and_the_tokens_join_to_the_answer",  # 2.1 s
        "test_openapi_and_docs_are_published",  # 1.8 s
        "test_the_bearer_token_guards_ask_and_chat",  # 1.2 s
    },
    "test_serve_limits.py": {
        "test_clients_dropping_sse_streams_mid_answer_leave_nothing_running",  # 3.4 s
        "test_a_slow_body_gets_408_and_normal_requests_still_pass",  # 1.4 s
        "test_a_client_that_never_finishes_its_headers_is_disconnected",  # 1.1 s
        "test_headers_sent_a_byte_at_a_time_are_cut_off_at_the_deadline",  # 1.1 s
    },
    "test_serve_openai.py": {
        "test_criss_rag_serve_default_yaml_answers_the_openai_client",  # 20.1 s
        "test_the_sources_block_can_be_left_out_per_request_or_per_server",  # 1.5 s
        "test_the_bearer_token_is_needed",  # 1.0 s
    },
    "test_serve_request_errors.py": {
        "test_malformed_json_names_the_body_and_where_it_broke",  # 1.1 s
    },
    "test_serve_versions.py": {
        "test_a_request_keeps_its_version_through_a_reingest_and_the_next_gets_the_new_one",  # 1.3 s
        "test_a_stream_keeps_its_version_too",  # 1.2 s
        "test_no_reload_keeps_the_version_and_says_a_restart_is_needed",  # 1.0 s
    },
}


def tier_of(file_name: str, test_name: str) -> str | None:
    """The mark of the test function ``test_name`` of ``tests/<file_name>``, or None (the fast tier)."""
    if file_name in TIER_BY_FILE:
        return TIER_BY_FILE[file_name]
    if test_name in SLOW_TESTS.get(file_name, ()):
        return "slow"
    return None
