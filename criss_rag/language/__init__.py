"""Text in four languages: script detection, sentence splitting and per-script analyzers (``text``),
and Traditional/Simplified Chinese (``chinese_script``). Plugins reach these through
:mod:`criss_rag.plugin_utils`.
"""
