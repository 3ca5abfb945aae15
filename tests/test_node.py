"""`brushwork node up`: the shipped plans, mistakes in a plan, and a node brought up for real on this
machine — the judge and HPSv3 as stand-ins behind real HTTP servers (tests/node_standins.py), the real
environment server — that a training run completes 2 steps against, then stopped with nothing left."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from servers import _free_port

from brushwork.env.node import load_plan, plan_names
from brushwork.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
STANDINS = ROOT / "tests" / "node_standins.py"
BRUSHWORK = [sys.executable, "-m", "brushwork.cli"]


def _write(tmp_path: Path, plan: dict) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(plan, sort_keys=False))
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_shipped_plans_state_their_split_and_train_command():
    assert set(plan_names()) >= {"cpu", "1xh200", "8xh100"}
    big = load_plan("8xh100")
    assert big.gpus == 8 and big.services["judge"].gpus == [0] and big.train_gpus == [4, 5, 6, 7]
    used = [g for s in big.services.values() for g in s.gpus] + big.train_gpus
    assert len(used) == len(set(used)), "8xh100 gives every GPU one job"
    assert "--env_urls http://127.0.0.1:8000" in big.train_command(accelerate_configs="ACC")
    assert "--judge-url http://127.0.0.1:8001/v1" in big.command("env")
    one = load_plan("1xh200")
    assert one.gpus == 1 and one.train_command(accelerate_configs="ACC").startswith("CUDA_VISIBLE_DEVICES=0 ")
    done = subprocess.run([*BRUSHWORK, "node", "up", "--plan", "8xh100", "--dry-run"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "vllm serve Qwen/Qwen3-VL-30B-A3B-Instruct" in done.stdout and "8gpu-zero3.yaml" in done.stdout


@pytest.mark.parametrize("change, says", [
    ({"services": {"env": {"command": "x", "port": 1, "colour": "red"}}}, "services.env.colour: Extra inputs"),
    ({"services": {"env": {"command": "x", "port": 1, "gpus": [3]}}}, "uses GPU(s) [3] but the node has 1"),
    ({"services": {"env": {"command": "x", "url": "http://h:1", "port": 1}}}, "either command"),
    ({"services": {"a": {"command": "x", "port": 1, "after": ["b"]}, "b": {"command": "y", "port": 2, "after": ["a"]}}},
     "in a circle"),
    ({"services": {"env": {"command": "x {nope}", "port": 1}}}, "cannot fill"),
])
def test_a_mistake_in_a_plan_is_one_line_naming_it(tmp_path, change, says):
    plan = {"name": "t", "gpus": 1, "services": {"env": {"command": "x", "port": 1}}, "train": "t"} | change
    path = _write(tmp_path, plan)
    with pytest.raises(ConfigError, match=None) as e:
        load_plan(path).command(next(iter(plan["services"])))
    assert says in str(e.value) and "\n" not in str(e.value)
    done = subprocess.run([*BRUSHWORK, "node", "up", "--plan", str(path), "--dry-run"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr and says in done.stderr


def test_a_service_that_dies_stops_the_node_with_its_log(tmp_path):
    """The twin of a healthy start: one service exits before it is ready; node up says why (its log)
    and stops the service it had started beside it."""
    pidfile = tmp_path / "sleeper.pid"
    plan = _write(tmp_path, {"name": "t", "services": {
        "sleeper": {"command": f"echo $$ > {pidfile}; exec sleep 600", "port": _free_port()},
        "broken": {"command": "echo 'CUDA out of memory' >&2; exit 3", "port": _free_port()}},
        "train": "true"})
    done = subprocess.run([*BRUSHWORK, "node", "up", "--plan", str(plan), "--logs", str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "broken exited with status 3" in done.stderr and "CUDA out of memory" in done.stderr
    assert not _alive(int(pidfile.read_text()))


def test_a_busy_port_is_refused_before_anything_starts(tmp_path):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        plan = _write(tmp_path, {"name": "t", "services": {"env": {"command": "sleep 600", "port": port}},
                                 "train": "true"})
        done = subprocess.run([*BRUSHWORK, "node", "up", "--plan", str(plan), "--logs", str(tmp_path / "logs")],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and f"port {port} is already in use" in done.stderr
    assert not (tmp_path / "logs" / "env.log").exists()


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.torch
@pytest.mark.timeout(1500)     # the environment server renders the example pool at start
def test_node_up_with_standins_serves_a_two_step_training_run(tmp_path, reciting_model):
    base = reciting_model
    python = shlex.quote(sys.executable)
    plan = _write(tmp_path, {
        "name": "standins", "about": "the GPU services as stand-ins", "gpus": 0,
        "services": {
            "judge": {"command": f"{python} {STANDINS} judge --port {{port}}", "port": _free_port()},
            "hpsv3": {"command": f"{python} {STANDINS} hpsv3 --port {{port}}", "port": _free_port()},
            "env": {"command": f"{python} -m brushwork.cli serve --host 127.0.0.1 --port {{port}} --workers 2 "
                               "--judge openai --judge-url {judge_url}/v1 --judge-model stand-in "
                               "--aesthetic hpsv3 --hpsv3-url {hpsv3_url} --log-level warning",
                    "port": _free_port(), "after": ["judge", "hpsv3"], "start_timeout_s": 1200}},
        "train": "brushwork train --config tiny-cpu --env_urls {env_url}"})
    node = subprocess.Popen([*BRUSHWORK, "node", "up", "--plan", str(plan), "--logs", str(tmp_path / "logs")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in node.stdout:
            lines.append(line)
            if line.startswith("ready:"):
                break
        train = next(node.stdout).strip()
        assert train.startswith("brushwork train --config tiny-cpu --env_urls http://127.0.0.1:"), lines
        env_url = train.split("--env_urls ")[1]

        out = tmp_path / "run"
        args = ["--tiny", "false", "--model_name_or_path", str(base), "--output_dir", str(out), "--sft_samples",
                "0", "--max_steps", "2", "--warmup_steps", "0", "--rollouts_per_step", "2", "--num_generations", "2",
                "--per_device_train_batch_size", "2", "--task_repeats", "1", "--save_strategy", "no",
                "--report_to", "none"]
        command = shlex.split(train)
        run = subprocess.run([*BRUSHWORK, *command[1:], *args], capture_output=True, text=True, timeout=1200,
                             env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        steps = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
        assert [s["step"] for s in steps if "rewards/brushwork/mean" in s] == [1, 2]

        import httpx

        health = httpx.get(f"{env_url}/health", timeout=30).json()
        assert health["work"]["episodes"] == 4 and health["sessions"]["active"] == 0
        scorers = health["scorers"]                                       # scored through the stand-ins
        assert "stand-in" in scorers["judge"] and "taste" not in scorers["aesthetic"], scorers
        cards = [json.loads(p.read_text()) for p in (out / "film").rglob("*.json") if p.name != "index.jsonl"]
        judged = [c for c in cards if c.get("terms", {}).get("judge") is not None]
        assert judged and all(c["terms"].get("aesthetic") is not None for c in judged)
    finally:
        node.send_signal(signal.SIGTERM)
        node.wait(timeout=60)
    assert node.returncode == 0, node.stderr.read()[-2000:]
    logs = tmp_path / "logs"
    assert {p.name for p in logs.iterdir()} == {"judge.log", "hpsv3.log", "env.log"}
    time.sleep(1)
    ports = [s["port"] for s in yaml.safe_load(plan.read_text())["services"].values()]
    for port in ports:                                   # every service is gone: nothing listens on its port
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # closed connections may linger
            s.bind(("127.0.0.1", port))
