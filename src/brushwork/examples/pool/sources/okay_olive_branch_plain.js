// A plain olive branch: one straight grey-brown stem and ten identical grey-green
// leaves set in pairs, flat washes, centred and stiff.
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

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 248, 242);
  brush.noStroke();
  wash("#7b6b55", 220, 0.05, 0, 0);
  poly([[60, 304], [540, 290], [540, 300], [60, 314]], 0);
  for (let k = 0; k < 5; k++) {
    const x = 110 + k * 90;
    for (const side of [-1, 1]) {
      wash("#7f9468", 230, 0.05, 0.1, 0.1);
      poly([[x, 300], [x + 40, 300 + side * 40], [x + 80, 300 + side * 95], [x + 15, 300 + side * 55]], 0.6);
    }
  }
}
