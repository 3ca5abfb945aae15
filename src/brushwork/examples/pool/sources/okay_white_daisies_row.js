// Three white daisies on a green ground, flat and even: pointed petals around
// yellow discs, straight stems, one big bloom and two small ones.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
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

// a closed polygon through a list of [x, y] points
function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
  brush.endShape(CLOSE);
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function daisy(x, y, r) {
  for (let k = 0; k < 12; k++) {
    const a = k * TWO_PI / 12;
    wash("#ffffff", 255, 0.05, 0, 0);
    poly([[x, y], [x + r * 0.9 * cos(a - 0.12), y + r * 0.9 * sin(a - 0.12)], [x + r * cos(a), y + r * sin(a)],
          [x + r * 0.9 * cos(a + 0.12), y + r * 0.9 * sin(a + 0.12)]], 0.5);
  }
  wash("#f0c030", 230, 0.05, 0, 0);
  brush.circle(x, y, r * 0.3);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(178, 204, 160);
  brush.noStroke();
  wash("#8fb878", 200, 0.05, 0, 0);
  poly([[0, 380], [600, 380], [600, 600], [0, 600]], 0);
  const heads = [[240, 240, 95], [430, 330, 55], [120, 390, 45]];
  for (const [x, y, r] of heads) {
    wash("#5e8f4a", 220, 0.05, 0, 0);
    poly([[x - 3, y], [x + 3, y], [x + 3, 580], [x - 3, 580]], 0);
    daisy(x, y, r);
    daisy(x, y, r);
  }
}
