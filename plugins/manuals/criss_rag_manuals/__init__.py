"""Registry manuals (PDF, HTML, Markdown) with their structure, and a chunker that respects it."""
