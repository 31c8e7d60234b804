"""What a scorecard table build keeps out of memory (issue 28, "Build memory").

The Yahtzee build's peak is mostly the modules it has imported, so the build path avoids
three of them: OpenSSL (``hashlib``; the rules variant id uses CPython's own sha256),
``numpy.ma`` (loaded by ``np.unique``'s hash path; the models use
:func:`~kocka.solver.models.card_model.sorted_unique`), and the target solver with its
kernel (``solver_for`` imports only the kind asked for). Each replacement must give the
same bytes as what it replaces: the digests (so every table's variant id and checksum
stay the same) and the model arrays.
"""
from __future__ import annotations

import dataclasses
import hashlib
import subprocess
import sys

import numpy as np
import pytest

from kocka.solver.base.short_digest import sha256
from kocka.solver.models import card_model
from kocka.solver.rules import get_game
from kocka.solver.solvers.scorecard import model as scorecard_model

SCORECARD_GAMES = ("yahtzee", "yatzy", "kockapoker", "slovak")


@pytest.mark.parametrize("data", [b"", b"abc", b"yahtzee" * 1000])
def test_short_digest_is_hashlibs_sha256(data):
    # the reference is OpenSSL's sha256 (hashlib); b"abc" is FIPS 180-4's own example,
    # ba7816bf... in its appendix
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    if data == b"abc":
        assert sha256(data).hexdigest().startswith("ba7816bf8f01cfea")


def test_variant_id_unchanged():
    # the id recorded in the Yahtzee tables built before the change (default rules):
    # yahtzee-ev-608a9ae12d5c.npz; a different digest would orphan every stored table
    assert get_game("yahtzee").rules.variant_id() == "yahtzee:608a9ae12d5c"


@pytest.mark.parametrize("values", [
    np.array([], dtype=np.int64), np.array([3], dtype=np.int32), np.array([5, 1, 5, 0, 1, 9], dtype=np.int64),
    np.random.default_rng(7).integers(-50, 50, size=(40, 30)).astype(np.int16),
])
def test_sorted_unique_is_np_unique(values):
    expected = np.unique(values)  # the function it replaces is the reference
    got = card_model.sorted_unique(values)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def _arrays(model) -> dict[str, np.ndarray]:
    found = {}
    for f in dataclasses.fields(model):
        value = getattr(model, f.name)
        if isinstance(value, np.ndarray):
            found[f.name] = value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            found.update({f"{f.name}.{k}": v for k, v in _arrays(value).items()})
    return found


@pytest.mark.parametrize("name", SCORECARD_GAMES)
def test_models_bit_identical_with_np_unique(name, monkeypatch):
    game = get_game(name)
    built = _arrays(scorecard_model.build_model(game))
    monkeypatch.setattr(scorecard_model, "sorted_unique", np.unique)
    monkeypatch.setattr(card_model, "sorted_unique", np.unique)
    reference = _arrays(scorecard_model.build_model(game))
    assert built.keys() == reference.keys() and len(built) > 10
    for key, array in built.items():
        assert array.dtype == reference[key].dtype and array.tobytes() == reference[key].tobytes(), key


def test_ev_build_path_imports_no_openssl_numpy_ma_or_target_solver():
    # a fresh interpreter: this one has imported all three already
    probe = (
        "import sys\n"
        "from kocka.solver.rules import get_game\n"
        "from kocka.solver.store.table_store import solver_for\n"
        "from kocka.solver.solvers.scorecard.model import build_model\n"
        "game = get_game('yahtzee'); solver = solver_for('yahtzee'); game.rules.variant_id()\n"
        "build_model(game)\n"
        "assert solver.kind == 'ev', solver.kind\n"
        "print(sorted(m for m in ('_hashlib', 'numpy.ma', 'kocka.solver.solvers.scorecard.target',\n"
        "                         'kocka.solver.kernels._target') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
