"""The shapes of the facet word lists' entries (types only: nothing here runs when the lists load).

A table of :mod:`criss_rag.lexicon.cancer_kind_words`, :mod:`~criss_rag.lexicon.population_words`,
:mod:`~criss_rag.lexicon.treatment_words`, :mod:`~criss_rag.lexicon.aspect_words` or
:mod:`~criss_rag.lexicon.site_words` holds, per language, :data:`Word` tuples; :mod:`criss_rag.lexicon.facet_words`
compiles them into :data:`Entry` tuples.
"""

from __future__ import annotations

import re

#: ``(pattern, facet, value, blank)`` as written: a regular expression, the facet it reads, the value
#: (``None``: the matched text) and whether a match is removed from the text once read
Word = tuple[str, str, "str | None", bool]
#: a :data:`Word` with its pattern compiled
Entry = tuple[re.Pattern, str, "str | None", bool]
