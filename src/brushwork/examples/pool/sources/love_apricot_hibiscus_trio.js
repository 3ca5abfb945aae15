// Three small apricot hibiscus strung along a diagonal branch, large to small,
// each with a rose eye; leaves tucked between them on ivory paper.
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
  background(252, 248, 238);
  randomSeed(72);
  noiseSeed(72);
  brush.noStroke();

  wash("#7a6a4a", 190, 0.15, 0.4, 0.5);
  spike(90, 520, -0.75, 520, 7);
  const flowers = [[200, 390, 115], [350, 250, 90], [470, 140, 65]];
  wash("#6b9462", 180, 0.3, 0.5, 0.6);
  leaf(280, 350, 0.5, 130, 40);
  wash("#8db06f", 160, 0.35, 0.5, 0.6);
  leaf(260, 310, -2.2, 120, 36);
  wash("#4f7a52", 170, 0.3, 0.5, 0.6);
  leaf(420, 210, 0.9, 100, 30);

  for (let f = 0; f < 3; f++) {
    const [x, y, s] = flowers[f];
    for (let i = 0; i < 5; i++) {
      wash("#f8b07a", 200, 0.35, 0.55, 0.7);
      petal(x, y, f + i * TWO_PI / 5 + random(-0.12, 0.12), s * random(0.95, 1.1), s * random(0.85, 1.0), f * 40 + i * 5);
    }
    wash("#e77a5e", 150, 0.35, 0.6, 0.6);
    brush.circle(x, y, s * 0.38);
    wash("#b02a48", 220, 0.3, 0.4, 0.5);
    brush.circle(x, y, s * 0.16);
  }
  wash("#f5cf70", 240, 0.1, 0.3, 0.3);
  spike(200, 390, -1.3, 90, 7);
  for (let k = 0; k < 4; k++) {
    wash("#eaa520", 240, 0.15, 0.3, 0.3);
    brush.circle(224 + random(-10, 10), 305 + random(-10, 10), random(4, 7));
  }
}
