// Three red poppies at different heights over a loose green meadow wash, each with a
// dark centre; the stems are thin green strokes and the sky is a pale blue bloom.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a fan-shaped petal: narrow base at (cx, cy), wide ruffled rim along ang
function petal(cx, cy, ang, len, wid, seed, squash = 1) {
  const pts = [[0, -0.10 * wid], [0.40 * len, -0.42 * wid]];
  for (let k = 0; k <= 8; k++) {
    const t = map(k, 0, 8, -HALF_PI, HALF_PI);
    const ruffle = 1 + 0.16 * (noise(seed + k * 0.7) - 0.5);
    pts.push([len * (0.72 + 0.28 * cos(t)) * ruffle, 0.52 * wid * sin(t) * ruffle]);
  }
  pts.push([0.40 * len, 0.42 * wid], [0, 0.10 * wid]);
  brush.beginShape(0.7);
  for (const p of pts) {
    const x = p[0] * cos(ang) - p[1] * sin(ang);
    const y = p[0] * sin(ang) + p[1] * cos(ang);
    brush.vertex(cx + x, cy + y * squash);
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

// an irregular rounded wash, radius r, wobble 0..1
function blob(x, y, rx, ry, wobble, seed) {
  brush.beginShape(0.9);
  for (let k = 0; k < 12; k++) {
    const a = k * TWO_PI / 12;
    const m = 1 + wobble * (noise(seed + k * 0.5) - 0.5);
    brush.vertex(x + rx * m * cos(a), y + ry * m * sin(a));
  }
  brush.endShape(CLOSE);
}

// a thin tapered stroke-like shape from (x, y) along ang
function spike(x, y, ang, len, w) {
  brush.beginShape(0.4);
  brush.vertex(x - w * sin(ang), y + w * cos(ang));
  brush.vertex(x + len * 0.6 * cos(ang) - w * 0.6 * sin(ang), y + len * 0.6 * sin(ang) + w * 0.6 * cos(ang));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.6 * cos(ang) + w * 0.6 * sin(ang), y + len * 0.6 * sin(ang) - w * 0.6 * cos(ang));
  brush.vertex(x + w * sin(ang), y - w * cos(ang));
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
  background(249, 247, 240);
  randomSeed(111);
  noiseSeed(111);
  brush.noStroke();

  wash("#bcd3e3", 130, 0.5, 0.6, 0.7);
  blob(300, 130, 280, 110, 0.6, 1);
  wash("#a7c48a", 150, 0.5, 0.6, 0.7);
  blob(300, 520, 300, 100, 0.6, 2);
  wash("#7ba366", 140, 0.45, 0.6, 0.7);
  blob(180, 560, 160, 60, 0.6, 3);

  const heads = [[190, 300, 70], [360, 220, 85], [470, 380, 55]];
  for (const h of heads) {
    wash("#5d8a4e", 190, 0.15, 0.4, 0.5);
    spike(h[0], h[1] + 20, HALF_PI + random(-0.15, 0.15), 560 - h[1], 4);
  }
  for (let f = 0; f < 3; f++) {
    const [x, y, s] = heads[f];
    for (let i = 0; i < 4; i++) {
      wash("#e8322a", 210, 0.35, 0.55, 0.7);
      petal(x, y, f * 0.7 + i * HALF_PI + random(-0.15, 0.15), s * random(0.95, 1.1), s * random(1.0, 1.2), f * 20 + i * 3, 0.85);
    }
    wash("#b8141e", 130, 0.35, 0.6, 0.6);
    brush.circle(x, y, s * 0.45);
    wash("#241a1e", 230, 0.2, 0.4, 0.4);
    brush.circle(x, y, s * 0.17);
  }
  wash("#5d8a4e", 170, 0.3, 0.5, 0.6);
  leaf(250, 560, -1.9, 120, 20);
  wash("#4a7a44", 170, 0.3, 0.5, 0.6);
  leaf(420, 570, -1.3, 110, 18);
}
