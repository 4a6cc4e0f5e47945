"""English stopwords: the one list of words with no topic, and the sentence alignment's variant of it.

:data:`ENGLISH` is what the ``english`` and ``standard`` analyzers drop before stemming (retrieval
indexes and questions are analyzed with it). :data:`ALIGNMENT` is what
:mod:`criss_rag.lexicon.terms` drops when it aligns an answer sentence with a passage sentence: the
same list without the words the sentence check compares (negation, time and order, place, modals,
amounts) and the pronouns and contraction pieces it never dropped, plus hedges, frequency words and
light verbs that reword freely between an answer and its passage. Question frames per language
(what, which, how; Korean particles; Japanese auxiliaries) are a different list:
:mod:`criss_rag.lexicon.function_words`.
"""

from __future__ import annotations

#: Common English function words, question words included (they carry no topic).
ENGLISH = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself just me more most my
    no nor not now of off on once only or other our ours out over own same she should so some such
    than that the their theirs them then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    s t can will don shouldn may might must also get""".split()
)

#: Words of :data:`ENGLISH` that sentence alignment keeps as content.
ALIGNMENT_KEPT = frozenset(
    """no nor not
    after again before during further now once until
    above against below through
    must should shouldn
    few too own
    am doing having me my him hers itself ours theirs yours here get don s t""".split()
)

#: Words outside :data:`ENGLISH` that sentence alignment drops too: hedges, frequency and amount
#: words, relational and light words a paraphrase adds or leaves out (``between`` of a range among them).
ALIGNMENT_EXTRA = frozenset(
    """although though whereas since yet still even either
    often usually
    less many much another one ones
    among per via within without whose
    called known include includes including like well
    somewhere roughly approximately around whatever whichever whenever""".split()
)

#: What :mod:`criss_rag.lexicon.terms` drops from English sentences.
ALIGNMENT = (ENGLISH - ALIGNMENT_KEPT) | ALIGNMENT_EXTRA
