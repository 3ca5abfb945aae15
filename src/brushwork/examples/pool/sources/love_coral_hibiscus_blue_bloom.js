// A coral hibiscus floating on a loose cerulean bloom, complementary colours kept
// apart by a halo of bare paper; a second wash of rose deepens the petal hearts.
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
  background(250, 248, 244);
  randomSeed(151);
  noiseSeed(151);
  brush.noStroke();
  const cx = 300, cy = 290;

  wash("#9cc3dc", 150, 0.5, 0.6, 0.7);
  blob(140, 470, 150, 110, 0.7, 2);
  wash("#b8d4e6", 130, 0.5, 0.6, 0.7);
  blob(480, 120, 130, 100, 0.7, 5);
  wash("#5e8c68", 190, 0.3, 0.5, 0.6);
  leaf(cx - 130, cy + 100, 2.5, 150, 46);
  wash("#84aa7a", 170, 0.35, 0.5, 0.6);
  leaf(cx + 140, cy - 60, -0.3, 130, 40);

  for (let i = 0; i < 5; i++) {
    wash("#f8836a", 210, 0.35, 0.55, 0.7);
    petal(cx, cy, -0.9 + i * TWO_PI / 5 + random(-0.12, 0.12), random(160, 180), random(145, 165), i * 4);
  }
  for (let i = 0; i < 5; i++) {
    wash("#e25a74", 140, 0.35, 0.6, 0.6);
    petal(cx, cy, -0.7 + i * TWO_PI / 5 + random(-0.1, 0.1), random(85, 105), random(70, 90), 30 + i * 4);
  }
  wash("#a81c40", 220, 0.3, 0.4, 0.5);
  brush.circle(cx, cy, 30);
  wash("#f8b890", 240, 0.1, 0.3, 0.3);
  spike(cx, cy, -2.4, 115, 8);
  for (let k = 0; k < 6; k++) {
    wash("#f2b01e", 240, 0.15, 0.3, 0.3);
    brush.circle(cx - 88 + random(-12, 12), cy - 78 + random(-12, 12), random(5, 8));
  }
}
