// Differential oracle for the gate's parser: reads a JSON list of sketches on stdin and prints,
// for each, what a spec-faithful JavaScript parser (acorn, script goal with Annex B HTML-like
// comments, as browsers run classic scripts) sees: the [start, end) UTF-16 ranges of every
// identifier, or the syntax error. tests/test_gate_differential.py compares them with
// tree-sitter's reading.
"use strict";
const acorn = require("acorn");

function identifiers(ast) {
  const out = [];
  const stack = [ast];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node.type !== "string") continue;
    if (node.type === "Identifier" || node.type === "PrivateIdentifier") out.push([node.start, node.end]);
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) for (const v of value) stack.push(v);
      else if (value && typeof value === "object" && typeof value.type === "string") stack.push(value);
    }
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const results = JSON.parse(input).map((code) => {
    try {
      const ast = acorn.parse(code, { ecmaVersion: "latest", sourceType: "script", allowHashBang: true });
      return { ok: true, identifiers: identifiers(ast) };
    } catch (e) {
      return { ok: false, error: String(e.message) };
    }
  });
  process.stdout.write(JSON.stringify(results));
});
