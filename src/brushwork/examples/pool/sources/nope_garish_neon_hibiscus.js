// A hibiscus in clashing neon: lime petals, cyan and orange petals, a violet centre
// and magenta leaves on a hot yellow-green ground.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a plain, symmetric petal: a stiff six-point lozenge from (cx, cy) along ang
function flatpetal(cx, cy, ang, len, wid) {
  const pts = [[0, 0], [0.3 * len, -0.45 * wid], [0.85 * len, -0.5 * wid], [len, 0], [0.85 * len, 0.5 * wid], [0.3 * len, 0.45 * wid]];
  brush.beginShape(0.3);
  for (const p of pts) {
    brush.vertex(cx + p[0] * cos(ang) - p[1] * sin(ang), cy + p[0] * sin(ang) + p[1] * cos(ang));
  }
  brush.endShape(CLOSE);
}

// a pointed leaf from its stem end (x, y) along ang
function leaf(x, y, ang, len, wid) {
  brush.beginShape(0.8);
  for (let k = 0; k <= 10; k++) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) + w * sin(ang), y + len * t * sin(ang) - w * cos(ang));
  }
  for (let k = 9; k >= 1; k--) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) - w * sin(ang), y + len * t * sin(ang) + w * cos(ang));
  }
  brush.endShape(CLOSE);
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(190, 255, 40);
  brush.noStroke();
  const cols = ["#00ff60", "#00e5ff", "#ff6a00", "#ff00c8", "#2040ff"];
  wash("#ff00aa", 255, 0.05, 0, 0);
  leaf(400, 420, 0.7, 150, 50);
  leaf(200, 420, 2.4, 150, 50);
  for (let i = 0; i < 5; i++) {
    wash(cols[i], 255, 0.05, 0, 0);
    flatpetal(300, 290, -HALF_PI + i * TWO_PI / 5, 150, 110);
  }
  wash("#7a00ff", 255, 0.05, 0, 0);
  brush.circle(300, 290, 40);
}
