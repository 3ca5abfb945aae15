// A pink hibiscus turned three-quarters toward the light: petals squashed into a
// tilted cup, the back petals cooler, a long stamen column reaching out of it.
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
  background(248, 245, 240);
  randomSeed(101);
  noiseSeed(101);
  brush.noStroke();
  const cx = 285, cy = 280;

  wash("#5f8a5e", 190, 0.3, 0.5, 0.6);
  leaf(cx + 10, cy + 170, -0.3, 170, 48);
  wash("#86a870", 170, 0.35, 0.5, 0.6);
  leaf(cx - 20, cy + 200, 3.5, 150, 44);
  wash("#4a6e4e", 180, 0.2, 0.4, 0.5);
  spike(cx - 10, cy + 95, 1.75, 210, 6);

  // back petals first, cooler
  for (let i = 0; i < 2; i++) {
    wash("#e6a0c8", 190, 0.35, 0.55, 0.7);
    petal(cx, cy, -2.0 + i * 1.1, random(170, 190), random(150, 165), i * 4, 0.6);
  }
  for (let i = 0; i < 3; i++) {
    wash("#f07fa8", 210, 0.35, 0.55, 0.7);
    petal(cx, cy + 10, 0.1 + i * 1.25 - 0.6, random(170, 190), random(150, 170), 20 + i * 4, 0.6);
  }
  for (let i = 0; i < 3; i++) {
    wash("#d8457e", 130, 0.35, 0.6, 0.6);
    petal(cx, cy + 10, 0.2 + i * 1.25 - 0.6, random(90, 110), random(70, 90), 40 + i * 4, 0.6);
  }
  wash("#9c1a4e", 210, 0.3, 0.4, 0.5);
  blob(cx, cy + 5, 34, 20, 0.4, 7);

  wash("#e0789e", 240, 0.1, 0.3, 0.3);
  spike(cx, cy, -0.75, 170, 8);
  for (let k = 0; k < 7; k++) {
    wash("#f2b326", 240, 0.15, 0.3, 0.3);
    brush.circle(cx + 125 + random(-16, 16), cy - 118 + random(-16, 16), random(4, 7));
  }
}
