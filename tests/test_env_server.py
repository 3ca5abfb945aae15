"""The environment as users run it: `brushwork serve` as a real subprocess on 127.0.0.1 and the
real OpenEnv clients (ours, OpenEnv's GenericEnvClient, a client in another process) over a
real WebSocket. Two servers: a roomy one (2 browsers, 10 sessions) and a fragile one (1
browser, 3 sessions, short render and session timeouts) that tests kill and restart.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from gate_cases import HONEST, STATIC, TIMEOUT, reply, sketch

from brushwork.env.client import BrushworkEnv, EnvServerError
from brushwork.env.models import PaintAction

pytestmark = [pytest.mark.chromium, pytest.mark.slow]


def wash(colour: str, radius: int = 110, x: int = 300) -> str:
    return reply(sketch(paint=f'brush.noStroke();\n  brush.fillBleed(0.3);\n  brush.fill("{colour}", 190);\n'
                              f'  brush.circle({x}, 300, {radius});'))


def slow_painting(fills: int = 8) -> str:
    """Big overlapping washes: a few seconds to render."""
    body = "\n  ".join(f'brush.fill("#{(40 * i) % 255:02x}6f{(90 + 17 * i) % 255:02x}", 120);\n'
                       f'  brush.circle({200 + 25 * i}, {220 + 20 * i}, 200);' for i in range(fills))
    return reply(sketch(paint="brush.noStroke();\n  brush.fillBleed(0.35);\n  " + body))


def wait_for(predicate, timeout: float, what: str, step: float = 0.25):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(step)


class Server:
    """`brushwork serve` in a subprocess; its output goes to a log file shown on failure."""

    def __init__(self, log: Path, *args: str):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log, self.args, self.proc = log, args, None

    def start(self) -> Server:
        command = [sys.executable, "-m", "brushwork.cli", "serve", "--port", str(self.port), "--log-level",
                   "warning", *self.args]
        with self.log.open("a") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
        return self

    def wait_ready(self, timeout: float = 600) -> Server:      # a loaded machine starts browsers slowly
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited ({self.proc.returncode}):\n{self.log.read_text()[-3000:]}")
            try:
                return httpx.get(f"{self.url}/health", timeout=5).status_code == 200
            except httpx.HTTPError:
                return False
        wait_for(ready, timeout, "the server to answer /health", step=0.5)
        return self

    def health(self) -> dict:
        return httpx.get(f"{self.url}/health", timeout=10).json()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def server(example_pool, tmp_path_factory):
    """Roomy: 2 browsers, 10 sessions (above the default 2 x workers), generous timeouts."""
    srv = Server(tmp_path_factory.mktemp("serve") / "roomy.log", "--workers", "2", "--max-sessions", "10",
                 "--render-timeout-s", "40", "--session-timeout-s", "120").start()
    try:
        yield srv.wait_ready()
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def fragile(example_pool, tmp_path_factory):
    """Fragile: 1 browser, 3 sessions, a 6 s render deadline and a 2 CPU-s budget, sessions reclaimed
    after 3 idle seconds."""
    srv = Server(tmp_path_factory.mktemp("serve") / "fragile.log", "--workers", "1", "--max-sessions", "3",
                 "--render-timeout-s", "6", "--render-cpu-budget-s", "2", "--session-timeout-s", "3").start()
    try:
        yield srv.wait_ready()
    finally:
        srv.stop()


def active_sessions(srv: Server) -> int:
    return srv.health()["sessions"]["active"]


# -- episodes -----------------------------------------------------------------------------------
def test_health_reports_renderer_pool_scorers_and_sessions(server, example_pool):
    h = server.health()
    assert h["status"] == "healthy"
    assert h["renderer"]["workers"] == 2 and h["renderer"]["alive"] == 2 and "p5" in h["renderer"]["versions"]
    assert h["pool"]["snapshot"] == example_pool.snapshot and h["pool"]["paintings"] == len(example_pool.items)
    assert h["reward"]["preset"] == "judge-led" and h["scorers"]["judge"].startswith("taste:")
    assert h["sessions"]["max"] == 10 and h["sessions"]["timeout_s"] == 120


def test_single_turn_episode(server):
    with BrushworkEnv(server.url).sync() as env:
        first = env.reset(seed=21, subject="a coral hibiscus", return_image=True)
        obs = first.observation
        assert not first.done and obs.subject == "a coral hibiscus" and obs.domain == "hibiscus"
        assert "createCanvas(600, 600, WEBGL)" in obs.system_prompt and "coral hibiscus" in obs.prompt
        result = env.step(PaintAction(response=HONEST))
        o = result.observation
        assert result.done and result.reward is not None and result.reward > 0.05 and o.passed
        assert o.terms["total"] == result.reward and o.score["references"] and o.reward_revision == 0
        assert base64.b64decode(o.image_png_b64).startswith(b"\x89PNG")
        state = env.state()
        assert state.done and state.reward == result.reward and state.paintings == 1
        with pytest.raises(EnvServerError, match="episode is over"):
            env.step(PaintAction(response=HONEST))
        with pytest.raises(EnvServerError, match="unknown reset argument"):
            env.reset(seed=1, revison=2)


def test_multi_turn_episode_shows_renders_until_the_end(server):
    with BrushworkEnv(server.url).sync() as env:
        env.reset(seed=22, subject="misty hills at dawn", revisions=2)
        r1 = env.step(PaintAction(response=wash("#8fa8c8", 200)))
        o1 = r1.observation
        assert not r1.done and r1.reward is None and o1.terms is None and o1.score is None
        assert o1.revision == 0 and o1.revisions_left == 2 and o1.image_png_b64 and "Coverage" in o1.critique
        assert "score" not in o1.critique.lower() and "judge" not in o1.critique.lower()
        r2 = env.step(PaintAction(response=wash("#6f8fb8", 240), done=True))
        assert r2.done and r2.reward is not None and r2.observation.revision == 1
        assert r2.observation.image_png_b64 is None        # the final image only with return_image


def test_a_gate_note_reaches_the_observation_and_the_card(server):
    noted = reply(sketch(top='function keyPressed() { saveCanvas("painting", "png"); }'))   # never runs: a note
    with BrushworkEnv(server.url).sync() as env:
        env.reset(seed=23, revisions=1)
        first = env.step(PaintAction(response=noted)).observation
        assert first.passed and [(n["id"], n["severity"], n["line"]) for n in first.notes] == \
            [("raw_pixels", "warning", 4)] and first.violations == []
        assert "Notes (no penalty" in first.critique and first.notes[0]["message"] in first.critique
        last = env.step(PaintAction(response=noted, done=True)).observation
        assert last.done and last.notes == first.notes and [n.to_dict() for n in last.card.notes] == first.notes
        env.reset(seed=23)
        twin = env.step(PaintAction(response=HONEST)).observation   # the same painting without the handler
        assert twin.passed and twin.notes == [] and twin.card.notes == () and "Notes" not in twin.critique


def test_plain_openenv_client_works(server):
    from openenv.core.generic_client import GenericEnvClient

    with GenericEnvClient(base_url=server.url, message_timeout_s=300).sync() as env:
        first = env.reset(seed=23, domain="flowers")
        assert first.observation["domain"] == "flowers"
        result = env.step({"response": wash("#e8607a")})
        assert result.done and result.reward is not None


def test_stateless_http_step_carries_its_reset(server):
    body = {"action": {"response": wash("#5f8f5c"), "metadata": {"reset": {"seed": 24, "subject": "a fern frond"}}}}
    answer = httpx.post(f"{server.url}/step", json=body, timeout=120).json()
    assert answer["done"] and answer["reward"] is not None and answer["observation"]["domain"] == "leaves"


def test_eight_concurrent_sessions_all_complete(server):
    results, errors = {}, []

    def episode(i: int):
        try:
            with BrushworkEnv(server.url).sync() as env:
                env.reset(seed=100 + i, subject="a peach hibiscus")
                results[i] = env.step(PaintAction(response=wash(f"#e0{40 + 20 * i:02x}4e", 90 + 5 * i)))
        except Exception as e:  # noqa: BLE001 - collected and reported below
            errors.append(e)

    threads = [threading.Thread(target=episode, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=280)
    assert not errors, errors      # within the limit: never CAPACITY_REACHED
    assert sorted(results) == list(range(8))
    assert all(r.done and r.reward is not None for r in results.values())
    wait_for(lambda: active_sessions(server) == 0, 30, "the closed sessions to be released")


def test_hostile_replies_are_gate_reports(server):
    cases = [c for c in STATIC if c.name in ("fetch", "text", "rect", "eval", "empty_reply", "inner_html")]
    with BrushworkEnv(server.url).sync() as env:
        for case in cases:
            env.reset(seed=31)
            result = env.step(PaintAction(response=case.reply))
            ids = [v["id"] for v in result.observation.violations]
            assert result.done and result.reward == 0.0 and case.rule in ids, (case.name, ids)
            assert result.observation.score["cheated"] == (case.rule != "no_sketch")
    assert server.health()["status"] == "healthy"


def test_killed_client_session_is_released(server, tmp_path):
    script = ("import sys, time\nfrom brushwork.env import BrushworkEnv, PaintAction\n"
              "env = BrushworkEnv(sys.argv[1]).sync()\nenv.reset(seed=41)\nreply = sys.stdin.read()\n"
              "print('stepping', flush=True)\nenv.step(PaintAction(response=reply))\ntime.sleep(600)\n")
    seen = len(server.log.read_text())
    proc = subprocess.Popen([sys.executable, "-c", script, server.url], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write(slow_painting())
        proc.stdin.close()
        assert proc.stdout.readline().strip() == "stepping"
        wait_for(lambda: server.health()["work"]["steps_in_flight"] >= 1, 30, "the step to start")
    finally:
        proc.kill()       # mid-episode, mid-render
        proc.wait(timeout=30)
    wait_for(lambda: active_sessions(server) == 0, 90, "the dead client's session to be released")
    # the answer it never read is one line in the server's log, not a chain of tracebacks
    gone = "closed its connection before its answer was sent"
    wait_for(lambda: gone in server.log.read_text()[seen:], 60, "the server to log the client's leaving")
    assert "Traceback" not in server.log.read_text()[seen:]
    with BrushworkEnv(server.url).sync() as env:      # and the server serves on
        env.reset(seed=42)
        assert env.step(PaintAction(response=HONEST)).reward is not None


# -- errors at the edges: a wrong action or call order is a one-line answer naming the fix ----------
BAD_ACTIONS = [      # (action, what the answer must say)
    ({"code": "let x = 1"}, ['needs "response"', 'unknown field "code"']),
    ({"response": 7}, ['"response" must be a string, got int']),
    ({"response": "hi", "done": "perhaps"}, ['"done" must be a boolean, got str']),
]
SHAPE = 'an action is {"response": string'


@pytest.mark.parametrize("action,says", BAD_ACTIONS)
def test_a_wrong_action_names_the_field_on_every_surface(server, action, says):
    from openenv.core.generic_client import GenericEnvClient

    from brushwork.errors import ActionError

    before = len(server.log.read_text())
    with GenericEnvClient(base_url=server.url, message_timeout_s=60).sync() as env:    # over the WebSocket
        env.reset(seed=51)
        with pytest.raises(RuntimeError) as ws_error:
            env.step(action)
        assert env.step({"response": HONEST}).reward is not None       # the session is still usable
    answer = httpx.post(f"{server.url}/step", json={"action": action}, timeout=30)   # over HTTP
    with BrushworkEnv(server.url).sync() as env, pytest.raises(ActionError) as client_error:   # ours, locally
        env.reset(seed=52)
        env.step(action)
    assert answer.status_code == 422
    for message in (str(ws_error.value), answer.json()["detail"], str(client_error.value)):
        assert all(s in message for s in says) and SHAPE in message, message
    assert "Traceback" not in (written := server.log.read_text()[before:]), written[-3000:]


def test_http_step_and_state_without_a_reset_are_4xx_with_the_fix(server):
    before = len(server.log.read_text())
    step = httpx.post(f"{server.url}/step", json={"action": {"response": HONEST}}, timeout=30)
    state = httpx.get(f"{server.url}/state", timeout=30)
    assert step.status_code == 409 and "call reset() before step()" in step.json()["detail"]
    assert "metadata['reset']" in step.json()["detail"]
    assert state.status_code == 409 and "call reset() before state()" in state.json()["detail"]
    with BrushworkEnv(server.url).sync() as env, pytest.raises(EnvServerError, match="call reset"):
        env.state()                                    # the WebSocket session says the same
    unknown = httpx.post(f"{server.url}/reset", json={"seed": 1, "revison": 2}, timeout=30)
    too_many = httpx.post(f"{server.url}/reset", json={"seed": 1, "revisions": 99}, timeout=30)
    assert unknown.status_code == 422 and "unknown reset argument(s): revison" in unknown.json()["detail"]
    assert too_many.status_code == 422 and "revisions must be" in too_many.json()["detail"]
    assert "Traceback" not in (written := server.log.read_text()[before:]), written[-3000:]


def test_the_legal_twins_still_work(server):
    """The same calls, shaped right: a step with every field, and the state of a running episode."""
    body = {"action": {"response": HONEST, "done": True, "metadata": {"reset": {"seed": 53}}}}
    answer = httpx.post(f"{server.url}/step", json=body, timeout=120)
    assert answer.status_code == 200 and answer.json()["reward"] is not None
    with BrushworkEnv(server.url).sync() as env:
        env.reset(seed=54)
        assert env.state().episode_id and not env.state().done
        result = env.step({"response": HONEST})       # a plain dict is checked, then sent
        assert result.done and result.reward is not None and env.state().done


# -- what a request may hold: any string is a gate report; a body past the limit is 413 ----------------
def post_step(srv: Server, response: str, seed: int = 90) -> httpx.Response:
    """POST /step with JSON written by json.dumps, which escapes a lone surrogate as \\ud800."""
    body = {"action": {"response": response, "metadata": {"reset": {"seed": seed}}}}
    return httpx.post(f"{srv.url}/step", content=json.dumps(body), timeout=120,
                      headers={"content-type": "application/json"})


ODD_STRINGS = [      # (name, reply, the rule it must report, or None: it passes)
    ("surrogate_in_prose", "A wash \ud800 for you:\n\n" + HONEST, None),
    ("surrogate_in_sketch", reply(sketch('const mark = "\udfff";')), "syntax_error"),
    ("nul_in_prose", "A wash\x00 for you:\n\n" + HONEST, None),
    ("nul_in_sketch", reply(sketch('const mark = "\x00";')), "syntax_error"),
    ("long_line", reply(sketch("const pad = 0" + " + 0" * 4_000 + ";")), None),
    ("sixty_four_thousand_fences", "```\n" * 64_000, "too_long"),
]


@pytest.mark.parametrize("name,response,rule", ODD_STRINGS, ids=[n for n, _, _ in ODD_STRINGS])
def test_odd_strings_are_gate_reports_over_http_and_the_websocket(server, name, response, rule):
    before = len(server.log.read_text())
    answer = post_step(server, response)
    assert answer.status_code == 200, answer.text[:500]
    obs = answer.json()["observation"]
    with BrushworkEnv(server.url).sync() as env:
        env.reset(seed=91)
        result = env.step(PaintAction(response=response))
    for o, reward in ((obs, answer.json()["reward"]), (result.observation.model_dump(), result.reward)):
        ids = [v["id"] for v in o["violations"]]
        if rule is None:
            assert o["passed"] and reward is not None and reward > 0, ids
        else:
            assert rule in ids and reward == 0.0, ids
    assert "Traceback" not in (written := server.log.read_text()[before:]), written[-3000:]


def test_invalid_utf8_and_oversized_bodies_are_4xx_with_the_limit(server):
    limit = 16 * 24_000      # max_request_bytes 0: 16 x the gate's max_chars
    bad = b'{"action": {"response": "\xff\xfe function setup() {}", "metadata": {"reset": {"seed": 92}}}}'
    answer = httpx.post(f"{server.url}/step", content=bad, headers={"content-type": "application/json"},
                        timeout=60)
    assert answer.status_code == 400 and "not UTF-8" in answer.json()["detail"], answer.text[:300]
    big = post_step(server, "x" * (limit + 1))
    assert big.status_code == 413 and f"the limit is {limit:,} (--max-request-bytes)" in big.json()["detail"]
    streamed = httpx.post(f"{server.url}/step", content=iter([b"{" + b" " * limit, b"}"]), timeout=60,
                          headers={"content-type": "application/json"})      # no Content-Length: counted
    assert streamed.status_code == 413, streamed.text[:300]
    fits = post_step(server, "x" * (limit // 2))       # the legal twin: under the limit, judged by the gate
    assert fits.status_code == 200 and not fits.json()["observation"]["passed"]
    with BrushworkEnv(server.url).sync() as env:       # over the WebSocket: an error frame, the session lives on
        env.reset(seed=93)
        with pytest.raises(EnvServerError, match="--max-request-bytes") as info:
            env.step(PaintAction(response="x" * (limit + 1)))
        assert info.value.code == "REQUEST_TOO_LARGE"
        assert env.step(PaintAction(response=HONEST)).reward is not None


# -- the fragile server: deadlines, reclaiming, capacity, restarts --------------------------------
def test_endless_loop_scores_zero_and_the_server_recovers(fragile):
    with BrushworkEnv(fragile.url).sync() as env:
        env.reset(seed=51)
        result = env.step(PaintAction(response=TIMEOUT[0].reply))
        assert result.done and result.reward == 0.0 and result.observation.infra is None
        assert "too_slow" in [v["id"] for v in result.observation.violations]
        env.reset(seed=52)
        assert env.step(PaintAction(response=HONEST)).reward is not None
    h = fragile.health()
    assert h["renderer"]["restarts"] >= 1 and h["work"]["infra_failures"] == 0
    assert h["renderer"]["cpu_budget_s"] == 2


def test_hung_client_is_reclaimed_and_an_idle_client_resumes(fragile):
    script = ("import time\nfrom brushwork.env import BrushworkEnv\n"
              f"env = BrushworkEnv('{fragile.url}').sync()\nenv.reset(seed=61)\nprint('ready', flush=True)\n"
              "time.sleep(600)\n")
    hung = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        with BrushworkEnv(fragile.url).sync() as env:
            env.reset(seed=62, subject="a white hibiscus with a red eye", revisions=1)
            env.step(PaintAction(response=wash("#c21f3a", 60)))
            assert hung.stdout.readline().strip() == "ready"
            hung.send_signal(signal.SIGSTOP)          # alive, socket open, silent
            wait_for(lambda: active_sessions(fragile) == 0, 30, "idle sessions to be reclaimed")
            # our idle client's session was reclaimed too: it reconnects, replays and carries on
            result = env.step(PaintAction(response=wash("#c21f3a", 90)))
            assert result.done and result.observation.revision == 1 and result.reward is not None
            assert env.async_client.reconnects == 1
    finally:
        hung.kill()
        hung.wait(timeout=30)


def test_capacity_is_enforced_with_a_clear_error(fragile):
    clients = [BrushworkEnv(fragile.url).sync() for _ in range(3)]
    try:
        for i, env in enumerate(clients):
            env.reset(seed=70 + i)
        with BrushworkEnv(fragile.url).sync() as extra:
            with pytest.raises(EnvServerError, match="max-sessions") as info:
                extra.reset(seed=73)
            assert info.value.code == "CAPACITY_REACHED"
    finally:
        for env in clients:
            env.close()
    wait_for(lambda: active_sessions(fragile) == 0, 30, "sessions to be released")


def test_http_steps_count_against_max_sessions(fragile):
    """Three WebSocket sessions fill --max-sessions 3: a stateless /step is 503 naming the limit; with
    one closed it is served (the legal twin). Concurrent /steps alone never exceed the limit either."""
    clients = [BrushworkEnv(fragile.url).sync() for _ in range(3)]
    try:
        for i, env in enumerate(clients):
            env.reset(seed=75 + i)
        full = post_step(fragile, HONEST, seed=78)
        assert full.status_code == 503 and "--max-sessions 3" in full.json()["detail"], full.text[:300]
        clients.pop().close()
        wait_for(lambda: active_sessions(fragile) == 2, 30, "a session to be released")
        assert post_step(fragile, HONEST, seed=79).status_code == 200
    finally:
        for env in clients:
            env.close()
    wait_for(lambda: active_sessions(fragile) == 0, 30, "sessions to be released")
    answers, peak = [], [0]

    def step(i: int):
        answers.append(post_step(fragile, wash("#5f8f5c", 80 + 10 * i), seed=80 + i).status_code)

    threads = [threading.Thread(target=step, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        peak[0] = max(peak[0], active_sessions(fragile))
        time.sleep(0.1)
    assert sorted(set(answers)) in ([200], [200, 503]) and answers.count(200) >= 3, answers
    assert peak[0] <= 3, peak


def test_client_survives_a_server_restart(fragile):
    with BrushworkEnv(fragile.url, reconnect_wait_s=240).sync() as env:
        first = env.reset(seed=81, subject="a yellow hibiscus", revisions=2)
        env.step(PaintAction(response=wash("#f0bc30", 80)))
        fragile.kill()
        fragile.start()                              # the same port; the client waits for it
        second = env.step(PaintAction(response=wash("#e8a020", 100)))
        o = second.observation
        assert not second.done and o.revision == 1 and o.episode_id == first.observation.episode_id
        assert env.async_client.reconnects == 1
        last = env.step(PaintAction(response="", done=True))
        assert last.done and last.observation.reward_revision == 1 and last.reward is not None
    fragile.wait_ready()
