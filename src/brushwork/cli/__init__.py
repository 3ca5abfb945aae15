"""The `brushwork` command line. One module per layer of the data flow:
`cli.gate` (render, check, rules, demo), `cli.score` (score, taste, judge, serve-hpsv3),
`cli.pool` (the preference pool) and `cli.doctor` (what this machine has and lacks).

Heavy modules (Playwright, numpy, FastAPI) are imported inside the commands that need them,
so `brushwork --help` and `brushwork check --no-render` start fast.
"""

from brushwork.cli import config as _config  # noqa: F401
from brushwork.cli import doctor as _doctor  # noqa: F401
from brushwork.cli import env as _env  # noqa: F401
from brushwork.cli import evaluate as _evaluate  # noqa: F401
from brushwork.cli import gate as _gate  # noqa: F401  (registers its commands)
from brushwork.cli import node as _node  # noqa: F401
from brushwork.cli import pool as _pool  # noqa: F401
from brushwork.cli import score as _score  # noqa: F401
from brushwork.cli import train as _train  # noqa: F401
from brushwork.cli.common import app

__all__ = ["app"]
