// Two coral hibiscus overlapping on a diagonal, the smaller one behind and cooler,
// tied together by dark leaves; warm cream paper.
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
  background(250, 244, 232);
  randomSeed(55);
  noiseSeed(55);
  brush.noStroke();

  wash("#4f7a55", 170, 0.3, 0.5, 0.6);
  leaf(345, 430, 0.8, 160, 48);
  wash("#7aa06a", 150, 0.35, 0.5, 0.6);
  leaf(95, 440, 2.5, 140, 42);
  wash("#3b6146", 150, 0.3, 0.5, 0.6);
  leaf(505, 250, 0.4, 110, 34);

  // the flower behind, smaller, cooler pink
  const bx = 410, by = 200;
  for (let i = 0; i < 5; i++) {
    wash("#f29a9a", 180, 0.35, 0.55, 0.7);
    petal(bx, by, 0.2 + i * TWO_PI / 5 + random(-0.1, 0.1), random(100, 115), random(90, 105), i * 5);
  }
  wash("#b03050", 200, 0.3, 0.4, 0.5);
  brush.circle(bx, by, 22);

  // the main flower in front
  const cx = 230, cy = 360;
  for (let i = 0; i < 5; i++) {
    wash("#f57a5a", 200, 0.35, 0.55, 0.7);
    petal(cx, cy, -0.6 + i * TWO_PI / 5 + random(-0.12, 0.12), random(150, 170), random(135, 155), 30 + i * 5);
  }
  for (let i = 0; i < 5; i++) {
    wash("#e4566a", 130, 0.35, 0.6, 0.6);
    petal(cx, cy, -0.45 + i * TWO_PI / 5 + random(-0.1, 0.1), random(80, 100), random(70, 85), 60 + i * 5);
  }
  wash("#a01c3c", 220, 0.3, 0.4, 0.5);
  brush.circle(cx, cy, 30);

  wash("#f3c07a", 230, 0.1, 0.3, 0.3);
  spike(cx, cy, -1.0, 105, 8);
  for (let k = 0; k < 5; k++) {
    wash("#f2b01e", 240, 0.15, 0.3, 0.3);
    brush.circle(cx + 58 + random(-12, 12), cy - 90 + random(-12, 12), random(5, 8));
  }
}
