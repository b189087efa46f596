"""The AGITB command line checks a user's model against the protocol before any test runs."""
from __future__ import annotations

import textwrap

import pytest

from intellimetry.agitb import axioms
from intellimetry.agitb.__main__ import main
from intellimetry.agitb.models import CANDIDATES
from intellimetry.agitb.protocol import protocol_problems

USER_MODELS = textwrap.dedent('''
    class NoCopy:
        """Would pass tests 1 and 2, then die in test 3 without copy()."""
        def __call__(self, x):
            return 0
        def __eq__(self, other):
            return type(other) is type(self)

    class Identity:
        """No __eq__ and no copy: two fresh models are never equal."""
        def __call__(self, x):
            return x

    class WideOutput:
        def __call__(self, x):
            return 5000
        def __eq__(self, other):
            return type(other) is type(self)
        def copy(self):
            return WideOutput()
        def state_key(self):
            return []

    class NeedsArgument:
        def __init__(self, size):
            self.size = size
''')


@pytest.fixture
def user_models(tmp_path, monkeypatch):
    (tmp_path / "user_models.py").write_text(USER_MODELS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "user_models"


def test_a_model_without_copy_is_refused_before_test_1(user_models, capsys, monkeypatch):
    monkeypatch.setattr(axioms, "run_test", lambda *a: pytest.fail("a test ran"))
    assert main([f"{user_models}:NoCopy", "--simulated-infinity", "10"]) == 2
    err = capsys.readouterr().err
    assert "does not follow the AGITB model protocol" in err and "copy() is missing" in err
    assert "Traceback" not in err
    assert main([f"{user_models}:NoCopy", "--replay", "3:1"]) == 2  # replay is refused too


def test_every_problem_is_named(user_models):
    import importlib

    models = importlib.import_module(user_models)
    identity = protocol_problems(models.Identity)
    assert len(identity) == 2 and "__eq__" in identity[0] and "copy() is missing" in identity[1]
    wide = protocol_problems(models.WideOutput)
    assert len(wide) == 2 and "hashable" in wide[0] and "returned 5000" in wide[1]
    assert protocol_problems(models.NeedsArgument) == [
        "NeedsArgument() failed (TypeError: NeedsArgument.__init__() missing 1 required positional argument: "
        "'size'): a fresh model is NeedsArgument() with no arguments"]


@pytest.mark.parametrize("name", CANDIDATES)
def test_every_candidate_follows_the_protocol(name):
    assert protocol_problems(CANDIDATES[name]) == []
