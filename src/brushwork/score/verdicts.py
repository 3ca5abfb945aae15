"""A small SQLite store of judge verdicts, keyed by (first image, second image, model,
question): the same question is never paid for twice, across runs and processes. The `prompt`
column holds `JudgePrompt.question_key` (prompt version, answer-schema version, subject), so a
changed prompt, schema or subject never reads an old verdict."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from brushwork.paths import cache_root


def default_verdict_path() -> Path:
    return cache_root() / "judge-verdicts.sqlite"


class VerdictCache:
    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_verdict_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (first TEXT, second TEXT, model TEXT, prompt TEXT, "
                         "answer TEXT, PRIMARY KEY (first, second, model, prompt))")
        self._db.commit()

    def get(self, first: str, second: str, model: str, prompt: str) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT answer FROM verdicts WHERE first=? AND second=? AND model=? AND prompt=?",
                                   (first, second, model, prompt)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, first: str, second: str, model: str, prompt: str, answer: dict) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)",
                             (first, second, model, prompt, json.dumps(answer)))
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()
