"""Reply -> sketch extraction."""

from brushwork.sketch import extract_sketch

CODE = "function setup() {\n  createCanvas(600, 600, WEBGL);\n}\n"


def test_fenced_js_with_prose_around():
    reply = f"Here is a peach hibiscus.\n\n```javascript\n{CODE}```\n\nThe petals bleed softly."
    s = extract_sketch(reply)
    assert s.code == CODE and s.fenced and s.start_line == 4 and not s.truncated


def test_bare_fence_and_p5_tag():
    assert extract_sketch(f"```\n{CODE}```").code == CODE
    assert extract_sketch(f"```p5\n{CODE}```").code == CODE


def test_prefers_block_with_setup_over_other_blocks():
    reply = f"Palette:\n```json\n{{\"a\": 1}}\n```\nSketch:\n```js\n{CODE}```\n```js\nconst x = 1;\n```"
    assert extract_sketch(reply).code == CODE


def test_truncated_fence_keeps_code():
    s = extract_sketch("```js\nfunction setup() {\n  createCanvas(600, 600, WEB")
    assert s.truncated and "createCanvas" in s.code


def test_unfenced_code_with_trailing_prose():
    reply = f"Sure!\n{CODE}\nThis painting uses soft washes."
    s = extract_sketch(reply)
    assert s.code.strip() == CODE.strip() and not s.fenced and s.start_line == 2


def test_think_block_is_ignored():
    reply = f"<think>maybe ```js\nrect()\n``` no</think>\n```js\n{CODE}```"
    s = extract_sketch(reply)
    assert s.code == CODE and s.start_line == 5


def test_no_code():
    assert extract_sketch("") is None
    assert extract_sketch("I would paint a hibiscus with soft edges.") is None
