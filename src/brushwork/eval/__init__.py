"""Evaluation: a policy on held-out prompts, or a film of saved rollouts, measured against the
pool's evaluation split (`brushwork eval`).

    generate.py   held-out prompts and a policy's replies (transformers, optional PEFT adapter)
    collect.py    replies or film frames -> scored `Sample`s, judged against evaluation references
    metrics.py    `Sample`, `Metrics`, `EvalRun` and the pure functions that summarise samples
    curves.py     training curves (metrics.jsonl, per-step film summaries) as PNG plots
    watch.py      the hacking watch: copies, extreme paint, collapsed prompts, reward without taste
    report.py     eval.json and the self-contained HTML report
    runner.py     `Plan` and `run_eval`: one whole evaluation, from options to the files it writes

Names are imported on first use, so `brushwork --help` loads neither numpy nor torch.
"""

from __future__ import annotations

from brushwork.lazy import lazy_exports

_EXPORTS = {
    "EVAL_SEED": "brushwork.eval.generate",
    "generate_replies": "brushwork.eval.generate",
    "held_out_rows": "brushwork.eval.generate",
    "film_samples": "brushwork.eval.collect",
    "judge_samples": "brushwork.eval.collect",
    "score_replies": "brushwork.eval.collect",
    "EvalRun": "brushwork.eval.metrics",
    "Metrics": "brushwork.eval.metrics",
    "Sample": "brushwork.eval.metrics",
    "Stat": "brushwork.eval.metrics",
    "summarize": "brushwork.eval.metrics",
    "training_curves": "brushwork.eval.curves",
    "write_report": "brushwork.eval.report",
    "Flag": "brushwork.eval.watch",
    "hacking_watch": "brushwork.eval.watch",
    "run_watch": "brushwork.eval.watch",
    "EvalResult": "brushwork.eval.runner",
    "Plan": "brushwork.eval.runner",
    "run_eval": "brushwork.eval.runner",
}

__getattr__, __all__ = lazy_exports(__name__, _EXPORTS)
