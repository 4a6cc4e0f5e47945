"""criss_rag domain plugin: a multilingual cancer-type lexicon, the Korean system's hard
cancer-type filter, and soft cancer-type and question-intent boosts."""
