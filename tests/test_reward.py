"""The reward formula, presets and length ramp."""

import pytest

from brushwork.errors import ConfigError
from brushwork.score.reward import PRESETS, LengthRamp, RewardConfig, Weights, total


def test_presets_are_the_recipes():
    from brushwork.score.terms import BUILTIN, Term

    assert all("weight" not in vars(t) and "weight" not in vars(Term) for t in BUILTIN.values())  # written once
    assert PRESETS["judge-led"] == Weights(gate=0.05, length=0.05, judge=0.60, aesthetic=0.30)
    assert PRESETS["hps-led"] == Weights(gate=0.05, length=0.05, judge=0.30, aesthetic=0.60)
    assert PRESETS["hps-only"] == Weights(gate=0.05, length=0.05, judge=0.0, aesthetic=0.90)
    assert RewardConfig().preset == "judge-led"


def test_formula():
    w = PRESETS["judge-led"]
    def terms(length, judge, aesthetic):
        return {"gate": 1.0, "length": length, "judge": judge, "aesthetic": aesthetic}

    assert total(w, False, terms(1.0, 1.0, 1.0)) == 0.0
    assert total(w, True, terms(0.5, 0.25, 0.8)) == pytest.approx(0.05 + 0.025 + 0.15 + 0.24)
    assert total(w, True, terms(0.5, None, 0.8)) is None  # a weighted term that did not run: no honest score
    assert total(PRESETS["hps-only"], True, terms(0.0, None, 1.0)) == pytest.approx(0.95)  # judge unweighted: fine


def test_weights_name_the_terms():
    assert list(Weights()) == ["gate", "length", "judge", "aesthetic"] and Weights() == PRESETS["judge-led"]
    w = Weights(judge=0.0, aesthetic=0.9)       # unnamed terms keep the default preset's weight
    assert dict(w) == {"gate": 0.05, "length": 0.05, "judge": 0.0, "aesthetic": 0.9} and w.aesthetic == 0.9
    with pytest.raises(ConfigError, match="unknown reward term 'juge'.*the built-in terms are gate, length"):
        Weights(juge=0.5)
    with pytest.raises(ConfigError, match="weight judge must be a number"):
        Weights(judge="high")
    with pytest.raises(ConfigError, match="weight judge must be a number in"):
        Weights(judge=1.5)
    with pytest.raises(AttributeError):
        w.judge = 0.1
    import pickle

    assert pickle.loads(pickle.dumps(w)) == w and hash(w) == hash(Weights(judge=0.0, aesthetic=0.9))


@pytest.mark.parametrize("tokens,expected", [(0, 0.0), (149, 0.0), (150, 0.0), (1575, 0.5), (3000, 1.0),
                                             (6000, 1.0), (6001, 0.0)])
def test_length_ramp(tokens, expected):
    assert LengthRamp().of_tokens(tokens) == pytest.approx(expected)


def test_length_ramp_counts_code_not_characters():
    statement = "brush.circle(300, 300, 28);\n"  # 11 tokens of code
    varied = "".join(statement.replace("28", str(i)) for i in range(150))
    assert LengthRamp()(varied) == pytest.approx((150 * 11 - 150) / (3000 - 150))
    assert LengthRamp()("x" * 24_000) == 0.0  # one identifier that does nothing: no code at all
    assert LengthRamp()("// note\n" * 3000 + varied) == LengthRamp()(varied)


def test_yaml_configs(tmp_path):
    (tmp_path / "a.yaml").write_text("# brushwork score --reward-config a.yaml\npreset: hps-led\n")
    assert RewardConfig.from_yaml(tmp_path / "a.yaml").weights == PRESETS["hps-led"]
    (tmp_path / "b.yaml").write_text("weights: {gate: 0.1, length: 0.0, judge: 0.5, aesthetic: 0.4}\n"
                                     "length: {low: 100, full: 1000, high: 5000}\n")
    cfg = RewardConfig.from_yaml(tmp_path / "b.yaml")
    assert cfg.weights.judge == 0.5 and cfg.length.full == 1000 and cfg.preset is None
    (tmp_path / "c.yaml").write_text("weights: {gate: 0.5, length: 0.5, judge: 0.5, aesthetic: 0.5}\n")
    with pytest.raises(ConfigError, match="sum"):
        RewardConfig.from_yaml(tmp_path / "c.yaml")
    with pytest.raises(ConfigError, match="hps-led"):
        RewardConfig.from_preset("hps-first")


def test_cards_read_back_both_layouts():
    """Films written before the terms table (each term a top-level key) still read."""
    from brushwork.score.card import ScoreCard

    old = {"passed": True, "total": 0.5, "gate": 1.0, "length": 0.2, "judge": 0.5, "aesthetic": 0.6,
           "weights": {"gate": 0.05}, "preset": "judge-led", "timings": {"render_s": 1.0, "judge_s": 0.3},
           "cost": {"judge_calls": 8}, "references": [["a", "love"]]}
    card = ScoreCard.from_dict(old)
    assert card.terms == {"gate": 1.0, "length": 0.2, "judge": 0.5, "aesthetic": 0.6} and card.judge == 0.5
    assert card.timings.terms == {"judge": 0.3} and card.references == (("a", "love"),)
    again = ScoreCard.from_dict(card.to_dict())
    assert again.same_as(card) and again.terms == card.terms
    with pytest.raises(AttributeError):
        card.saturation  # noqa: B018  (not a term)
    with pytest.raises(ValueError, match="unknown reward term"):
        ScoreCard(passed=True, total=0.1, terms={"judg": 0.1}, weights={}, preset=None)
    mine = ScoreCard(passed=True, total=0.1, terms={"saturation": 0.5}, weights={"saturation": 0.1}, preset=None)
    assert list(mine.terms) == ["gate", "length", "judge", "aesthetic", "saturation"] and mine.saturation == 0.5
