// A magenta hibiscus on deep indigo-grey paper: transparent washes cannot lift out of
// the dark, so the pale underglaze greys and the magenta turns a murky violet.
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
  background(58, 62, 86);
  randomSeed(161);
  noiseSeed(161);
  brush.noStroke();
  const cx = 300, cy = 300;

  wash("#6f9a8a", 170, 0.35, 0.5, 0.6);
  leaf(cx + 120, cy + 110, 0.7, 160, 48);
  wash("#4f7d6c", 170, 0.35, 0.5, 0.6);
  leaf(cx - 130, cy + 80, 2.7, 150, 44);
  wash("#84a99a", 150, 0.35, 0.5, 0.6);
  leaf(cx - 40, cy - 150, -1.9, 120, 38);

  for (let i = 0; i < 5; i++) {
    wash("#fbe2ee", 255, 0.3, 0.4, 0.6);
    petal(cx, cy, 0.2 + i * TWO_PI / 5 + random(-0.1, 0.1), random(160, 180), random(145, 165), i * 8);
  }
  for (let i = 0; i < 5; i++) {
    wash("#e03c96", 190, 0.35, 0.55, 0.7);
    petal(cx, cy, 0.35 + i * TWO_PI / 5 + random(-0.1, 0.1), random(140, 160), random(120, 140), 40 + i * 8);
  }
  wash("#8a1050", 230, 0.3, 0.4, 0.5);
  brush.circle(cx, cy, 34);
  wash("#ffd0e6", 250, 0.1, 0.3, 0.3);
  spike(cx, cy, -1.3, 115, 8);
  for (let k = 0; k < 6; k++) {
    wash("#f8d040", 250, 0.15, 0.3, 0.3);
    brush.circle(cx + 30 + random(-12, 12), cy - 112 + random(-12, 12), random(5, 8));
  }
}
