// A peach hibiscus in loose watercolour: layered petal washes, a deep rose eye,
// a yellow-tipped stamen column and three soft leaves on warm paper.
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

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(251, 246, 236);
  randomSeed(7);
  noiseSeed(7);
  brush.noStroke();
  const cx = 290, cy = 300;

  // leaves behind the flower
  wash("#5f8f5c", 190, 0.3, 0.5, 0.6);
  leaf(cx + 130, cy + 90, 0.6, 160, 55);
  wash("#86ad70", 170, 0.35, 0.5, 0.6);
  leaf(cx - 140, cy + 70, 2.6, 150, 50);
  wash("#3f6f4c", 150, 0.25, 0.4, 0.5);
  leaf(cx + 140, cy + 100, 0.9, 110, 28);

  // five petals: a pale outer wash, then a warmer inner wash
  const base = -1.2;
  for (let i = 0; i < 5; i++) {
    wash("#f7a77f", 210, 0.35, 0.55, 0.7);
    petal(cx, cy, base + i * TWO_PI / 5 + random(-0.12, 0.12), random(165, 190), random(150, 175), i * 10);
  }
  for (let i = 0; i < 5; i++) {
    wash("#ee8060", 170, 0.3, 0.5, 0.6);
    petal(cx, cy, base + i * TWO_PI / 5 + 0.2 + random(-0.1, 0.1), random(110, 135), random(95, 120), 50 + i * 10);
  }

  // the eye: a rose blush, then a deep core
  wash("#d2445e", 200, 0.4, 0.5, 0.5);
  brush.circle(cx, cy, 55);
  wash("#8a1d3e", 230, 0.25, 0.4, 0.4);
  brush.circle(cx, cy, 26);

  // stamen column leaning up and right, with pollen
  wash("#e6905a", 230, 0.1, 0.3, 0.3);
  brush.beginShape(0.2);
  brush.vertex(cx - 8, cy - 4); brush.vertex(cx + 66, cy - 98);
  brush.vertex(cx + 82, cy - 86); brush.vertex(cx + 8, cy + 8);
  brush.endShape(CLOSE);
  for (let k = 0; k < 6; k++) {
    wash("#f0b428", 240, 0.15, 0.3, 0.3);
    brush.circle(cx + 70 + random(-14, 18), cy - 100 + random(-14, 14), random(5, 9));
  }
}
