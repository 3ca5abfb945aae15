// A lemon-yellow hibiscus with a maroon eye on pale blue paper, seen slightly from
// the side so the petals foreshorten; ochre shading pooled toward the centre.
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
  background(236, 241, 244);
  randomSeed(48);
  noiseSeed(48);
  brush.noStroke();
  const cx = 300, cy = 310;

  wash("#6e9a5e", 180, 0.35, 0.5, 0.6);
  leaf(cx - 150, cy + 60, 2.7, 150, 50);
  wash("#8fb466", 150, 0.4, 0.5, 0.6);
  leaf(cx + 60, cy + 120, 1.0, 150, 45);

  for (let i = 0; i < 5; i++) {
    const a = -1.5 + i * TWO_PI / 5 + random(-0.12, 0.12);
    wash("#f7dd57", 220, 0.35, 0.5, 0.7);
    petal(cx, cy, a, random(175, 200), random(150, 175), i * 11, 0.75);
  }
  for (let i = 0; i < 5; i++) {
    const a = -1.3 + i * TWO_PI / 5 + random(-0.1, 0.1);
    wash("#e8a93a", 140, 0.35, 0.6, 0.6);
    petal(cx, cy, a, random(90, 115), random(80, 100), 60 + i * 11, 0.75);
  }
  wash("#8c1f2c", 220, 0.35, 0.5, 0.5);
  blob(cx, cy, 42, 32, 0.4, 2);
  for (let i = 0; i < 5; i++) {
    wash("#8c1f2c", 150, 0.25, 0.4, 0.4);
    spike(cx, cy, -1.5 + i * TWO_PI / 5, random(55, 75), 9);
  }
  wash("#5a0f1b", 230, 0.2, 0.4, 0.4);
  brush.circle(cx, cy, 16);

  wash("#e9c25c", 230, 0.1, 0.3, 0.3);
  spike(cx, cy, -1.2, 120, 8);
  for (let k = 0; k < 6; k++) {
    wash("#c9302c", 220, 0.15, 0.3, 0.3);
    brush.circle(cx + 42 + random(-12, 12), cy - 112 + random(-12, 12), random(4, 7));
  }
}
