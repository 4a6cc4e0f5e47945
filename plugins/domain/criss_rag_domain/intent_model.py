"""What a question asks, learned: a classifier over the pipeline's question embedding.

Cue phrases (:mod:`criss_rag_domain.intents`) know a section only by the words listed for it, and
people ask in others: "위암은 위 어느 층에서 시작돼요?", "内視鏡で取ったあとも検査は続けるの？".
An :class:`IntentModel` is a multinomial logistic regression over the question's embedding,
trained on questions whose right page is known. Its classes are intents (overview, symptoms,
treatment...), so one model serves any corpus whose sections ``intent-boost``'s ``sections``
maps. It stores the name of the embedding it was trained on and refuses another.

:class:`IntentReader` reads a question with both: the model decides when its likeliest intent is
probable enough (``min_probability``), the cues otherwise, and the cues alone over a corpus with
sections the model was not trained on (MedQuAD's causes, outlook, research...).

The built-in model (``intent_model.npz`` beside this module) was trained on the example corpus's
question sets by ``benchmarks/train_intent_model.py`` (``make intent-model``); docs/benchmarks.md
reports it on questions it was not trained on.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag_domain.intents import IntentLexicon

BUILTIN = "builtin"
BUILTIN_FILE = Path(__file__).with_name("intent_model.npz")


@dataclass(frozen=True)
class IntentModel:
    """Intent probabilities from a question's unit-length embedding: ``softmax(coef @ v + intercept)``."""

    classes: tuple[str, ...]
    coef: np.ndarray        # (classes, dimensions)
    intercept: np.ndarray   # (classes,)
    embedding: str          # the model name of the embedding it was trained on
    trained_on: str = ""    # what it learned from (the question sets)

    @classmethod
    def load(cls, path: str | Path) -> IntentModel:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"intent model {path} not found: give the path of a file written by "
                              f"benchmarks/train_intent_model.py, or `{BUILTIN}`")
        try:
            with np.load(path, allow_pickle=False) as data:
                about = json.loads(str(data["about"]))
                return cls(tuple(about["classes"]), data["coef"], data["intercept"], about["embedding"],
                           about.get("trained_on", ""))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise ConfigError(
                f"intent model {path} cannot be read ({type(exc).__name__}: {exc}): write it again with "
                "benchmarks/train_intent_model.py (`make intent-model` for the built-in one)"
            ) from None

    def save(self, path: str | Path) -> None:
        """Writes the model atomically (a temporary file in the same folder, then a rename)."""
        path = Path(path)
        about = {"classes": list(self.classes), "embedding": self.embedding, "trained_on": self.trained_on}
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as out:
                np.savez(out, coef=self.coef.astype(np.float32), intercept=self.intercept.astype(np.float32),
                         about=np.array(json.dumps(about)))
            os.chmod(tmp, 0o644)  # mkstemp makes it private; a model is read by whoever runs the pipeline
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def probabilities(self, vector: np.ndarray) -> dict[str, float]:
        logits = self.coef @ np.asarray(vector, dtype=np.float32) + self.intercept
        odds = np.exp(logits - logits.max())
        return dict(zip(self.classes, (odds / odds.sum()).tolist(), strict=True))

    def likeliest(self, vector: np.ndarray) -> tuple[str, float]:
        """The most probable intent, with its probability."""
        probabilities = self.probabilities(vector)
        best = max(probabilities, key=probabilities.__getitem__)
        return best, probabilities[best]

    def check_embedding(self, name: str, stage: str) -> None:
        if name != self.embedding:
            raise ConfigError(
                f"stage {stage}: the intent model was trained on the embedding {self.embedding!r} and the "
                f"pipeline embeds with {name!r}: its vectors mean nothing to the model. Use that embedding, "
                "train a model for yours (benchmarks/train_intent_model.py), or set `intent_model: null`"
            )


def train(vectors: np.ndarray, labels: Sequence[str], *, embedding: str, strength: float = 10.0,
          trained_on: str = "") -> IntentModel:
    """Fits the model on unit-length question vectors and their intents (scikit-learn's
    LogisticRegression, multinomial, L2 with ``C = strength``)."""
    from sklearn.linear_model import LogisticRegression

    fitted = LogisticRegression(C=strength, max_iter=5000).fit(np.asarray(vectors), list(labels))
    return IntentModel(tuple(str(c) for c in fitted.classes_), fitted.coef_.astype(np.float32),
                       fitted.intercept_.astype(np.float32), embedding, trained_on)


class IntentReader:
    """A question's intents from the cue lexicon and, when given, the learned model.

    The model's most probable intent decides when its probability reaches ``min_probability``,
    the cues when it does not (or when no model is given). A model tells apart only the sections
    it was trained on: over a corpus with a section none of its intents is on (MedQuAD's causes,
    outlook, research...), :meth:`read_sections` sets it aside and the cues read every question."""

    def __init__(self, lexicon: IntentLexicon, model: IntentModel | None = None,
                 embed: Callable[[str], np.ndarray] | None = None, min_probability: float = 0.5) -> None:
        if model is not None and embed is None:
            raise ValueError("an intent model needs the function that embeds a question")
        self.lexicon = lexicon
        self.model = model
        self.embed = embed
        self.min_probability = min_probability
        self.set_aside = False

    def read_sections(self, sections: Iterable[str]) -> str | None:
        """Sets the model aside when one of the corpus's ``sections`` (their values, e.g. Overview,
        치료, causes) is read by the cues as none of its intents; returns why, for the corpus
        warnings (None: it is used)."""
        if self.model is None:
            return None
        unknown = sorted(s for s in set(sections) if not set(self.lexicon.detect(s)) & set(self.model.classes))
        self.set_aside = bool(unknown)
        if not unknown:
            return None
        return (f"the intent model knows {', '.join(self.model.classes)} and the corpus also has the sections "
                f"{', '.join(unknown[:8])}{' ...' if len(unknown) > 8 else ''}: questions are read by the cues "
                "alone (train a model on questions over this corpus: benchmarks/train_intent_model.py)")

    @property
    def intents(self) -> list[str]:
        return self.lexicon.intents

    def detect(self, text: str) -> list[str]:
        if self.model is None or self.embed is None or self.set_aside:
            return self.lexicon.detect(text)
        best, probability = self.model.likeliest(self.embed(text))
        return [best] if probability >= self.min_probability else self.lexicon.detect(text)


def intent_reader(lexicon: IntentLexicon, spec: str | None, min_probability: float,
                  ctx: ComponentContext) -> IntentReader:
    """The cues, with the intent model ``spec`` names (checked against the pipeline's embedding)."""
    if spec is None:
        return IntentReader(lexicon)
    model = IntentModel.load(BUILTIN_FILE if spec == BUILTIN else ctx.resolve_path(spec))
    model.check_embedding(ctx.embedding().model_name, ctx.stage)
    unknown = sorted(set(model.classes) - set(lexicon.intents))
    if unknown:
        raise ConfigError(f"stage {ctx.stage}: the intent model's classes {unknown} are no intent of the cue "
                          f"lexicon; known: {sorted(lexicon.intents)} (define them under `cues`)")
    return IntentReader(lexicon, model, ctx.embed_query, min_probability)
