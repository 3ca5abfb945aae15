// An overworked hibiscus buried in clutter: forty overlapping petals, blobs and dots
// in every colour of the box, no focal point.
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

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(244, 240, 232);
  randomSeed(211);
  noiseSeed(211);
  brush.noStroke();
  const cols = ["#e0429a", "#f7903a", "#4f7a4c", "#2f6fb0", "#f5d442", "#8a3fb0", "#c8334e", "#6ec0b0"];
  for (let i = 0; i < 22; i++) {
    wash(cols[i % 8], random(200, 250), random(0.1, 0.3), 0.4, 0.5);
    petal(random(180, 420), random(180, 420), random(TWO_PI), random(110, 170), random(90, 140), i);
  }
  for (let i = 0; i < 16; i++) {
    wash(cols[(i * 3) % 8], 220, 0.2, 0.4, 0.4);
    blob(random(120, 480), random(120, 480), random(20, 45), random(20, 45), 0.6, i * 7);
  }
}
