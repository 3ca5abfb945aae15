"""Regenerate src/brushwork/core/p5_names.json from the pinned libraries in a real Chromium.

The gate names what a refused identifier is (a p5 function outside the language, a browser
global) and refuses top-level declarations that would replace a browser global. Those lists
come from the real p5 2.3.4 / p5.brush 2.2.2 and Debian's Chromium, not from memory:

    .venv/bin/python scripts/p5_names.py
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from playwright.async_api import async_playwright

from brushwork.render.assets import Libraries
from brushwork.render.browser import find_chromium

OUT = Path(__file__).resolve().parents[1] / "src" / "brushwork" / "core" / "p5_names.json"
DUMP = """() => {
  const names = (obj, stop) => { const out = new Set();
    for (let o = obj; o && o !== stop; o = Object.getPrototypeOf(o))
      for (const n of Object.getOwnPropertyNames(o)) out.add(n);
    return out; };
  const window_names = [...names(window, null)];
  const proto = p5.prototype, fn = [], val = [];
  for (const n of names(proto, Object.prototype)) {
    const d = Object.getOwnPropertyDescriptor(proto, n) || {};
    (typeof proto[n] === "function" && n !== "constructor" ? fn : val).push(n);
  }
  return { window: window_names, functions: fn, values: val, brush: Object.keys(window.brush) };
}"""


async def main() -> None:
    libs = Libraries.locate()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium(), args=["--headless=new", "--no-sandbox"])
        page = await browser.new_page()
        await page.set_content("<html><body></body></html>")
        before = set(await page.evaluate("() => Object.getOwnPropertyNames(window)"))
        await page.add_script_tag(content=libs.p5.decode())
        await page.add_script_tag(content=libs.brush.decode())
        names = await page.evaluate(DUMP)
        await browser.close()
    data = {"p5": libs.p5_version, "p5.brush": libs.brush_version,
            "functions": sorted(names["functions"]), "values": sorted(names["values"]),
            "brush": sorted(names["brush"]), "window": sorted(before | set(names["window"]) - {"p5", "brush"})}
    OUT.write_text(json.dumps(data, indent=0) + "\n")
    print(f"wrote {OUT}: {len(data['functions'])} p5 functions, {len(data['values'])} values, "
          f"{len(data['window'])} window names")


if __name__ == "__main__":
    asyncio.run(main())
