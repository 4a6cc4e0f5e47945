"""The learned intent model: a classifier over the question's embedding, read beside the cue lexicon
by `intent-boost` and `cross-lingual-hop` (criss_rag_domain.intent_model)."""

from __future__ import annotations

import stat
from types import SimpleNamespace

import numpy as np
import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from criss_rag.errors import ConfigError
from criss_rag.types import Hit, Query
from criss_rag_domain.intent_boost import IntentBoost
from criss_rag_domain.intent_model import BUILTIN_FILE, IntentModel, IntentReader, train
from criss_rag_domain.intents import IntentLexicon
from criss_rag_domain.section_gap import CrossLingualHop

EMBEDDING = "fake-words-embedding"
# a fake embedding: one dimension per word a question of that intent uses; never a cue of intents.yaml
WORDS = ["bothers", "rid", "goes", "hurts", "pill", "far"]


def embed(text: str) -> np.ndarray:
    vector = np.array([float(word in text) for word in WORDS]) + 0.01
    return vector / np.linalg.norm(vector)


def fake_model() -> IntentModel:
    texts = ["what bothers", "it hurts", "get rid of it", "a pill for it", "how far it goes", "far gone"]
    labels = ["symptoms", "symptoms", "treatment", "treatment", "stages", "stages"]
    return train(np.array([embed(t) for t in texts]), labels, embedding=EMBEDDING, trained_on="six questions")


def hit(node_id: str, score: float, section: str) -> Hit:
    node = TextNode(id_=node_id, text="text", metadata={"doc_id": node_id, "section": section})
    return Hit(NodeWithScore(node=node, score=score), {"retriever": score})


class FakeContext(SimpleNamespace):
    def __init__(self, tmp_path, embedding=EMBEDDING) -> None:
        super().__init__(stage="rerankers[0]", base_dir=tmp_path)
        self.embedded: list[str] = []
        self._name = embedding

    def resolve_path(self, path):
        return self.base_dir / path

    def embedding(self):
        return SimpleNamespace(model_name=self._name)

    def embed_query(self, text):
        self.embedded.append(text)
        return embed(text)


def test_the_model_gives_a_probability_per_intent_and_learns_words_no_cue_holds():
    model = fake_model()
    probabilities = model.probabilities(embed("how do I get rid of it"))
    assert set(probabilities) == {"stages", "symptoms", "treatment"}
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert max(probabilities, key=probabilities.__getitem__) == "treatment"
    assert IntentLexicon().detect("how do I get rid of it") == []  # the cues read nothing here


def test_a_saved_model_loads_the_same_and_is_readable_by_others(tmp_path):
    model, path = fake_model(), tmp_path / "model.npz"
    model.save(path)
    loaded = IntentModel.load(path)
    assert loaded.classes == model.classes and loaded.embedding == EMBEDDING and loaded.trained_on == "six questions"
    assert loaded.probabilities(embed("it hurts")) == pytest.approx(model.probabilities(embed("it hurts")))
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left


def test_a_missing_model_file_says_what_to_give(tmp_path):
    with pytest.raises(ConfigError, match=r"intent model .*nope\.npz not found.*train_intent_model\.py.*builtin"):
        IntentModel.load(tmp_path / "nope.npz")


def test_a_damaged_model_file_says_how_to_write_it_again(tmp_path):
    (tmp_path / "broken.npz").write_bytes(b"not a model")
    with pytest.raises(ConfigError, match=r"broken\.npz cannot be read .*train_intent_model\.py"):
        IntentModel.load(tmp_path / "broken.npz")
    np.savez(tmp_path / "half.npz", coef=np.zeros((2, 3)))  # no intercept, no classes
    with pytest.raises(ConfigError, match=r"half\.npz cannot be read \(KeyError"):
        IntentModel.load(tmp_path / "half.npz")


def test_the_model_decides_when_sure_and_the_cues_when_not():
    lexicon = IntentLexicon()
    sure = IntentReader(lexicon, fake_model(), embed, min_probability=0.5)
    assert sure.detect("how far does it goes, what symptoms") == ["stages"]  # the model, over the cue
    unsure = IntentReader(lexicon, fake_model(), embed, min_probability=0.99)
    assert unsure.detect("how far does it goes, what symptoms") == ["symptoms"]  # the cue
    assert IntentReader(lexicon).detect("what symptoms") == ["symptoms"]  # no model: the cues
    with pytest.raises(ValueError, match="needs the function that embeds"):
        IntentReader(lexicon, fake_model())


def test_intent_boost_reads_the_model_through_the_pipelines_embedding(tmp_path):
    fake_model().save(tmp_path / "intents.npz")
    ctx = FakeContext(tmp_path)
    boost = IntentBoost(IntentBoost.Params(intent_model="intents.npz", sections={"treatment": ["Treatment"]}), ctx)
    hits = [hit("a", 1.0, "Symptoms"), hit("b", 0.9, "Treatment")]
    assert [h.node_id for h in boost.rerank(Query("how do I get rid of it"), hits)] == ["b", "a"]
    assert ctx.embedded == ["how do I get rid of it"]


def test_a_model_trained_on_another_embedding_is_refused_with_the_way_out(tmp_path):
    fake_model().save(tmp_path / "intents.npz")
    with pytest.raises(ConfigError, match=r"trained on the embedding 'fake-words-embedding'.*pipeline embeds with "
                                          r"'other'.*train_intent_model\.py.*intent_model: null"):
        IntentBoost(IntentBoost.Params(intent_model="intents.npz"), FakeContext(tmp_path, embedding="other"))


def test_a_model_whose_intents_the_cues_do_not_know_is_refused(tmp_path):
    model = fake_model()
    IntentModel(("side-effects", *model.classes[1:]), model.coef, model.intercept, EMBEDDING).save(tmp_path / "m.npz")
    with pytest.raises(ConfigError, match=r"classes \['side-effects'\] are no intent.*define them under `cues`"):
        IntentBoost(IntentBoost.Params(intent_model="m.npz"), FakeContext(tmp_path))


def test_the_hop_searches_in_english_for_the_intent_the_model_reads(tmp_path):
    fake_model().save(tmp_path / "intents.npz")
    policy = CrossLingualHop(CrossLingualHop.Params(intent_model="intents.npz"), FakeContext(tmp_path))
    policy.check_corpus([SimpleNamespace(text="胃癌的治疗方法。", metadata={"section": "治疗"}),
                         SimpleNamespace(text="Stomach cancer stages.", metadata={"section": "Staging"})])
    # "stomach cancer, how far goes": no stage cue, the model reads stages, which only English has
    assert policy.next_query(Query("胃癌 far goes"), [], 1) == "Stomach (gastric) cancer stages"
    assert policy.next_query(Query("胃癌 rid pill"), [], 1) is None  # treatment: the Chinese page is there


def test_the_builtin_model_is_trained_on_the_e5_embedding_over_the_example_corpus_sections():
    from criss_rag_e5.embedding import MODEL_NAME

    model = IntentModel.load(BUILTIN_FILE)
    assert model.embedding == MODEL_NAME
    assert set(model.classes) == {"overview", "symptoms", "diagnosis", "stages", "treatment", "prevention"}
    assert set(model.classes) <= set(IntentLexicon().intents)
    assert model.coef.shape == (6, 384) and "questions of" in model.trained_on


def test_over_a_corpus_with_sections_the_model_does_not_know_the_cues_read_the_questions(tmp_path):
    fake_model().save(tmp_path / "intents.npz")
    boost = IntentBoost(IntentBoost.Params(intent_model="intents.npz"), FakeContext(tmp_path))
    known = [SimpleNamespace(metadata={"section": s}) for s in ("Symptoms", "치료", "Staging")]
    assert boost.check_corpus(known) is None
    assert boost.intents.detect("how far does it goes, what symptoms") == ["stages"]  # the model
    warning = boost.check_corpus([*known, SimpleNamespace(metadata={"section": "causes"})])
    assert warning is not None and "also has the sections causes: questions are read by the cues alone" in warning
    assert boost.intents.detect("how far does it goes, what symptoms") == ["symptoms"]  # the cues

    policy = CrossLingualHop(CrossLingualHop.Params(intent_model="intents.npz"), FakeContext(tmp_path))
    note = policy.check_corpus([SimpleNamespace(text="Stomach cancer causes.", metadata={"section": "causes"})])
    assert note is not None and note.startswith("hop policy 'cross-lingual-hop': the intent model knows")
