// A white hibiscus with a crimson eye on blue-grey paper: the petals are built from
// two passes of opaque-ish white, dark leaves behind them, lavender shadows at the base.
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
  background(206, 215, 218);
  randomSeed(21);
  noiseSeed(21);
  brush.noStroke();
  const cx = 300, cy = 295;

  // dark leaves radiating from behind the flower
  wash("#3f6b52", 200, 0.3, 0.5, 0.6);
  leaf(cx + 110, cy + 90, 0.7, 180, 55);
  wash("#557f5e", 190, 0.3, 0.5, 0.6);
  leaf(cx - 120, cy + 70, 2.6, 170, 50);
  wash("#2f5744", 190, 0.3, 0.5, 0.6);
  leaf(cx + 90, cy - 120, -0.9, 150, 45);
  wash("#7f9f8a", 150, 0.4, 0.5, 0.6);
  blob(110, 110, 90, 70, 0.6, 4);

  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < 5; i++) {
      const a = -0.4 + i * TWO_PI / 5 + random(-0.1, 0.1);
      wash("#ffffff", 255, 0.25, 0.3, 0.5);
      petal(cx, cy, a, 175 - pass * 25 + random(-8, 8), 160 - pass * 20 + random(-8, 8), i * 7 + pass * 30);
    }
  }
  for (let i = 0; i < 5; i++) {
    wash("#a49fbd", 100, 0.35, 0.6, 0.6);
    petal(cx, cy, -0.25 + i * TWO_PI / 5, random(80, 100), random(60, 80), 80 + i * 7);
  }

  // crimson eye bleeding out in streaks
  wash("#c21f3a", 220, 0.35, 0.5, 0.5);
  brush.circle(cx, cy, 36);
  for (let i = 0; i < 5; i++) {
    wash("#b0203c", 170, 0.2, 0.4, 0.4);
    spike(cx, cy, -0.4 + i * TWO_PI / 5 + random(-0.2, 0.2), random(55, 70), 9);
  }
  wash("#6d0f24", 230, 0.2, 0.4, 0.4);
  brush.circle(cx, cy, 16);

  wash("#f3e6c8", 255, 0.1, 0.3, 0.3);
  spike(cx, cy, -1.9, 110, 9);
  for (let k = 0; k < 5; k++) {
    wash("#e9a81e", 240, 0.15, 0.3, 0.3);
    brush.circle(cx - 35 + random(-12, 12), cy - 105 + random(-12, 12), random(5, 8));
  }
}
