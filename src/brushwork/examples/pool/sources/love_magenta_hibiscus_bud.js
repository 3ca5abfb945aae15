// A magenta hibiscus left of centre with a furled bud on the right, leaves
// crossing between them; wet-in-wet blooms of violet inside the petals.
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

// a closed polygon through a list of [x, y] points
function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
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
  background(250, 247, 242);
  randomSeed(33);
  noiseSeed(33);
  brush.noStroke();
  const cx = 250, cy = 320;

  wash("#7fa36b", 170, 0.35, 0.5, 0.6);
  leaf(cx + 120, cy + 40, 0.35, 200, 55);
  wash("#4e7a52", 160, 0.3, 0.5, 0.6);
  leaf(cx + 40, cy + 140, 1.3, 150, 40);
  wash("#9ab77c", 140, 0.4, 0.5, 0.6);
  leaf(cx - 130, cy - 40, 3.5, 130, 45);

  // the bud: a green calyx and a tight magenta spiral
  wash("#5c8a4e", 180, 0.2, 0.4, 0.5);
  blob(455, 215, 26, 34, 0.3, 5);
  wash("#c2206f", 200, 0.25, 0.5, 0.5);
  poly([[440, 205], [448, 140], [466, 105], [482, 145], [474, 205]], 0.8);
  wash("#4e7a52", 170, 0.15, 0.4, 0.5);
  spike(452, 240, 2.2, 120, 5);

  for (let i = 0; i < 5; i++) {
    const a = 0.3 + i * TWO_PI / 5 + random(-0.12, 0.12);
    wash("#e0429a", 190, 0.35, 0.55, 0.7);
    petal(cx, cy, a, random(160, 185), random(145, 170), i * 9);
  }
  for (let i = 0; i < 5; i++) {
    const a = 0.5 + i * TWO_PI / 5 + random(-0.1, 0.1);
    wash("#9a3fb0", 110, 0.4, 0.6, 0.6);
    petal(cx, cy, a, random(90, 120), random(80, 100), 30 + i * 9);
  }
  wash("#7a0f4a", 220, 0.3, 0.4, 0.5);
  brush.circle(cx, cy, 32);

  wash("#f2b8d6", 220, 0.1, 0.3, 0.3);
  spike(cx, cy, -0.9, 115, 8);
  for (let k = 0; k < 6; k++) {
    wash("#f5c542", 240, 0.15, 0.3, 0.3);
    brush.circle(cx + 70 + random(-14, 14), cy - 90 + random(-14, 14), random(5, 8));
  }
}
