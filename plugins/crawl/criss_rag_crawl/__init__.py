"""criss_rag plugin for web guidelines, the Japanese guideline chatbot's workflow: crawl the
table of contents into a review spreadsheet (medical vs non-medical), let a person mark the rows
to keep, then ingest one document per kept page."""
