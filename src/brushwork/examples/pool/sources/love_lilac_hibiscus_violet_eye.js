// A lilac hibiscus (rose of Sharon) with a violet-magenta eye; cool blue washes
// drift through the petals and a dusty green leaf group sits low right.
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
  background(246, 244, 248);
  randomSeed(81);
  noiseSeed(81);
  brush.noStroke();
  const cx = 280, cy = 270;

  wash("#b7c7e6", 120, 0.5, 0.6, 0.7);
  blob(430, 430, 160, 120, 0.7, 6);
  wash("#6d8f78", 190, 0.3, 0.5, 0.6);
  leaf(cx + 120, cy + 120, 0.8, 170, 50);
  wash("#93ad8c", 170, 0.35, 0.5, 0.6);
  leaf(cx + 80, cy + 150, 1.4, 150, 42);
  wash("#577a66", 160, 0.3, 0.5, 0.6);
  leaf(cx - 140, cy + 40, 2.9, 120, 38);

  for (let i = 0; i < 5; i++) {
    wash("#c7a6e0", 210, 0.35, 0.55, 0.7);
    petal(cx, cy, -0.2 + i * TWO_PI / 5 + random(-0.12, 0.12), random(165, 185), random(150, 170), i * 6);
  }
  for (let i = 0; i < 5; i++) {
    wash("#8fa3e0", 110, 0.4, 0.6, 0.6);
    petal(cx, cy, 0.1 + i * TWO_PI / 5 + random(-0.1, 0.1), random(120, 140), random(60, 80), 50 + i * 6);
  }
  wash("#b0207a", 200, 0.35, 0.5, 0.5);
  brush.circle(cx, cy, 40);
  for (let i = 0; i < 5; i++) {
    wash("#a01a70", 160, 0.2, 0.4, 0.4);
    spike(cx, cy, -0.2 + i * TWO_PI / 5 + random(-0.2, 0.2), random(60, 75), 9);
  }
  wash("#5a0c40", 230, 0.2, 0.4, 0.4);
  brush.circle(cx, cy, 15);
  wash("#f1eaf6", 255, 0.1, 0.3, 0.3);
  spike(cx, cy, -2.3, 110, 8);
  for (let k = 0; k < 5; k++) {
    wash("#f0d36a", 240, 0.15, 0.3, 0.3);
    brush.circle(cx - 75 + random(-12, 12), cy - 85 + random(-12, 12), random(5, 8));
  }
}
