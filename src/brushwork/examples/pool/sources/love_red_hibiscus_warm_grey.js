// A scarlet hibiscus on warm grey paper, the petals glazed twice so the reds deepen
// where they overlap; a loose ochre halo and dark leaves set it off.
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
  background(232, 226, 216);
  randomSeed(64);
  noiseSeed(64);
  brush.noStroke();
  const cx = 310, cy = 300;

  wash("#e2c48c", 120, 0.5, 0.6, 0.7);
  blob(cx - 20, cy + 10, 230, 210, 0.7, 12);
  wash("#35573f", 200, 0.3, 0.5, 0.6);
  leaf(cx - 150, cy - 90, 3.7, 140, 42);
  wash("#4d7550", 190, 0.3, 0.5, 0.6);
  leaf(cx + 120, cy + 110, 0.75, 150, 48);
  wash("#2e4d3a", 180, 0.3, 0.5, 0.6);
  leaf(cx - 90, cy + 150, 2.1, 130, 40);

  for (let i = 0; i < 5; i++) {
    wash("#e0302e", 200, 0.35, 0.55, 0.7);
    petal(cx, cy, 0.9 + i * TWO_PI / 5 + random(-0.12, 0.12), random(160, 180), random(145, 165), i * 13);
  }
  for (let i = 0; i < 5; i++) {
    wash("#b01a2a", 150, 0.35, 0.6, 0.6);
    petal(cx, cy, 1.1 + i * TWO_PI / 5 + random(-0.1, 0.1), random(85, 110), random(75, 95), 70 + i * 13);
  }
  wash("#5e0a18", 230, 0.3, 0.4, 0.5);
  brush.circle(cx, cy, 28);

  wash("#f08a50", 240, 0.1, 0.3, 0.3);
  spike(cx, cy, -0.6, 120, 8);
  for (let k = 0; k < 6; k++) {
    wash("#f5c030", 240, 0.15, 0.3, 0.3);
    brush.circle(cx + 95 + random(-12, 12), cy - 68 + random(-12, 12), random(5, 8));
  }
}
