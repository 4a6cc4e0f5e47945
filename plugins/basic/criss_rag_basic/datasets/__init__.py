"""Loaders of one published dataset's own format each: MedQuAD's XML (:mod:`.medquad`) and the Korean
national cancer-information centre's JSON export (:mod:`.ncc`)."""
