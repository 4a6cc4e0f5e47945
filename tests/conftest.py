from __future__ import annotations

import os

import pytest
from tiers import tier_of

# Any accidental model-hub lookup fails at once instead of waiting on the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give each test its tier mark from tests/tiers.py (``make test-fast`` deselects the marked)."""
    for item in items:
        mark = tier_of(item.path.name, getattr(item, "originalname", item.name))
        if mark is not None:
            item.add_marker(getattr(pytest.mark, mark))


@pytest.fixture
def host():
    from criss_rag.testing import plugin_host

    return plugin_host()
